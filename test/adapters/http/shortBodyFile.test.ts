// A body file shorter than the leaves that name it (issue 13 item 10): the real service,
// stopped after three posts, finds its `bodies` file cut inside the last post's record. It
// starts, names the file in its log and on /healthz (DEGRADED, no absolute path), answers
// 404 for the lost body and serves the others; a restart on the cut files does not report
// again, and nothing else is lost (docs/operations.md "Damage found at start").

import { readFile, stat, truncate } from "node:fs/promises"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, describe, expect, it } from "vitest"
import { pollUntil } from "../../support/poll.js"
import { OutsideAgent, u64, utf8, type Log } from "../../support/outsideAgent.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const TEXTS = ["the first post, whose body stays", "the second post, whose body stays too", "the third post, whose body the cut takes"]

let server: RunningServer | undefined

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

interface Health {
  readonly status: string
  readonly reasons: ReadonlyArray<string>
}

const health = async (running: RunningServer) => await (await fetch(`${running.baseUrl}/healthz`)).json() as Health
const bodyStatus = async (running: RunningServer, text: string) => (await fetch(`${running.baseUrl}/v2/bodies/${u64(sha256(utf8(text)))}`)).status

describe("a body file cut short on disk", () => {
  it("is reported by name at start; the other bodies are still served", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const log: Log = { baseUrl: server.baseUrl, origin: ORIGIN, vkey: (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim() }
    const alice = OutsideAgent.random(log)
    expect((await alice.claim(`cut${Date.now() % 100000}`)).status).toBe(202)
    const indexes: Array<number> = []
    for (const text of TEXTS) {
      const posted = await alice.post(text)
      expect(posted.status).toBe(202)
      indexes.push(posted.json.entry.index as number)
    }
    await server.stop()

    // The last record of `bodies` is the third post's: cut inside its body.
    const file = join(server.dataDir, "bodies", "bodies")
    const length = (await stat(file)).size
    await truncate(file, length - 5)

    server = await startServer({ dataDir: server.dataDir, port: server.port })
    expect(server.output()).toContain("damage found at start")
    expect(server.output()).toContain("bodies/bodies")
    expect(server.output()).toContain(u64(sha256(utf8(TEXTS[2]!))))
    const report = await health(server)
    expect(report.status).toBe("DEGRADED")
    const reason = report.reasons.find((r) => r.startsWith("damaged:"))
    expect(reason).toContain("the body file bodies/bodies holds")
    expect(reason).toContain("1 bodies are lost")
    expect(reason).not.toContain(server.dataDir)

    expect(await bodyStatus(server, TEXTS[0]!)).toBe(200)
    expect(await bodyStatus(server, TEXTS[1]!)).toBe(200)
    expect(await bodyStatus(server, TEXTS[2]!)).toBe(404)
    expect((await fetch(`${server.baseUrl}/charter`)).status).toBe(200)
    // The leaves are all there: the entry of the lost body is served, without its body.
    for (const index of indexes) expect((await fetch(`${server.baseUrl}/v2/entries/${index}`)).status).toBe(200)
    const treeSize = indexes.at(-1)! + 1
    await pollUntil(`a checkpoint of ${treeSize} leaves`, async () =>
      (await (await fetch(`${server!.baseUrl}/checkpoint`)).text()).split("\n")[1] === String(treeSize) ? true : undefined)

    // The store goes on: a new post's body is stored after the cut.
    const later = await alice.post("a post after the damage")
    expect(later.status).toBe(202)
    expect(await bodyStatus(server, "a post after the damage")).toBe(200)

    // The files now end at the cut: the next start finds nothing missing, and the bodies stay.
    await server.stop()
    server = await startServer({ dataDir: server.dataDir, port: server.port })
    expect(server.output()).not.toContain("damage found at start")
    expect((await health(server)).status).toBe("OK")
    expect(await bodyStatus(server, TEXTS[0]!)).toBe(200)
    expect(await bodyStatus(server, "a post after the damage")).toBe(200)
  })
})
