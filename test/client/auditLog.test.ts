// `aics audit log` and `aics audit name` against a log holding a leaf the service could never
// have written (the auditor's walk): whoever holds the log's key and storage can append a
// correctly signed second claim of a taken name, and the service then folds it, answers the
// name with the new key, and signs checkpoints over it; a witness cosigns, since the log
// still grows. Folding the leaves took the log's word for it ("agrees with the log"); the
// audit replays every leaf with the sequencer's own checks and decision (domain/write/replay.ts)
// and names the leaf and the rule it breaks. Here the leaf is appended straight into the
// stopped service's stores, as such an operator would, and the service started again on them.
// The owner's views (the freeze, the policies, each suspension) are compared with the ones
// the replayed log implies: a proxy that answers a suspension the owner ended as never
// having been is caught.

import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { accepted, envelopeFor, makeAgent, postPayload } from "../support/agents.js"
import { ok, runAics } from "../support/aicsCli.js"
import { claimPayload } from "../support/identityAgents.js"
import { type Alter, alterJson, startLyingProxy } from "../support/lyingProxy.js"
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
    // The owner suspends alice and ends it.
    await writeFile(join(work, "order.txt"), "an order")
    const owner = (args: ReadonlyArray<string>) => runAics(["admin", ...args], { cwd: work, env: { ...env(), AICS_OWNER_KEY: join(dataDir, "owner.key") } })
    ok(await owner(["suspend", "alice", "--order", join(work, "order.txt")]))
    ok(await owner(["unsuspend", "alice"]))

    const honest = ok(await aics(["audit", "log"]))
    expect(honest.out).toMatch(/5 entries from 1 bundles replayed as the sequencer decides them/)
    expect(honest.out).toContain("the views that agree with the log: /v2/governance/freeze, /v2/governance/policy, /v2/governance/suspensions/alice, /v2/agora/polls, /agora?format=json, /v2/directory?limit=500, 1 page of posts, 0 polls, 1 page of a channel's posts, ")
    expect(honest.out).toContain("every leaf of the log at size 5 is one the sequencer had to write")
    const honestJson = JSON.parse(ok(await aics(["audit", "log", "--json"])).out) as Record<string, unknown>
    expect(honestJson).toMatchObject({ checkpoint_size: 5, entries_replayed: 5, leaves_refused: 0, problems: [], unchecked_leaves: [], ok: true })

    // A service that says alice was never suspended.
    let lie: Record<string, unknown> = { index: null, order: null, until: null, ended_index: null, size: 0 }
    const proxy = await startLyingProxy(() => server.baseUrl, () => alterJson((path) => path === "/v2/governance/suspensions/alice", (view) => ({ ...view, ...lie })))
    cleanup.push(proxy.close)
    const throughProxy = () => runAics(["audit", "log", "--server", proxy.url], { cwd: work, env: env() })
    const lying = await throughProxy()
    expect(lying.code).toBe(1)
    expect(lying.out).toMatch(/DIFFERENT \/v2\/governance\/suspensions\/alice \/index: the log implies 3, the service says null/)
    expect(lying.err).toContain("1 views differing")
    // Nor does a view escape the comparison by claiming leaves past the log audited: its own
    // signed checkpoint must show them.
    lie = { suspended: false, size: 1_000_000 }
    const ahead = await throughProxy()
    expect(ahead.code).toBe(1)
    expect(ahead.err).toContain("the view's checkpoint (size 5) does not cover its size 1000000")

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
    expect(caught.err).toContain("audit of the log failed: 1 leaves refused")
    // The service folded the forged claim into its views as well; where its fold and the
    // replay's part (the directory, alice's view) is said too.
    expect(caught.out).toContain("the log at size 6: 1 leaf the sequencer could not have written, 2 views differing, 0 not compared")
    expect(caught.out).toMatch(new RegExp(`^DIFFERENT /v2/names/alice /claim_index: the log implies ${forgedIndex}, the service says 1$`, "m"))
    // The name's audit replays the same leaves: the view agrees with a fold, not with the rules.
    const name = await aics(["audit", "name", "alice"])
    expect(name.code).toBe(1)
    expect(name.out).toContain(`PROBLEM: entry ${forgedIndex} (claim): name_taken`)
    expect(name.out).not.toContain("agrees with the log")
  }, 90_000)
})

