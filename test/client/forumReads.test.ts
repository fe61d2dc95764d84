// `aics posts`, `aics poll show` and the `aics mcp` read_posts and poll_show tools through a
// dishonest proxy in front of a real service (the auditor's walk): the proxy changes a post's
// text, a poll's options, its tally, a view's checkpoint note. What a cheap check can catch is
// an error: a text that does not hash to its post's body_hash, a poll view that is not its
// leaf, a checkpoint note the log key did not sign, a tally that does not add up. What no
// cheap check shows (the tally is the service's count, the post's leaf is not read) is said as
// the service's word, in each output, with what would check it.

import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ok, runAics, startCliWorld, type CliWorld } from "../support/aicsCli.js"
import { callTool, connectAicsMcp } from "../support/mcpClient.js"
import { alterJson, startLyingProxy } from "../support/lyingProxy.js"

let world: CliWorld
let proxy: Awaited<ReturnType<typeof startLyingProxy>> | undefined
let proxyUrl = ""

/** What the proxy alters: given the request path and the upstream JSON, the JSON to answer instead (or undefined: as is). */
type Alter = (path: string, json: any) => unknown
let alter: Alter | undefined

const facts = { endorsement: -1, other: -1, poll: -1 }

const indexOf = (run: { out: string }): number => {
  const index = /as entry (\d+)/.exec(run.out)?.[1] ?? /poll (\d+)/.exec(run.out)?.[1]
  expect(index, run.out).toBeDefined()
  return Number(index)
}

beforeAll(async () => {
  world = await startCliWorld("aics-forum-reads-")
  for (const who of ["alice", "bob", "carol"]) {
    ok(await world.aics(["keygen", "--key", `${who}.json`]))
    ok(await world.aics(["claim", who, "--key", `${who}.json`]))
  }
  facts.endorsement = indexOf(ok(await world.aics(["post", "general", "I, alice, endorse bob", "--key", "alice.json"])))
  facts.other = indexOf(ok(await world.aics(["post", "general", "and bob thanks alice", "--key", "bob.json"])))
  facts.poll = indexOf(ok(await world.aics(["poll", "create", "general", "Ship it?", "yes", "no", "--closes", "+3600", "--key", "alice.json"])))
  ok(await world.aics(["vote", String(facts.poll), "0", "--key", "alice.json"]))
  ok(await world.aics(["vote", String(facts.poll), "0", "--key", "bob.json"]))
  ok(await world.aics(["vote", String(facts.poll), "1", "--key", "carol.json"]))

  proxy = await startLyingProxy(() => world.server.baseUrl, () => {
    const now = alter
    return now === undefined ? undefined : alterJson(() => true, (json, path) => now(path, json))
  })
  proxyUrl = proxy.url
}, 120_000)

afterAll(async () => {
  await proxy?.close()
  await world?.stop()
})

/** `aics <args>` through the proxy, with the log's verifier key given out of band. */
const aics = (args: ReadonlyArray<string>) => runAics([...args, "--server", proxyUrl, "--vkey", world.vkey], { cwd: world.agentsDir, timeoutMs: 60_000 })

/** The proxy changes the posts' page (GET /v2/agora/posts...) as `edit` does. */
const postsAs = (edit: (page: any) => void): Alter => (path, json) => {
  if (!path.startsWith("/v2/agora/posts")) return undefined
  edit(json)
  return json
}
/** The proxy changes the poll's view (GET /v2/agora/polls/<poll>) as `edit` does. */
const pollAs = (edit: (view: any) => void): Alter => (path, json) => {
  if (path !== `/v2/agora/polls/${facts.poll}`) return undefined
  edit(json)
  return json
}
const endorsement = (page: any) => page.posts.find((p: any) => p.index === facts.endorsement)
/** A checkpoint note whose signature no longer verifies: one character of the signature line changed. */
const forgedNote = (u64: string): string => {
  const text = Buffer.from(u64, "base64url").toString("utf8")
  const at = text.lastIndexOf(" ") + 5
  const forged = text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1)
  return Buffer.from(forged, "utf8").toString("base64url")
}

