// `aics audit log` compares the views an agent relies on besides the owner's and the posts'
// pages with the replayed log (the auditor's walk found it did not): the channel list
// (/agora in JSON) and every page of each channel's posts, the directory, each name's view,
// each key's view (its chain head, whether a rotation unbound it, its pages) and each key's
// grants. An honest service agrees on a log of several names and keys, a rotation, a
// recovery key, grants, a DM and two channels; a proxy in front of it that falsifies one
// view is named with the view, the member, what the log implies and what the service said.
// A log of more names than the audit asks one by one is compared by the directory's first
// page whole and the views of a sample of names spread over claim order, which the output says.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accepted, envelopeFor, makeAgent } from "../support/agents.js"
import { ok, runAics, startCliWorld, type CliWorld } from "../support/aicsCli.js"
import { callTool, connectAicsMcp } from "../support/mcpClient.js"
import { claimPayload } from "../support/identityAgents.js"
import { type Alter, alterJson, startLyingProxy } from "../support/lyingProxy.js"
import { seedLeaves } from "../support/seedLog.js"
import { removeDir, startServer, tempDataDir } from "../support/server.js"

let world: CliWorld
let proxy: Awaited<ReturnType<typeof startLyingProxy>> | undefined
let alter: Alter | undefined

const facts = { aliceOld: "", aliceNew: "", bob: "", carol: "", recovery: "", rotation: -1, grant: -1 }

const kidOf = (run: { out: string }): string => {
  const kid = /did:key:z[1-9A-HJ-NP-Za-km-z]+/.exec(run.out)?.[0]
  expect(kid, run.out).toBeDefined()
  return kid!
}
const indexOf = (run: { out: string }): number => {
  const index = /entry (\d+)/.exec(run.out)?.[1]
  expect(index, run.out).toBeDefined()
  return Number(index)
}

beforeAll(async () => {
  world = await startCliWorld("aics-audit-views-")
  facts.aliceOld = kidOf(ok(await world.aics(["keygen", "--key", "alice.json"])))
  facts.bob = kidOf(ok(await world.aics(["keygen", "--key", "bob.json"])))
  facts.carol = kidOf(ok(await world.aics(["keygen", "--key", "carol.json"])))
  facts.recovery = kidOf(ok(await world.aics(["keygen", "--key", "recovery.json"])))
  ok(await world.aics(["claim", "alice", "--key", "alice.json"]))
  ok(await world.aics(["claim", "bob", "--key", "bob.json"]))
  // carol names a recovery key, which signs nothing: its view comes from the claim alone.
  ok(await world.aics(["claim", "carol", "--recovery", facts.recovery, "--key", "carol.json"]))
  facts.grant = indexOf(ok(await world.aics(["grant", "alice", "--key", "bob.json"])))
  ok(await world.aics(["grant", "*", "--limit", "2", "--key", "carol.json"]))
  ok(await world.aics(["dm", "bob", "hello bob", "--key", "alice.json"]))
  ok(await world.aics(["post", "general", "a post in general", "--key", "alice.json"]))
  ok(await world.aics(["post", "tasks", "a post in tasks", "--key", "bob.json"]))
  ok(await world.aics(["post", "general", "another in general", "--key", "carol.json"]))
  const rotation = ok(await world.aics(["rotate", "--key", "alice.json"]))
  facts.rotation = indexOf(rotation)
  facts.aliceNew = /rotated alice to (did:key:\S+)/.exec(rotation.out)![1]!
  proxy = await startLyingProxy(() => world.server.baseUrl, () => alter)
}, 120_000)

afterAll(async () => {
  await proxy?.close()
  await world?.stop()
})

/** `aics audit log` through the proxy, with the log's verifier key given out of band. */
const audit = (json = false) =>
  runAics(["audit", "log", ...(json ? ["--json"] : []), "--server", proxy!.url, "--vkey", world.vkey], { cwd: world.agentsDir, timeoutMs: 60_000 })

const keyPath = (kid: string) => `/v2/keys/${encodeURIComponent(kid)}?from=0&limit=10000&recovery_from=0`
const grantsPath = (kid: string) => `/v2/inbox/${encodeURIComponent(kid)}/grants`
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