describe("aics audit log over a log that moves and a forum of several pages", () => {
  it("walks every page of posts, and replays the leaves logged since for a view past the checkpoint it replayed", async () => {
    const work = await mkdtemp(join(tmpdir(), "aics-auditlog-"))
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(work), () => removeDir(dataDir))
    // 250 posts: the walk's pages hold 200 at most.
    await startServer({ dataDir }).then((first) => first.stop())
    const poster = makeAgent(`audit log poster ${Math.random()}`)
    const created = Math.floor(Date.now() / 1000)
    const start = await Effect.runPromise(seedLeaves(dataDir, () => Array.from({ length: 250 }, (_, i) => {
      const { payload, body } = postPayload(`post ${i} of many`)
      const envelope = envelopeFor(poster, ORIGIN, "post", payload, { created })
      accepted(poster, envelope)
      return { envelope, body, logged: Date.now() + i }
    })))
    const seeded = Array.from({ length: 250 }, (_, i) => ({ index: start + i }))
    const server = await startServer({ dataDir })
    cleanup.push(() => server.kill())
    const vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
    const aics = (args: ReadonlyArray<string>, via = server.baseUrl) => runAics(args, { cwd: work, env: { AICS_SERVER: via, AICS_LOG_VKEY: vkey } })
    ok(await aics(["keygen", "--key", join(work, "alice.json")]))
    ok(await aics(["claim", "alice", "--key", join(work, "alice.json")]))
    const poll = Number(/poll (\d+)/.exec(ok(await aics(["poll", "create", "general", "Again?", "yes", "no", "--closes", "+3600", "--key", join(work, "alice.json")])).out)![1])

    const honest = ok(await aics(["audit", "log"]))
    expect(honest.out).toContain(", 2 pages of posts, 1 poll, 2 pages of channels' posts, ")
    const views = (JSON.parse(ok(await aics(["audit", "log", "--json"])).out) as { views: Array<{ view: string }> }).views.map((v) => v.view)
    expect(views.filter((v) => v.startsWith("/v2/agora/posts?limit="))).toEqual([`/v2/agora/posts?limit=200&before=${poll + 1}`, `/v2/agora/posts?limit=200&before=${seeded[50]!.index}`])

    // A post left out of the second page is found there.
    let alter: Alter | undefined = alterJson((path) => path.includes(`before=${seeded[50]!.index}`), (page) => ({ ...page, posts: page.posts.slice(1) }))
    // The checkpoint the audit reads first, one from before alice's vote: the poll's view names the vote, past it.
    const stale = await (await fetch(`${server.baseUrl}/checkpoint`)).text()
    const proxy = await startLyingProxy(() => server.baseUrl, () => alter)
    cleanup.push(proxy.close)
    const hidden = await aics(["audit", "log"], proxy.url)
    expect(hidden.code).toBe(1)
    expect(hidden.out).toMatch(new RegExp(`^DIFFERENT /v2/agora/posts\\?limit=200&before=${seeded[50]!.index} /posts/0/index: the log implies ${seeded[49]!.index}, the service says ${seeded[48]!.index}$`, "m"))

    ok(await aics(["vote", String(poll), "1", "--key", join(work, "alice.json")]))
    let served = 0
    alter = (path, answer) => (path === "/checkpoint" && served++ === 0 ? { ...answer, body: new TextEncoder().encode(stale) } : undefined)
    const caughtUp = ok(await aics(["audit", "log", "--json"], proxy.url))
    const report = JSON.parse(caughtUp.out) as { checkpoint_size: number; entries_replayed: number; ok: boolean; views: Array<{ view: string; outcome: string }> }
    expect(served).toBeGreaterThan(1)
    expect(report).toMatchObject({ checkpoint_size: poll + 2, entries_replayed: poll + 2, ok: true })
    expect(report.views.find((v) => v.view === `/v2/agora/polls/${poll}`)).toMatchObject({ outcome: "agrees" })
  }, 120_000)
})
