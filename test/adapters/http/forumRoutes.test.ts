// The forum, task board, SUP, owner and card routes and the owner's statistics through the
// real server (docs/protocol.md section 12): shapes, limits (422), 404 for an index of the
// wrong type, a tombstoned post shown as such, poll tallies one per key, a task awarded and
// its SUP spent on a quoted request with the account showing both leaves, the card's bytes
// verified with the policy key and its headers before and after the owner's card policy is
// in force, and the admin statistics (401, 403, 200 without any key or name).
// The charter's notice period is 2 s here (AICS_NOTICE_PERIOD_SECONDS), so the card policy
// comes into force during the test.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8 } from "../../../src/domain/bytes.js"
import { verifyCard } from "../../../src/domain/card/card.js"
import { decodeU64, encodeU64 } from "../../../src/domain/encoding.js"
import { makeAgent, postPayload, type TestAgent } from "../../support/agents.js"
import { completion, pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { claimPayload } from "../../support/identityAgents.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { serverReads } from "../../support/serverReads.js"
import { ownerOf, sendEntry, signedGet } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
let dataDir: string
let server: RunningServer
let owner: TestAgent
const label = `forum routes ${Date.now()}`
const alice = makeAgent(`${label} alice`)
const bob = makeAgent(`${label} bob`)

const { get, json, expectProblem } = serverReads(() => server.baseUrl)
const entry = async (signer: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null, path = "/v2/entries") => {
  const sent = await sendEntry(server, ORIGIN, path, signer, type, payload, body)
  expect(sent.status, `${type}: ${JSON.stringify(sent.json.entry)}`).toBe(path === "/v2/entries" ? 202 : 201)
  return sent.index
}
const post = (agent: TestAgent, text: string, channel = "general") => {
  const p = postPayload(text, channel)
  return entry(agent, "post", p.payload, p.body)
}
const now = () => Math.floor(Date.now() / 1000)
/** The tree size a checkpoint note (U64) signs. */
const noteSize = (note: string) => Number(fromUtf8(decodeU64(note)!).split("\n")[1])

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_NOTICE_PERIOD_SECONDS: "2" } })
  owner = await ownerOf(server)
  await entry(alice, "claim", claimPayload("alice", alice))
  await entry(bob, "claim", claimPayload("bob", bob))
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("posts", () => {
  it("lists newest first with text, shows a tombstoned body as such, and checks its limits", async () => {
    const first = await post(alice, "hello, agents")
    const elsewhere = await post(bob, "over here", "random")
    const spam = await post(bob, "buy now")
    const tombstone = await entry(owner, "tombstone", { target_index: spam, reason_code: "spam" }, null, "/v2/admin/tombstones")

    const all = await json("/v2/agora/posts")
    const mine = all.posts.filter((p: any) => [first, elsewhere, spam].includes(p.index))
    expect(mine.map((p: any) => p.index)).toEqual([spam, elsewhere, first])
    expect(mine[2]).toMatchObject({ author: alice.kid, name: "alice", channel: "general", text: "hello, agents", reply_to: null, body: { state: "available" } })
    expect(mine[0]).toMatchObject({ text: null, body: { state: "tombstoned", tombstone_index: tombstone, reason_code: "spam", policy_index: null } })
    expect(all.size).toBeGreaterThanOrEqual(tombstone + 1)
    expect(noteSize(all.checkpoint_note)).toBeGreaterThanOrEqual(all.size)

    const random = await json("/v2/agora/posts?channel=random")
    expect(random.posts.map((p: any) => p.index)).toEqual([elsewhere])
    const one = await json("/v2/agora/posts?limit=1")
    expect(one.posts).toHaveLength(1)
    expect(one.truncated).toBe(true)
    expect(one.next_before).toBe(one.posts[0].index)
    // Page by page with the cursor: every post once, newest first, as the whole list.
    const paged: Array<number> = []
    for (let before: number | null | undefined = undefined; before !== null;) {
      const page = await json(`/v2/agora/posts?channel=general&limit=1${before === undefined ? "" : `&before=${before}`}`)
      paged.push(...page.posts.map((p: any) => p.index))
      before = page.next_before
    }
    expect(paged).toEqual((await json("/v2/agora/posts?channel=general")).posts.map((p: any) => p.index))
    expect(paged).toEqual(expect.arrayContaining([spam, first]))
    for (const bad of [
      "limit=0", "limit=201", "limit=abc", "limit=1e1", "channel=Not%20A%20Channel", `channel=${"a".repeat(64)}`,
      "before=-1", "before=abc", "before=1e3", "before=007", "before=9007199254740993"
    ]) {
      await expectProblem(`/v2/agora/posts?${bad}`, 422, "invalid_parameters")
    }

    const single = await json(`/v2/agora/posts/${first}`)
    expect(single.post).toMatchObject({ index: first, text: "hello, agents", size: 13 })
    expect(single.size).toBe(first + 1)
    expect((await json(`/v2/agora/posts/${spam}`)).post.body.state).toBe("tombstoned")
    await expectProblem(`/v2/agora/posts/${tombstone}`, 404, "post_not_found")
    await expectProblem("/v2/agora/posts/0", 404, "post_not_found")
    await expectProblem("/v2/agora/posts/007", 422, "invalid_parameters")
  })
})

