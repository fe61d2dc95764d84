// The governance reads an agent checks (src/client/governance.ts) against a service that
// lies: a view of another subject than the one asked, a freeze "in force" whose leaf is no
// freeze. Each is refused as a verification error; the honest answers pass.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { ClientError } from "../../src/client/errors.js"
import { readFreeze, readSuspension } from "../../src/client/governance.js"
import { serviceAt } from "../../src/client/http.js"
import type { LogClient } from "../../src/client/write.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let server: RunningServer
let vkey = ""

beforeAll(async () => {
  server = await startServer({ dataDir: await tempDataDir() })
  vkey = (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim()
})

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

/** A client of the service whose governance answers pass through `tamper`. */
const clientWith = (tamper: (answer: any) => any): LogClient => ({
  service: serviceAt(server.baseUrl, async (input, init) => {
    const response = await fetch(input, init)
    if (!String(input).includes("/v2/governance/") || response.status !== 200) return response
    return new Response(JSON.stringify(tamper(await response.json())), { status: 200, headers: { "content-type": "application/json" } })
  }),
  vkey: parseVerifierKey(nodeCrypto.sha256, vkey)!
})

const verificationFailure = async (read: Promise<unknown>, message: RegExp) => {
  const error = await read.then(() => undefined, (e: unknown) => e)
  expect(error, String(message)).toBeInstanceOf(ClientError)
  expect((error as ClientError).kind).toBe("verification")
  expect((error as ClientError).message).toMatch(message)
}

describe("the governance reads, checked", () => {
  it("take the honest answers", async () => {
    expect((await readSuspension(clientWith((a) => a), "@alice")).view).toMatchObject({ subject: "alice", suspended: false })
    expect((await readFreeze(clientWith((a) => a))).view).toMatchObject({ state: "open", frozen_index: null })
  })

  it("refuse a suspension view of another name than the one asked, in whatever form it was asked", async () => {
    for (const asked of ["alice", "@alice", "@alice.localhost"]) {
      await verificationFailure(readSuspension(clientWith((a) => ({ ...a, subject: "bob" })), asked), /the view is of bob, not the name asked for \(alice\)/)
    }
  })

  it("refuse a freeze in force whose leaf is not a freeze", async () => {
    // Leaf 0, the charter (the policy key's), shown as the freeze in force.
    await verificationFailure(readFreeze(clientWith((a) => ({ ...a, state: "frozen", frozen_index: 0, indices: [0], size: 1 }))), /entry 0 is not signed by the owner key/)
  })
})
