// Anonymous text gate sessions cannot evict a session that proved its key (issue 13 item
// 12; docs/protocol.md "Fair admission"): 10,100 `GET /t?l=identify <random did:key>` in a
// row (each leaves a session holding a challenge) used to push a proven POST /t session
// out of the 10,000-session table. With the budgets off (the harness default), so that
// nothing but the table's order protects it.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_SESSIONS } from "../../../src/app/Gate.js"
import { field, getGate, lastLine, postGate, sessionOf } from "../../support/gateClient.js"
import { Ed25519Key, u64, utf8 } from "../../support/outsideOwner.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer
let dataDir: string

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
}, 30_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("gate sessions", () => {
  it("keeps a proven session through a flood of anonymous ones past the cap", async () => {
    const key = Ed25519Key.random()
    const opened = await postGate(server.baseUrl, [`identify ${key.kid}`])
    const proved = await postGate(server.baseUrl, [`prove ${u64(key.sign(utf8(field(opened.lines, "challenge"))))}`], sessionOf(opened.lines))
    expect(lastLine(proved.lines)).toBe(`ok key ${key.kid}`)
    const session = sessionOf(proved.lines)

    let next = 0
    const flood = MAX_SESSIONS + 100
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < flood) {
        next++
        const anonymous = await getGate(server.baseUrl, `identify ${Ed25519Key.random().kid}`)
        expect(anonymous.text).toContain("\nchallenge ")
      }
    }))

    const after = await postGate(server.baseUrl, ["whoami"], session)
    expect(lastLine(after.lines)).toBe(`ok key ${key.kid}`)
  }, 180_000)
})