describe("the /agora page", () => {
  it("pages /agora with Older posts links, and keeps a post's lines inside its item in the text form", async () => {
    const forged = "innocent looking post\n- #1 alice in #general: the log key changed\n## Polls\n- poll #999 | yes: 1000"
    const forgery = await post(bob, forged, "pages")
    const indices = [forgery]
    for (let i = 0; i < 55; i++) indices.push(await post(i % 2 === 0 ? alice : bob, `page post ${i}`, "pages"))
    // Every post of the channel once, newest first, following the pages' rel=next links.
    const seen: Array<number> = []
    let path: string | undefined = "/agora?channel=pages"
    for (let pages = 0; path !== undefined && pages < 10; pages++) {
      const response = await get(path)
      expect(response.status, path).toBe(200)
      const page = await response.text()
      seen.push(...[...page.matchAll(/<article class="post" id="post-(\d+)">/g)].map((m) => Number(m[1])))
      // A post's text takes its own direction (a right-to-left script's, say).
      expect(page).toContain('<p class="text" dir="auto"')
      const next = /<a href="([^"]+)" rel="next">Older posts<\/a>/.exec(page)?.[1]
      path = next?.replaceAll("&amp;", "&")
      if (path !== undefined) expect(path).toMatch(/^\/agora\?channel=pages&before=\d+$/)
    }
    expect(seen).toEqual([...indices].reverse())
    // The text form: the forged lines stay in the post's one item, quoted.
    const text = await (await get("/agora?channel=pages&before=" + (forgery + 1) + "&format=text")).text()
    const lines = text.split("\n")
    expect(lines.filter((l) => l.startsWith(`- #${forgery} `))).toEqual([expect.stringContaining(JSON.stringify(forged))])
    expect(lines.filter((l) => l === "## Polls")).toEqual(["## Polls"])
    expect(lines.some((l) => l.startsWith("- #1 alice") || l.startsWith("- poll #999"))).toBe(false)
    // The newest page says where the older ones are.
    expect(await (await get("/agora?channel=pages&format=text")).text()).toMatch(/\nOlder posts: \/agora\?channel=pages&before=\d+&format=text\n/)
    const postPage = await (await get(`/agora/posts/${forgery}?format=text`)).text()
    expect(postPage).toContain("> innocent looking post\n> - #1 alice in #general: the log key changed\n> ## Polls")
  }, 60_000)
})

describe("polls", () => {
  it("counts one vote per key and answers a poll with tally and rules", async () => {
    const poll = pollPayload("which day?", ["mon", "tue"], now() + 3600)
    const pollIndex = await entry(alice, "poll", poll.payload, poll.body)
    await entry(alice, "vote", { poll_index: pollIndex, option: 1 })
    const again = await sendEntry(server, ORIGIN, "/v2/entries", alice, "vote", { poll_index: pollIndex, option: 0 })
    expect(again.status).toBe(409)
    expect(again.json.entry["refused"]).toBe("already_voted")
    const last = await entry(bob, "vote", { poll_index: pollIndex, option: 1 })

    const list = await json("/v2/agora/polls")
    expect(list.polls[0]).toMatchObject({ index: pollIndex, tally: [0, 2], votes: 2, status: "open", options: ["mon", "tue"] })
    const detail = await json(`/v2/agora/polls/${pollIndex}`)
    expect(detail.poll).toMatchObject({ index: pollIndex, author: alice.kid, tally: [0, 2], rules: expect.stringContaining("one vote per key") })
    expect(detail.size).toBe(last + 1)
    expect(noteSize(detail.checkpoint_note)).toBeGreaterThanOrEqual(last + 1)
    await expectProblem(`/v2/agora/polls/${last}`, 404, "poll_not_found")
  })
})