const CHECKED_POSTS = /^checked: each text hashes to its post's body_hash, and the view's checkpoint \(size \d+\) is signed by the log key$/m
const NOT_CHECKED_POSTS = "not checked: that each post's body_hash, author, name and channel are what its leaf says, and that the page leaves no post out: " +
  "the service's word (aics get <index> proves one post's leaf and its text; aics audit log compares every page with the log)"

describe("aics posts through a dishonest proxy", () => {
  it("checks each text against its body_hash and the view's checkpoint, and says what is the service's word", async () => {
    alter = undefined
    const run = ok(await aics(["posts", "general"]))
    expect(run.out).toMatch(new RegExp(`^#${facts.endorsement} alice in general at .*: I, alice, endorse bob$`, "m"))
    expect(run.out).toMatch(/^2 posts$/m)
    expect(run.out).toMatch(CHECKED_POSTS)
    expect(run.out).toContain(`${NOT_CHECKED_POSTS}\n`)
    const json = JSON.parse(ok(await aics(["posts", "general", "--json"])).out)
    expect(json.posts.map((p: any) => [p.index, p.text])).toEqual([[facts.other, "and bob thanks alice"], [facts.endorsement, "I, alice, endorse bob"]])
    expect(json.posts[0]).toMatchObject({ body_hash: expect.any(String), size: "and bob thanks alice".length })
    expect(json).toMatchObject({ checkpoint_size: expect.any(Number), checked: expect.stringMatching(/^checked: /), not_checked: NOT_CHECKED_POSTS })
  }, 60_000)

  it("is an error when a post's text is not the one its body_hash names", async () => {
    alter = postsAs((page) => void (endorsement(page).text = "I, alice, endorse mallory"))
    const run = await aics(["posts", "general"])
    expect(run.code).toBe(1)
    expect(run.out).toBe("")
    expect(run.err).toMatch(new RegExp(`^error \\(verification\\): post ${facts.endorsement}: the text the service sent does not hash to the body_hash it gives for the post \\(\\S+, 21 bytes\\)\\n$`))
    // A text of the same bytes' length but another hash, and one whose hash is gone.
    alter = postsAs((page) => void (endorsement(page).text = "I, alice, endorse bib"))
    expect((await aics(["posts"])).err).toContain(`error (verification): post ${facts.endorsement}: the text the service sent does not hash`)
    alter = postsAs((page) => void delete endorsement(page).body_hash)
    expect((await aics(["posts"])).err).toContain(`error (protocol): GET /v2/agora/posts: post ${facts.endorsement} lacks its body_hash (U64 of 32 bytes) or size`)
  }, 60_000)

  it("is an error when the view's checkpoint is not signed by the log key", async () => {
    alter = postsAs((page) => void (page.checkpoint_note = forgedNote(page.checkpoint_note)))
    const run = await aics(["posts", "general"])
    expect(run.code).toBe(1)
    expect(run.err).toMatch(/^error \(verification\): GET \/v2\/agora\/posts\?channel=general: the view's checkpoint /)
    alter = postsAs((page) => void delete page.checkpoint_note)
    expect((await aics(["posts"])).err).toBe("error (protocol): GET /v2/agora/posts: the view lacks its checkpoint_note (U64)\n")
  }, 60_000)
})

const NOT_CHECKED_POLL = "not checked: the tally and whether the poll is open are the service's count and clock; each vote is a leaf of the log, and aics audit log replays every leaf and compares every tally"

describe("aics poll show through a dishonest proxy", () => {
  it("checks the poll against its leaf, and says the tally is the service's count", async () => {
    alter = undefined
    const lines = ok(await aics(["poll", "show", String(facts.poll)])).out.split("\n")
    expect(lines[0]).toBe(`poll ${facts.poll} in general: Ship it?`)
    expect(lines.slice(1, 3)).toEqual(["  0. yes: 2 votes", "  1. no: 1 vote"])
    expect(lines[3]).toMatch(/^open, closes \S+Z$/)
    expect(lines[4]).toMatch(new RegExp(`^checked: the poll's leaf ${facts.poll} \\(its channel, author, options and closes, and the question by its hash\\) signed and included ` +
      "under the log-signed checkpoint of size \\d+, and the view's checkpoint \\(size \\d+\\) signed by the log key$"))
    expect(lines[5]).toBe(NOT_CHECKED_POLL)
    expect(JSON.parse(ok(await aics(["poll", "show", String(facts.poll), "--json"])).out)).toMatchObject({
      index: facts.poll, channel: "general", question: "Ship it?", options: ["yes", "no"], tally: [2, 1], votes: 3, status: "open", body_status: "available", not_checked: NOT_CHECKED_POLL
    })
  }, 60_000)

  it("shows a changed tally as the service's count, and refuses one that does not add up", async () => {
    // The auditor's lie: the count no leaf read here shows. It is shown, said to be the service's.
    alter = pollAs((view) => void (view.poll.tally = [0, 3]))
    const lines = ok(await aics(["poll", "show", String(facts.poll)])).out.split("\n")
    expect(lines.slice(1, 3)).toEqual(["  0. yes: 0 votes", "  1. no: 3 votes"])
    expect(lines[5]).toBe(NOT_CHECKED_POLL)
    alter = pollAs((view) => void (view.poll.tally = [0, 4]))
    expect((await aics(["poll", "show", String(facts.poll)])).err).toBe(`error (protocol): GET /v2/agora/polls/${facts.poll}: the tally [0,4] does not add up to the 3 votes the view counts\n`)
  }, 60_000)

  it("is an error when the view's options, channel or closing time are not the leaf's", async () => {
    const cases: Array<[string, Alter, string]> = [
      ["options swapped", pollAs((view) => void (view.poll.options = ["no", "yes"])), `the view's options ["no","yes"] is not the poll's leaf's ["yes","no"] (entry ${facts.poll})`],
      ["another channel", pollAs((view) => void (view.poll.channel = "elsewhere")), `the view's channel "elsewhere" is not the poll's leaf's "general" (entry ${facts.poll})`],
      ["a later close", pollAs((view) => void (view.poll.closes += 86_400)), "the view's closes"]
    ]
    for (const [what, edit, message] of cases) {
      alter = edit
      const run = await aics(["poll", "show", String(facts.poll)])
      expect(run.code, what).toBe(1)
      expect(run.out, what).toBe("")
      expect(run.err, what).toMatch(new RegExp(`^error \\(verification\\): GET /v2/agora/polls/${facts.poll}: `))
      expect(run.err, what).toContain(message)
    }
  }, 60_000)
})

describe("the aics mcp read_posts and poll_show tools through a dishonest proxy", () => {
  it("check what the CLI checks, and say what is the service's word", async () => {
    alter = undefined
    const mcp = await connectAicsMcp(join(world.agentsDir, "carol.json"), { server: proxyUrl, vkey: world.vkey }, "aics-forum-reads")
    try {
      const call = (name: string, args: Record<string, unknown>) => callTool(mcp, name, args)
      const posts = await call("read_posts", { channel: "general" })
      expect(posts.isError, posts.summary).toBe(false)
      expect(posts.summary).toMatch(/^2 posts of general, no older posts; checked: each text hashes to its post's body_hash, and the view's checkpoint \(size \d+\) is signed by the log key; not checked: /)
      expect(posts.summary).toContain("(the get_entry tool proves one post's leaf and its text; the audit_log tool compares every page with the log)")
      expect(posts.data.posts.map((p: any) => p.text)).toEqual(["and bob thanks alice", "I, alice, endorse bob"])
      expect(posts.data).toMatchObject({ checkpoint_size: expect.any(Number), checked: expect.stringMatching(/^checked: /), not_checked: expect.stringMatching(/^not checked: /) })

      const poll = await call("poll_show", { poll_index: facts.poll })
      expect(poll.isError, poll.summary).toBe(false)
      expect(poll.summary).toMatch(new RegExp(`^poll ${facts.poll} in general: Ship it\\? \\(yes: 2, no: 1; open, closes \\S+\\); checked: the poll's leaf ${facts.poll} `))
      expect(poll.data).toMatchObject({ question: "Ship it?", options: ["yes", "no"], tally: [2, 1], votes: 3 })
      expect(poll.data.not_checked).toBe("not checked: the tally and whether the poll is open are the service's count and clock; each vote is a leaf of the log, and the audit_log tool replays every leaf and compares every tally")

      alter = postsAs((page) => void (endorsement(page).text = "I, alice, endorse mallory"))
      const forged = await call("read_posts", { channel: "general" })
      expect(forged.isError).toBe(true)
      expect(forged.summary).toContain(`post ${facts.endorsement}: the text the service sent does not hash to the body_hash it gives for the post`)
      alter = pollAs((view) => void (view.poll.options = ["no", "yes"]))
      const swapped = await call("poll_show", { poll_index: facts.poll })
      expect(swapped.isError).toBe(true)
      expect(swapped.summary).toContain(`the view's options ["no","yes"] is not the poll's leaf's ["yes","no"]`)
      alter = pollAs((view) => void (view.poll.tally = [0, 3]))
      const recounted = await call("poll_show", { poll_index: facts.poll })
      expect(recounted.data.tally).toEqual([0, 3])
      expect(recounted.summary).toContain("not checked: the tally and whether the poll is open are the service's count")
    } finally {
      alter = undefined
      await mcp.close()
    }
  }, 90_000)
})

describe("aics audit log compares the forum's views with the replayed log", () => {
  const pagePath = (path: string) => path.startsWith("/v2/agora/posts?limit=")

  it("agrees with an honest service on every page of posts, the polls' list and every poll", async () => {
    alter = undefined
    const run = ok(await aics(["audit", "log"]))
    expect(run.out).toMatch(/^the views that agree with the log: \/v2\/governance\/freeze, \/v2\/governance\/policy, \/v2\/agora\/polls, \/agora\?format=json, \/v2\/directory\?limit=500, 1 page of posts, 1 poll, 1 page of a channel's posts, 0 directory searches, 3 name views, 4 pages of keys' views, 4 keys' grants$/m)
    const json = JSON.parse(ok(await aics(["audit", "log", "--json"])).out)
    expect(json.ok).toBe(true)
    expect(json.views.map((v: any) => [v.view, v.outcome])).toEqual(expect.arrayContaining([
      [expect.stringMatching(/^\/v2\/agora\/posts\?limit=200&before=\d+$/), "agrees"],
      [`/v2/agora/polls/${facts.poll}`, "agrees"]
    ]))
  }, 90_000)

  it("finds a post left out of a page, a post said hidden, and a tally no vote shows", async () => {
    const cases: Array<[string, Alter, RegExp]> = [
      ["a post left out", (path, json) => pagePath(path) ? { ...json, posts: json.posts.filter((p: any) => p.index !== facts.endorsement) } : undefined,
        /^DIFFERENT \/v2\/agora\/posts\?limit=200&before=\d+ \/posts\/\d+/m],
      ["a post said tombstoned", (path, json) => {
        if (!pagePath(path)) return undefined
        const post = endorsement(json)
        post.body = { state: "tombstoned", tombstone_index: 1, reason_code: "illegal", policy_index: null }
        post.text = null
        return json
      }, /^DIFFERENT \/v2\/agora\/posts\?limit=200&before=\d+ \/posts\/\d+\/body\/state: the log implies "available", the service says "tombstoned"$/m],
      ["a recount", pollAs((view) => void (view.poll.tally = [0, 3])), new RegExp(`^DIFFERENT /v2/agora/polls/${facts.poll} /poll/tally/0: the log implies 2, the service says 0$`, "m")],
      ["a recount in the list", (path, json) => path === "/v2/agora/polls" ? { ...json, polls: json.polls.map((p: any) => ({ ...p, votes: 4 })) } : undefined,
        /^DIFFERENT \/v2\/agora\/polls \/polls\/0\/votes: the log implies 3, the service says 4$/m]
    ]
    for (const [what, edit, line] of cases) {
      alter = edit
      const run = await aics(["audit", "log"])
      expect(run.code, what).toBe(1)
      expect(run.out, what).toMatch(line)
      expect(run.err, what).toContain("1 views differing")
    }
    // A text served for a post is checked against the post's body_hash before it is left out of the comparison.
    alter = postsAs((page) => void (endorsement(page).text = "I, alice, endorse mallory"))
    const forged = await aics(["audit", "log"])
    expect(forged.code).toBe(1)
    expect(forged.err).toContain(`error (verification): post ${facts.endorsement}: the text the service sent does not hash to the body_hash it gives for the post`)
    alter = undefined
  }, 180_000)
})
