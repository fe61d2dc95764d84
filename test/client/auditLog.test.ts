// `aics audit log` and `aics audit name` against a log holding a leaf the service could never
// have written (the auditor's walk): whoever holds the log's key and storage can append a
// correctly signed second claim of a taken name, and the service then folds it, answers the
// name with the new key, and signs checkpoints over it; a witness cosigns, since the log
// still grows. Folding the leaves took the log's word for it ("agrees with the log"); the
// audit replays every leaf with the sequencer's own checks and decision (domain/write/replay.ts)
// and names the leaf and the rule it breaks. Here the leaf is appended straight into the
// stopped service's stores, as such an operator would, and the service started again on them.

import { mkdtemp, readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { accepted, envelopeFor, makeAgent } from "../support/agents.js"
import { ok, runAics } from "../support/aicsCli.js"
import { claimPayload } from "../support/identityAgents.js"
import { seedLeaves } from "../support/seedLog.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

const ORIGIN = "localhost/aics"
const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
})

describe("aics audit log", () => {
  it("finds every leaf of an honest log one the sequencer had to write, and names a second claim of a taken name", async () => {
    const work = await mkdtemp(join(tmpdir(), "aics-auditlog-"))
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(work), () => removeDir(dataDir))
    const started = async (): Promise<RunningServer> => {
      const server = await startServer({ dataDir })
      cleanup.push(() => server.kill())
      return server
    }
    let server = await started()
    const vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
    const env = () => ({ AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey })
    const aics = (args: ReadonlyArray<string>) => runAics(args, { cwd: work, env: env() })
    ok(await aics(["keygen", "--key", join(work, "alice.json")]))
    ok(await aics(["claim", "alice", "--key", join(work, "alice.json")]))
    ok(await aics(["post", "general", "a post to audit", "--key", join(work, "alice.json")]))

    const honest = ok(await aics(["audit", "log"]))
    expect(honest.out).toMatch(/3 entries from 1 bundles replayed as the sequencer decides them/)
    expect(honest.out).toContain("every leaf of the log at size 3 is one the sequencer had to write")
    const honestJson = JSON.parse(ok(await aics(["audit", "log", "--json"])).out) as Record<string, unknown>
    expect(honestJson).toMatchObject({ checkpoint_size: 3, entries_replayed: 3, problems: [], unchecked_leaves: [], ok: true })

    // The operator appends mallory's claim of alice, correctly signed by mallory, and starts again.
    await server.stop()
    const mallory = makeAgent(`audit log mallory ${Math.random()}`)
    const forged = envelopeFor(mallory, ORIGIN, "claim", claimPayload("alice", mallory), { created: Math.floor(Date.now() / 1000) })
    accepted(mallory, forged)
    const forgedIndex = await Effect.runPromise(seedLeaves(dataDir, () => [{ envelope: forged, body: null, logged: Date.now() }]))
    server = await started()
    // The service folded it: it answers alice with mallory's key, under a signed checkpoint.
    const view = await (await fetch(`${server.baseUrl}/v2/names/alice`)).json() as { kid: string }
    expect(view.kid).toBe(mallory.kid)

    const caught = await aics(["audit", "log"])
    expect(caught.code).toBe(1)
    expect(caught.out).toContain(`PROBLEM: entry ${forgedIndex} (claim): name_taken`)
    expect(caught.err).toContain("audit of the log failed: 1 problems")
    // The name's audit replays the same leaves: the view agrees with a fold, not with the rules.
    const name = await aics(["audit", "name", "alice"])
    expect(name.code).toBe(1)
    expect(name.out).toContain(`PROBLEM: entry ${forgedIndex} (claim): name_taken`)
    expect(name.out).not.toContain("agrees with the log")
  }, 90_000)
})