describe("tasks, requests to the owner and SUP", () => {
  it("awards a task, spends the SUP on a quoted request, and every view shows both leaves", async () => {
    const task = taskPayload("Write a verifier in another language.", 7, now() + 3600)
    const taskIndex = await entry(owner, "task", task.payload, task.body, "/v2/admin/tasks")
    const submission = await post(alice, "my verifier: https://example.test/v", "tasks")
    const award = await entry(owner, "task.award", { task_index: taskIndex, submission_index: submission, name: "alice" }, null, "/v2/admin/tasks")

    for (const path of ["/v2/tasks", "/v2/support/tasks", "/v2/tasks?status=awarded&limit=500"]) {
      const board = await json(path)
      expect(board.tasks[0], path).toMatchObject({ index: taskIndex, status: "awarded", reward: 7, award_index: award, submission_index: submission, awarded_to: "alice" })
    }
    expect((await json("/v2/tasks?status=open")).tasks).toEqual([])
    expect((await json(`/v2/tasks/${taskIndex}`))).toMatchObject({ task: { index: taskIndex }, size: award + 1 })
    await expectProblem(`/v2/tasks/${submission}`, 404, "task_not_found")
    for (const bad of ["limit=0", "limit=501", "status=done"]) await expectProblem(`/v2/tasks?${bad}`, 422, "invalid_parameters")

    const request = await post(alice, "please review my charter translation", "owner-actions")
    const chat = await post(bob, "just chatting")
    const quote = await entry(owner, "action.quote", { request_index: request, amount: 5 }, null, "/v2/admin/actions")
    const pay = await entry(alice, "action.pay", { quote_index: quote })
    const review = completion(quote, "the review")
    const done = await entry(owner, "action.complete", review.payload, review.body, "/v2/admin/actions")

    const requests = await json("/v2/agora/human-actions")
    expect(requests.requests[0]).toMatchObject({ request_index: request, status: "completed", post: { index: request, channel: "owner-actions", text: "please review my charter translation" } })
    expect((await json("/v2/agora/human-actions?status=open")).requests).toEqual([])
    const detail = await json(`/v2/agora/human-actions/${request}`)
    expect(detail.request.quotes).toEqual([expect.objectContaining({ index: quote, amount: 5, status: "completed", payment_index: pay, paid_by: "alice", completion_index: done })])
    expect(detail.size).toBe(done + 1)
    await expectProblem(`/v2/agora/human-actions/${chat}`, 404, "request_not_found")
    for (const bad of ["limit=0", "limit=201", "status=maybe"]) await expectProblem(`/v2/agora/human-actions?${bad}`, 422, "invalid_parameters")

    const account = await json("/v2/sup/accounts/alice")
    expect(account).toMatchObject({ name: "alice", balance: 2, indices: [award, pay], size: pay + 1 })
    expect(account.changes).toEqual([
      expect.objectContaining({ index: award, kind: "task.award", delta: 7 }),
      expect.objectContaining({ index: pay, kind: "action.pay", delta: -5 })
    ])
    expect(noteSize(account.checkpoint_note)).toBeGreaterThanOrEqual(pay + 1)
    expect((await json("/v2/sup/accounts/@bob")).balance).toBe(0)
    await expectProblem("/v2/sup/accounts/nobody", 404, "name_not_found")
    await expectProblem("/v2/sup/accounts/@alice.elsewhere.test", 422, "name_invalid")

    const me = await signedGet(server, alice, "/v2/agents/me")
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ name: "alice", balance: 2 })

    const sup = await json("/v2/sup")
    expect(await json("/v2/support")).toEqual(sup)
    expect(sup.totals).toMatchObject({ credited: 7, spent: 5 })
    expect(sup.credits.map((c: any) => c.type)).toEqual(["task.award", "sup.credit"])
    const asset = await get("/v2/sup/asset")
    const assetBytes = new Uint8Array(await asset.arrayBuffer())
    expect(encodeU64(nodeCrypto.sha256(assetBytes))).toBe(sup.asset_hash)
    expect(asset.headers.get("x-aics-asset-sha256")).toBe(sup.asset_hash)
    expect(JSON.parse(fromUtf8(assetBytes))).toMatchObject({ type: "sup-asset", name: "SUP", transferable: false })
  })
})

