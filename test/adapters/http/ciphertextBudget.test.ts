// The ciphertext budget (AICS_CIPHERTEXT_BUDGET_BYTES): DM and capsule ciphertext beyond it
// is refused with its own code and a signed refusal, /healthz says DEGRADED, and nothing
// else is refused (claims, grants and posts go on).

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CIPHERTEXT_RETRY_AFTER_SECONDS } from "../../../src/app/WriteAnswers.js"
import { runAics } from "../../support/aicsCli.js"
import { OutsideAgent, u64, type Log } from "../../support/outsideAgent.js"
import { pollUntil } from "../../support/poll.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let dataDir: string
let server: RunningServer
let log: Log

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_CIPHERTEXT_BUDGET_BYTES: "1100" } })
  log = { baseUrl: server.baseUrl, origin: "localhost/aics", vkey: (await readFile(join(dataDir, "log.vkey"), "utf8")).trim() }
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const ciphertext = (n: number) => new Uint8Array(600).map((_, i) => (i * 7 + n) & 0xff)

describe("the ciphertext budget", () => {
  it("refuses ciphertext past the budget with ciphertext_budget_exhausted, and health says DEGRADED", async () => {
    const [alice, bob] = [OutsideAgent.random(log), OutsideAgent.random(log)]
    const bobClaim = await bob.claim(`bob${Date.now() % 100000}`)
    expect(bobClaim.status).toBe(202)
    expect((await alice.claim(`alice${Date.now() % 100000}`)).status).toBe(202)
    const grant = await bob.write("grant", { sender: alice.kid, use: "dm" })
    expect(grant.status).toBe(202)
    const dm = (n: number) => {
      const ct = ciphertext(n)
      return alice.write("dm", {
        to: bob.kid, grant_index: grant.json.entry.index, ct_hash: u64(sha256(ct)), size: ct.length,
        x25519_index: bobClaim.json.entry.index
      }, ct)
    }
    // 600 bytes fit in 1,100; the next 600 do not.
    const accepted = await dm(1)
    expect(accepted.status).toBe(202)
    const firstDm = accepted.json.entry.index as number
    // The ledger follows the log: give it a moment to see the first DM.
    await new Promise((r) => setTimeout(r, 200))
    const refused = await dm(2)
    // A refused entry is 4xx (docs/spec/service.md): 429, come back when retention frees room.
    expect(refused.status).toBe(429)
    expect(refused.retryAfter).toBe(String(CIPHERTEXT_RETRY_AFTER_SECONDS))
    expect(refused.json.entry.refused).toBe("ciphertext_budget_exhausted")
    expect(refused.note[1]).toBe("refusal ciphertext_budget_exhausted")
    const health = await (await fetch(`${server.baseUrl}/healthz`)).json() as { status: string; reasons: Array<string> }
    expect(health.status).toBe("DEGRADED")
    expect(health.reasons).toContain("ciphertext_budget_exhausted")
    // Everything without ciphertext goes on.
    expect((await alice.post("still here")).status).toBe(202)

    // The owner hides the first DM: retention deletes its bytes, and the budget no longer
    // counts them though they have not expired.
    const tombstone = await runAics(["admin", "tombstone", String(firstDm), "privacy"], {
      cwd: dataDir, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: log.vkey, AICS_OWNER_KEY: join(dataDir, "owner.key") }
    })
    expect(tombstone.code, tombstone.err).toBe(0)
    const third = await pollUntil("a DM accepted once the tombstoned one left the budget", async () => {
      const written = await dm(3)
      return written.status === 202 ? written : undefined
    })
    expect(third.json.entry.refused).toBeUndefined()
    // 600 bytes again of 1,100: room for no more.
    expect((await dm(4)).json.entry.refused).toBe("ciphertext_budget_exhausted")

  })
})