describe("aics audit log compares the channel list, the directory, names, keys and grants", () => {
  it("agrees with an honest service on every one of them", async () => {
    alter = undefined
    const run = ok(await audit())
    expect(run.out).toContain("/v2/agora/polls, /agora?format=json, /v2/directory?limit=500, 1 page of posts, 0 polls, 2 pages of channels' posts, 0 directory searches, 3 name views, 6 pages of keys' views, 6 keys' grants")
    // The keys: alice's two, bob's, carol's, carol's recovery key (it signed nothing) and the key that signed leaf 0.
    expect(run.out).toContain("compared: all 3 names, all 6 keys, all 2 channels\n")
    const report = JSON.parse(ok(await audit(true)).out) as { ok: boolean; sampled: unknown; views: Array<{ view: string; outcome: string }> }
    expect(report.ok).toBe(true)
    expect(report.sampled).toEqual({ names: { compared: 3, total: 3 }, keys: { compared: 6, total: 6 }, channels: { compared: 2, total: 2 } })
    const views = report.views.map((v) => v.view)
    for (const view of [
      "/agora?format=json", "/v2/directory?limit=500", "/v2/names/alice", "/v2/names/bob", "/v2/names/carol",
      ...[facts.aliceOld, facts.aliceNew, facts.bob, facts.carol, facts.recovery].flatMap((kid) => [keyPath(kid), grantsPath(kid)])
    ]) expect(views, view).toContain(view)
    expect(views.filter((v) => v.startsWith("/v2/agora/posts?channel=")).sort()).toEqual([
      expect.stringMatching(/^\/v2\/agora\/posts\?channel=general&limit=200&before=\d+$/),
      expect.stringMatching(/^\/v2\/agora\/posts\?channel=tasks&limit=200&before=\d+$/)
    ])
    expect(report.views.every((v) => v.outcome === "agrees")).toBe(true)
  }, 90_000)

  it("names the view, the member, what the log implies and what the service said, for each view that lies", async () => {
    const general = (path: string) => path.startsWith("/v2/agora/posts?channel=general&")
    const cases: Array<[string, Alter, RegExp]> = [
      ["the channel list counts a post more",
        alterJson((path) => path === "/agora?format=json", (page) => ({ ...page, channels: page.channels.map((c: any) => c.channel === "general" ? { ...c, posts: 3 } : c) })),
        /^DIFFERENT \/agora\?format=json \/channels\/\d\/posts: the log implies 2, the service says 3$/m],
      ["a channel's page leaves a post out",
        alterJson(general, (page) => ({ ...page, posts: page.posts.slice(1) })),
        /^DIFFERENT \/v2\/agora\/posts\?channel=general&limit=200&before=\d+ \/posts\/0\/index: the log implies \d+, the service says \d+$/m],
      ["the directory gives bob alice's key",
        alterJson((path) => path === "/v2/directory?limit=500", (page) => ({ ...page, names: page.names.map((n: any) => n.name === "bob" ? { ...n, kid: facts.aliceNew } : n) })),
        new RegExp(`^DIFFERENT /v2/directory\\?limit=500 /names/1/kid: the log implies "${facts.bob}", the service says "${facts.aliceNew}"$`, "m")],
      ["the directory leaves carol out",
        alterJson((path) => path === "/v2/directory?limit=500", (page) => ({ ...page, names: page.names.filter((n: any) => n.name !== "carol") })),
        /^DIFFERENT \/v2\/directory\?limit=500 \/names\/2: the log implies \{"name":"carol",.*, the service says \(absent\)$/m],
      ["alice's name view keeps the key the rotation replaced",
        alterJson((path) => path === "/v2/names/alice", (view) => ({ ...view, kid: facts.aliceOld })),
        new RegExp(`^DIFFERENT /v2/names/alice /kid: the log implies "${facts.aliceNew}", the service says "${facts.aliceOld}"$`, "m")],
      ["alice's old key is said still current",
        alterJson((path) => path === keyPath(facts.aliceOld), (view) => ({ ...view, current: true, unbound_index: null })),
        new RegExp(`^DIFFERENT ${escaped(keyPath(facts.aliceOld))} /current: the log implies false, the service says true$`, "m")],
      ["bob's chain head is another seq",
        alterJson((path) => path === keyPath(facts.bob), (view) => ({ ...view, seq: view.seq + 1 })),
        new RegExp(`^DIFFERENT ${escaped(keyPath(facts.bob))} /seq: the log implies 2, the service says 3$`, "m")],
      ["carol's recovery key is said unknown",
        (path) => path === keyPath(facts.recovery)
          ? { status: 404, headers: new Headers({ "content-type": "application/problem+json" }), body: new TextEncoder().encode(JSON.stringify({ code: "key_not_found", detail: "no such key" })) }
          : undefined,
        new RegExp(`^DIFFERENT ${escaped(keyPath(facts.recovery))} : the log implies \\{"kid":"${facts.recovery}",.*, the service says "GET ${escaped(keyPath(facts.recovery))}: 404 key_not_found: no such key"$`, "m")],
      ["bob's grant is said unused",
        alterJson((path) => path === grantsPath(facts.bob), (view) => ({ ...view, grants: view.grants.map((g: any) => ({ ...g, uses: 0 })) })),
        new RegExp(`^DIFFERENT ${escaped(grantsPath(facts.bob))} /grants/0/uses: the log implies 1, the service says 0$`, "m")],
      ["bob's grant is hidden",
        alterJson((path) => path === grantsPath(facts.bob), (view) => ({ ...view, grants: [], indices: [] })),
        new RegExp(`^DIFFERENT ${escaped(grantsPath(facts.bob))} /indices/0: the log implies ${facts.grant}, the service says \\(absent\\)$`, "m")]
    ]
    for (const [what, edit, line] of cases) {
      alter = edit
      const run = await audit()
      expect(run.code, what).toBe(1)
      expect(run.out, what).toMatch(line)
      expect(run.err, what).toContain("1 views differing")
    }
    // The MCP audit_log tool says a view differs, not that the log holds leaves it should not.
    alter = cases[4]![1]
    const mcp = await connectAicsMcp(join(world.agentsDir, "bob.json"), { server: proxy!.url, vkey: world.vkey }, "aics-audit-views")
    try {
      const called = await callTool(mcp, "audit_log", {})
      expect(called.isError).toBe(true)
      expect(called.summary).toMatch(/^every leaf of the log at size \d+ is one the service had to write, but not every view of the service agrees with it: 1 view \(first: \/v2\/names\/alice, differs\)$/)
      expect(called.data).toMatchObject({ ok: false, problems: [], sampled: { names: { compared: 3, total: 3 } } })
    } finally {
      await mcp.close()
    }
    alter = undefined
  }, 240_000)

  it("asks again a view without a checkpoint that claims leaves past the log, and fails the audit while it stays so", async () => {
    alter = alterJson((path) => path === keyPath(facts.bob), (view) => ({ ...view, size: 1_000_000 }))
    const run = await audit()
    expect(run.code).toBe(1)
    expect(run.out).toContain(`not compared: ${keyPath(facts.bob)} names leaves past size`)
    expect(run.err).toContain("0 views differing, 1 not compared")
    alter = undefined
  }, 90_000)

  it("replays the leaves logged since for a directory and a channel list past the checkpoint it replayed, then agrees", async () => {
    // The checkpoint the audit reads first is one from before dave's claim and post: the
    // directory and the channel list name leaves past it.
    const stale = await (await fetch(`${world.server.baseUrl}/checkpoint`)).text()
    ok(await world.aics(["keygen", "--key", "dave.json"]))
    const claim = indexOf(ok(await world.aics(["claim", "dave", "--key", "dave.json"])))
    ok(await world.aics(["post", "news", "dave's first post", "--key", "dave.json"]))
    let served = 0
    alter = (path, answer) => (path === "/checkpoint" && served++ === 0 ? { ...answer, body: new TextEncoder().encode(stale) } : undefined)
    const report = JSON.parse(ok(await audit(true)).out) as { ok: boolean; checkpoint_size: number; views: Array<{ view: string; outcome: string }> }
    expect(served).toBeGreaterThan(1)
    expect(report.ok).toBe(true)
    expect(report.checkpoint_size).toBe(claim + 2)
    expect(report.views.find((v) => v.view === "/v2/directory?limit=500")).toMatchObject({ outcome: "agrees" })
    expect(report.views.find((v) => v.view === "/agora?format=json")).toMatchObject({ outcome: "agrees" })
    alter = undefined
  }, 90_000)
})

describe("aics audit log over more names than it asks one by one", () => {
  it("compares the directory's first page whole, the views of a sample of names spread over claim order and their keys, and says so", async () => {
    const dataDir = await tempDataDir()
    try {
      await startServer({ dataDir }).then((first) => first.stop())
      const created = Math.floor(Date.now() / 1000)
      // 600 names: the directory's first page holds 500; the audit asks the views of 100, some past that page.
      await Effect.runPromise(seedLeaves(dataDir, () => Array.from({ length: 600 }, (_, i) => {
        const agent = makeAgent(`audit views name ${i}`)
        const envelope = envelopeFor(agent, "localhost/aics", "claim", claimPayload(`n${String(i).padStart(3, "0")}`, agent), { created })
        accepted(agent, envelope)
        return { envelope, body: null, logged: Date.now() + i }
      })))
      const server = await startServer({ dataDir })
      try {
        const vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
        let lie: Alter | undefined
        const lying = await startLyingProxy(() => server.baseUrl, () => lie)
        try {
          const aics = (args: ReadonlyArray<string>) => runAics([...args, "--server", lying.url, "--vkey", vkey], { cwd: dataDir, timeoutMs: 120_000 })
          const run = ok(await aics(["audit", "log"]))
          expect(run.out).toContain("compared: 100 of 600 names (spread over claim order, each past the directory's first page of 500 with its directory entry; that page is compared whole), ")
          const drawn = /the sample is this audit's random draw \(seed ([0-9a-f]{64}): --sample-seed draws it again\), the others are not compared here/.exec(run.out)
          expect(drawn).not.toBeNull()
          const report = JSON.parse(ok(await aics(["audit", "log", "--json", "--sample-seed", drawn![1]!])).out) as { ok: boolean; sampled: any; sample_seed: string; views: Array<{ view: string }> }
          expect(report.sample_seed).toBe(drawn![1])
          expect(report.ok).toBe(true)
          expect(report.sampled.names).toEqual({ compared: 100, total: 600 })
          expect(report.sampled.keys.compared).toBeLessThan(report.sampled.keys.total)
          const viewed = report.views.map((v) => v.view)
          expect(viewed).toContain("/v2/directory?limit=500")
          const named = viewed.filter((v) => v.startsWith("/v2/names/")).map((v) => Number(v.slice("/v2/names/n".length)))
          const searched = viewed.filter((v) => v.startsWith("/v2/directory?q=")).map((v) => Number(/q=n(\d+)/.exec(v)![1]))
          // Spread over the whole claim order; those past the first page searched in the directory too.
          expect(named).toHaveLength(100)
          expect(Math.min(...named)).toBeLessThan(6)
          expect(Math.max(...named)).toBeGreaterThanOrEqual(594)
          expect(searched.length).toBeGreaterThan(0)
          expect(searched).toEqual(named.filter((n) => n >= 500))
          // The same seed draws the same names; an audit of its own draws others, which the
          // service cannot foresee.
          expect(JSON.parse(ok(await aics(["audit", "log", "--json", "--sample-seed", drawn![1]!])).out).views).toEqual(report.views)
          const another = JSON.parse(ok(await aics(["audit", "log", "--json"])).out) as { sample_seed: string; views: Array<{ view: string }> }
          expect(another.sample_seed).not.toBe(report.sample_seed)
          expect(another.views.map((v) => v.view)).not.toEqual(viewed)
          // A seed that is not 32 bytes in hex is a usage error.
          const bad = await aics(["audit", "log", "--sample-seed", "abc"])
          expect(bad.code).toBe(2)
          expect(bad.err).toContain("--sample-seed takes 32 bytes in hex")
          // A sampled name past the first page whose directory entry lies is named.
          const name = `n${searched[0]}`
          lie = alterJson((path) => path === `/v2/directory?q=${name}&limit=500`, (page) => ({ ...page, names: page.names.map((n: any) => ({ ...n, tier: "secret" })) }))
          const caught = await aics(["audit", "log", "--sample-seed", drawn![1]!])
          expect(caught.code).toBe(1)
          expect(caught.out).toMatch(new RegExp(`^DIFFERENT /v2/directory\\?q=${name}&limit=500 /names/0/tier: the log implies "key", the service says "secret"$`, "m"))
        } finally {
          await lying.close()
        }
      } finally {
        await server.stop()
      }
    } finally {
      await removeDir(dataDir)
    }
  }, 240_000)
})