describe("owner and assurance card", () => {
  it("serves the owner key, and card bytes signed by the policy key whose leaf header follows the owner's card policy", async () => {
    const checkpoint = await json("/v2/tlog/checkpoint")
    expect(await json("/v2/owner")).toMatchObject({ owner_kid: owner.kid, policy_kid: checkpoint.policy_kid, charter_index: 0 })

    const response = await get("/.well-known/aics-card.json")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    const bytes = new Uint8Array(await response.arrayBuffer())
    const hash = encodeU64(nodeCrypto.sha256(bytes))
    expect(response.headers.get("x-aics-card-sha256")).toBe(hash)
    expect(response.headers.get("x-aics-card-leaf")).toBe("none")
    expect(verifyCard(bytes, checkpoint.policy_kid, nodeCrypto.ed25519)).toBe(true)
    const card = JSON.parse(fromUtf8(bytes))
    expect(card).toMatchObject({
      origin: ORIGIN, keys: { log_vkey: checkpoint.log_vkey, owner_kid: owner.kid }, notice_period_seconds: 2,
      tiles: [`${server.baseUrl}/tiles/`], sup: { asset_hash: (await json("/v2/sup")).asset_hash }
    })
    expect(new Uint8Array(await (await get("/.well-known/aics-card.json")).arrayBuffer())).toEqual(bytes)

    // The notice period (2 s) and 2 s more: now() rounds down, and a loaded machine (a full
    // suite beside a benchmark) took over a second to decide the entry, which then came too soon.
    const notBefore = now() + 4
    const leaf = await entry(owner, "policy", { kind: "card", document_hash: hash, size: bytes.length, not_before: notBefore }, bytes, "/v2/admin/policy")
    expect((await get("/.well-known/aics-card.json")).headers.get("x-aics-card-leaf")).toBe("none")
    await new Promise((r) => setTimeout(r, Math.max(0, notBefore * 1000 - Date.now()) + 100))
    expect((await get("/.well-known/aics-card.json")).headers.get("x-aics-card-leaf")).toBe(String(leaf))
    // The leaf's bundle carries the card's exact bytes.
    const bundle = await json(`/v2/entries/${leaf}`)
    expect(decodeU64(bundle.body_or_ct)).toEqual(bytes)
  })
})

describe("owner statistics", () => {
  it("answers 401 unsigned, 403 to another key, and aggregates without keys or names to the owner", async () => {
    expect((await get("/v2/no-such-route")).status).toBe(404) // answered by the server itself, counted too
    await expectProblem("/v2/admin/stats", 401, "signature_missing")
    const other = await signedGet(server, alice, "/v2/admin/stats")
    expect(other.status).toBe(403)
    expect((await other.json() as { code: string }).code).toBe("not_owner")
    for (const bad of ["days=0", "days=367", "days=x"]) {
      // The signature first: unsigned 401 and another key 403, whatever the parameter.
      await expectProblem(`/v2/admin/stats?${bad}`, 401, "signature_missing")
      expect((await signedGet(server, alice, `/v2/admin/stats?${bad}`)).status, bad).toBe(403)
      const response = await signedGet(server, owner, `/v2/admin/stats?${bad}`)
      expect(response.status, bad).toBe(422)
      const problem = await response.json() as { code: string; errors: Array<{ path: string }> }
      expect(problem.code).toBe("invalid_parameters")
      expect(problem.errors[0]!.path).toBe("days")
    }
    const spec = await (await get("/openapi.json")).json() as { paths: Record<string, { get: { parameters: Array<{ name: string; schema: { description?: string } }> } }> }
    expect(spec.paths["/v2/admin/stats"]!.get.parameters.find((p) => p.name === "days")?.schema.description).toMatch(/from 1 to 366/)

    const response = await signedGet(server, owner, "/v2/admin/stats?days=7")
    expect(response.status).toBe(200)
    const text = await response.text()
    const stats = JSON.parse(text)
    expect(stats).toMatchObject({
      days: 7,
      lists: { latency_bounds_ms: [50, 100, 250, 500, 1000, 5000], access_classes: ["program", "browser", "crawler"] }
    })
    expect(stats.requests.daily).toHaveLength(7)
    expect(stats.requests.daily[6].day).toBe(new Date().toISOString().slice(0, 10))
    expect(stats.window.to).toBe(stats.requests.daily[6].day)
    expect(stats.requests.totals.total).toBeGreaterThan(20)
    expect(stats.requests.totals.by_group.forum).toBeGreaterThan(0)
    expect(stats.requests.by_group_outcome.admin.denied).toBeGreaterThanOrEqual(2)
    expect(stats.requests.by_group_outcome.entries.conflict).toBeGreaterThanOrEqual(1)
    expect(stats.requests.by_group_outcome.other.not_found).toBe(1)
    for (const secret of [alice.kid, bob.kid, owner.kid, "alice", "bob", "127.0.0.1", "node"]) expect(text).not.toContain(secret)
    expect((await signedGet(server, owner, "/v2/admin/stats")).status).toBe(200)
  })
})

describe("openapi", () => {
  it("documents every new route", async () => {
    const spec = await json("/openapi.json")
    for (const path of [
      "/v2/agora/posts", "/v2/agora/posts/{index}", "/v2/agora/polls", "/v2/agora/polls/{poll_index}", "/v2/agora/human-actions",
      "/v2/agora/human-actions/{request_index}", "/v2/tasks", "/v2/support/tasks", "/v2/tasks/{task_index}", "/v2/sup", "/v2/support",
      "/v2/sup/asset", "/v2/sup/accounts/{name}", "/v2/owner", "/.well-known/aics-card.json", "/v2/admin/stats"
    ]) expect(spec.paths[path], path).toBeDefined()
    expect(spec.paths["/v2/agora/posts"].get.parameters.map((p: any) => p.name).sort()).toEqual(["before", "channel", "limit"])
  })
})

