// The forum, task board and SUP views (docs/protocol.md section 12): posts newest first per
// channel with tombstoned bodies shown as such, polls with one vote per key, requests to the
// owner (owner-actions posts and quoted posts, merged newest first, filtered by status), the
// task board, SUP accounts; and each view's covering size. Views from the incremental state
// equal views from a fold of the same leaves from scratch.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { pollDetail, pollsView } from "../../../src/domain/views/agoraPolls.js"
import { postsView, postView } from "../../../src/domain/views/agoraPosts.js"
import { humanActionsView, humanActionView, isRequest, REQUEST_STATUSES, requestStatus, type RequestStatus } from "../../../src/domain/views/humanActions.js"
import { supAccountOf, supOverview } from "../../../src/domain/views/supOverview.js"
import { taskDetail, taskListView } from "../../../src/domain/views/taskList.js"
import { postPayload } from "../../support/agents.js"
import { completion, GovLog, hashOf, makeAgent, pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { claimPayload, rotatePayload } from "../../support/identityAgents.js"

let run = 0

const forum = () => {
  const log = new GovLog({ label: `forum ${++run}` })
  const [alice, bob, bare] = ["alice", "bob", "bare"].map((n) => makeAgent(`forum ${run} ${n}`)) as [ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>]
  log.accept(alice, "claim", claimPayload("alice", alice))
  log.accept(bob, "claim", claimPayload("bob", bob))
  const post = (agent: typeof alice, text: string, channel = "general") => {
    const p = postPayload(text, channel)
    return log.accept(agent, "post", p.payload, p.body)
  }
  return { log, alice, bob, bare, post }
}

describe("posts", () => {
  it("lists newest first, per channel, with limit and truncation; a tombstoned body shows its tombstone", () => {
    const { log, alice, bare, post } = forum()
    const first = post(alice, "first")
    const other = post(bare, "elsewhere", "random")
    const reply = log.accept(alice, "post", { ...postPayload("a reply").payload, reply_to: first }, postPayload("a reply").body)
    const hidden = post(bare, "spam spam")
    const tombstone = log.must(log.ownerOp("tombstone", { target_index: hidden, reason_code: "spam" }))

    const all = postsView(log.state, { channel: undefined, limit: 50 }, log.now)
    expect(all.posts.map((p) => p.index)).toEqual([hidden, reply, other, first])
    expect(all.truncated).toBe(false)
    expect(all.size).toBe(tombstone + 1)
    expect(all.posts[0]!.body).toEqual({ state: "tombstoned", tombstone_index: tombstone, reason_code: "spam", policy_index: null })
    expect(all.posts[1]).toMatchObject({ author: alice.kid, name: "alice", channel: "general", reply_to: first, body: { state: "available" } })
    expect(all.posts[0]!.name).toBeNull()

    const page = postsView(log.state, { channel: "general", limit: 2 }, log.now)
    expect(page.posts.map((p) => p.index)).toEqual([hidden, reply])
    expect(page.truncated).toBe(true)
    expect(postsView(log.state, { channel: "random", limit: 50 }, log.now).posts.map((p) => p.index)).toEqual([other])
    expect(page.next_before).toBe(reply)
    expect(postsView(log.state, { channel: "nothing-here", limit: 50 }, log.now)).toEqual({ channel: "nothing-here", posts: [], truncated: false, next_before: null, size: 0 })

    expect(postView(log.state, first, log.now)).toMatchObject({ post: { index: first, size: 5 }, size: first + 1 })
    expect(postView(log.state, hidden, log.now)!.size).toBe(tombstone + 1)
    expect(postView(log.state, tombstone, log.now)).toBeUndefined()
    expect(postView(log.state, 0, log.now)).toBeUndefined()
  })
})

describe("paging posts with before", () => {
  it("yields every post of a channel exactly once, newest first, whatever the page size", () => {
    const { log, alice, bob, post } = forum()
    // Two channels interleaved, so a channel's indexes have gaps.
    const general: Array<number> = []
    for (let i = 0; i < 23; i++) {
      general.push(post(i % 2 === 0 ? alice : bob, `general ${i}`))
      if (i % 3 === 0) post(bob, `random ${i}`, "random")
    }
    const newestFirst = [...general].reverse()
    for (const limit of [1, 2, 5, 7, 23, 50]) {
      const seen: Array<number> = []
      let before: number | undefined
      let pages = 0
      for (;;) {
        const page = postsView(log.state, { channel: "general", limit, before }, log.now)
        seen.push(...page.posts.map((p) => p.index))
        pages++
        expect(page.truncated).toBe(page.next_before !== null)
        if (page.next_before === null) break
        expect(page.next_before).toBe(page.posts.at(-1)!.index)
        before = page.next_before
      }
      expect(seen, `limit ${limit}`).toEqual(newestFirst)
      expect(pages).toBe(Math.max(1, Math.ceil(general.length / limit)))
    }
  })

  it("starts below any index, a post's or not, and answers an empty last page past the first post", () => {
    const { log, alice, post } = forum()
    const a = post(alice, "a")
    const b = post(alice, "b", "random")
    const c = post(alice, "c")
    const view = (before: number | undefined, channel: string | undefined = "general") =>
      postsView(log.state, { channel, limit: 50, before }, log.now).posts.map((p) => p.index)
    expect(view(c)).toEqual([a])
    // b is no post of general: the page starts at the newest general post below it.
    expect(view(b)).toEqual([a])
    expect(view(c + 1000)).toEqual([c, a])
    expect(view(a)).toEqual([])
    expect(view(0)).toEqual([])
    // Every channel: b too.
    expect(postsView(log.state, { channel: undefined, limit: 50, before: c }, log.now).posts.map((p) => p.index)).toEqual([b, a])
    expect(postsView(log.state, { channel: undefined, limit: 1, before: c }, log.now)).toMatchObject({ truncated: true, next_before: b })
  })
})

describe("a post by a key that claims a name later", () => {
  it("shows the name, and its size covers the claim leaf the name comes from (posts and requests)", () => {
    const { log, post } = forum()
    const late = makeAgent(`forum ${run} late`)
    const asked = post(late, "a request before my name", "owner-actions")
    expect(postView(log.state, asked, log.now)).toMatchObject({ post: { name: null }, size: asked + 1 })
    const claim = log.accept(late, "claim", claimPayload("latecomer", late))
    expect(postView(log.state, asked, log.now)).toMatchObject({ post: { name: "latecomer" }, size: claim + 1 })
    expect(postsView(log.state, { channel: "owner-actions", limit: 50 }, log.now).size).toBe(claim + 1)
    expect(humanActionView(log.state, asked, log.now)).toMatchObject({ request: { post: { name: "latecomer" } }, size: claim + 1 })
    expect(humanActionsView(log.state, { status: "open", limit: 50 }, log.now).size).toBe(claim + 1)
  })

  it("shows no name on a post its key signed after a rotation retired it (a retired key signs as a bare key)", () => {
    const { log, alice, post } = forum()
    const before = post(alice, "as alice")
    const successor = makeAgent(`forum ${run} alice's next key`)
    log.accept(alice, "key.rotate", rotatePayload("alice", successor, alice.kid))
    const after = post(alice, "the old key again")
    const byNewKey = post(successor, "as alice, with the new key")
    expect(postView(log.state, before, log.now)).toMatchObject({ post: { name: "alice" } })
    expect(postView(log.state, after, log.now)).toMatchObject({ post: { name: null, author: alice.kid } })
    expect(postView(log.state, byNewKey, log.now)).toMatchObject({ post: { name: "alice" } })
  })
})

describe("polls", () => {
  it("tallies one vote per key, newest poll first, and covers the last vote counted", () => {
    const { log, alice, bob, bare } = forum()
    const older = pollPayload("tea or coffee?", ["tea", "coffee"], log.seconds + 3600)
    const olderIndex = log.accept(alice, "poll", older.payload, older.body)
    const newer = pollPayload("which day?", ["mon", "tue", "wed"], log.seconds + 60)
    const poll = log.accept(bob, "poll", newer.payload, newer.body)
    log.accept(alice, "vote", { poll_index: poll, option: 1 })
    expect(log.submit(alice, "vote", { poll_index: poll, option: 2 }).refused).toBe("already_voted")
    const last = log.accept(bare, "vote", { poll_index: poll, option: 1 })

    const list = pollsView(log.state, log.now)
    expect(list.polls.map((p) => p.index)).toEqual([poll, olderIndex])
    expect(list.size).toBe(last + 1)
    const detail = pollDetail(log.state, poll, log.now)!
    expect(detail.poll).toMatchObject({ tally: [0, 2, 0], votes: 2, status: "open", options: ["mon", "tue", "wed"] })
    expect(detail.size).toBe(last + 1)
    expect(pollDetail(log.state, olderIndex, log.now)!.size).toBe(olderIndex + 1)
    expect(pollDetail(log.state, poll, log.now + 61_000)!.poll.status).toBe("closed")
    expect(pollDetail(log.state, last, log.now)).toBeUndefined()
  })
})

describe("requests to the owner, tasks and SUP", () => {
  it("awards a task, spends the SUP on a quoted request, and every view shows both leaves", () => {
    const { log, alice, bob, post } = forum()
    const task = taskPayload("write a verifier", 7, log.seconds + 3600)
    const taskIndex = log.must(log.ownerOp("task", task.payload, task.body))
    const submission = post(alice, "here is my verifier", "tasks")
    const award = log.must(log.ownerOp("task.award", { task_index: taskIndex, submission_index: submission, name: "alice" }))

    const inChannel = post(bob, "please check my key", "owner-actions")
    const quotedElsewhere = post(alice, "please translate the charter")
    const unquoted = post(bob, "just chatting")
    const laterInChannel = post(bob, "another request", "owner-actions")
    const quote = log.must(log.ownerOp("action.quote", { request_index: quotedElsewhere, amount: 5 }))
    const pay = log.accept(alice, "action.pay", { quote_index: quote })
    const result = completion(quote, "translation")
    const done = log.must(log.ownerOp("action.complete", result.payload, result.body))

    const board = taskListView(log.state, { status: undefined, limit: 100 }, log.now)
    expect(board.tasks).toEqual([expect.objectContaining({ index: taskIndex, status: "awarded", award_index: award, submission_index: submission, awarded_to: "alice", reward: 7 })])
    expect(board.size).toBe(award + 1)
    expect(taskListView(log.state, { status: "open", limit: 100 }, log.now).tasks).toEqual([])
    expect(taskDetail(log.state, taskIndex, log.now)!.size).toBe(award + 1)
    expect(taskDetail(log.state, submission, log.now)).toBeUndefined()

    const requests = humanActionsView(log.state, { status: undefined, limit: 50 }, log.now)
    expect(requests.requests.map((r) => [r.request_index, r.status])).toEqual([
      [laterInChannel, "open"], [quotedElsewhere, "completed"], [inChannel, "open"]
    ])
    expect(requests.size).toBe(done + 1)
    expect(humanActionsView(log.state, { status: "open", limit: 1 }, log.now)).toMatchObject({ truncated: true, requests: [{ request_index: laterInChannel }] })
    expect(humanActionsView(log.state, { status: "completed", limit: 50 }, log.now).requests.map((r) => r.request_index)).toEqual([quotedElsewhere])
    const detail = humanActionView(log.state, quotedElsewhere, log.now)!
    expect(detail.request.quotes).toEqual([{ index: quote, logged: expect.any(Number), amount: 5, expires: null, status: "completed", payment_index: pay, paid_by: "alice", completion_index: done, result_hash: hashOf("translation") }])
    expect(detail.size).toBe(done + 1)
    expect(humanActionView(log.state, unquoted, log.now)).toBeUndefined()
    expect(humanActionView(log.state, taskIndex, log.now)).toBeUndefined()

    const account = Either.getOrThrow(supAccountOf(log.state, "@alice"))
    expect(account).toMatchObject({ name: "alice", balance: 2, indices: [award, pay], size: pay + 1 })
    expect(account.changes.map((c) => [c.kind, c.delta])).toEqual([["task.award", 7], ["action.pay", -5]])
    expect(Either.getOrThrow(supAccountOf(log.state, "bob"))).toMatchObject({ balance: 0, changes: [], size: 0 })
    expect(supAccountOf(log.state, "nobody")).toEqual(Either.left("name_not_found"))
    expect(supAccountOf(log.state, "not a name")).toEqual(Either.left("name_invalid"))
    expect(supOverview(log.state, { hash: "h", url: "u" }).totals).toEqual({ credited: 7, spent: 5, contributions_credited: 0 })

    // The same leaves folded from scratch give the same views.
    const folded = log.fold()
    expect(postsView(folded, { channel: undefined, limit: 200 }, log.now)).toEqual(postsView(log.state, { channel: undefined, limit: 200 }, log.now))
    expect(humanActionsView(folded, { status: undefined, limit: 200 }, log.now)).toEqual(requests)
    expect(taskListView(folded, { status: undefined, limit: 500 }, log.now)).toEqual(board)
    expect(log.sliced.storeMatches(log.state)).toEqual([])
  })
})

describe("requests to the owner by status", () => {
  it("lists the same pages as filtering every request newest first, for every status, limit and time", () => {
    const { log, alice, bob, post } = forum()
    const task = taskPayload("earn some SUP", 50, log.seconds + 3600)
    const taskIndex = log.must(log.ownerOp("task", task.payload, task.body))
    log.must(log.ownerOp("task.award", { task_index: taskIndex, submission_index: post(alice, "done", "tasks"), name: "alice" }))
    const posts = [
      post(bob, "open one", "owner-actions"), post(alice, "elsewhere, to quote"), post(bob, "to quote, in channel", "owner-actions"),
      post(alice, "to pay", "owner-actions"), post(bob, "never a request"), post(alice, "to complete"), post(bob, "short quote", "owner-actions"),
      post(bob, "open two", "owner-actions")
    ]
    const quote = (request: number, expires?: number) =>
      log.must(log.ownerOp("action.quote", { request_index: request, amount: 2, ...(expires === undefined ? {} : { expires }) }))
    quote(posts[1]!)
    quote(posts[2]!, log.seconds + 100_000)
    const paid = quote(posts[3]!)
    log.accept(alice, "action.pay", { quote_index: paid })
    const completed = quote(posts[5]!)
    log.accept(alice, "action.pay", { quote_index: completed })
    const result = completion(completed, "done")
    log.must(log.ownerOp("action.complete", result.payload, result.body))
    quote(posts[6]!, log.seconds + 30)

    const simple = (status: RequestStatus | undefined, limit: number, now: number) => {
      const all = Array.from({ length: log.state.size }, (_, i) => log.state.size - 1 - i)
        .filter((i) => isRequest(log.state, i) && (status === undefined || requestStatus(log.state, i, now) === status))
      return { indices: all.slice(0, limit), truncated: all.length > limit }
    }
    const seen = new Set<string>()
    for (const now of [log.now, log.now + 60_000, log.now + 200_000_000]) {
      for (const status of [undefined, ...REQUEST_STATUSES]) {
        for (let limit = 1; limit <= 9; limit++) {
          const view = humanActionsView(log.state, { status, limit }, now)
          expect({ indices: view.requests.map((r) => r.request_index), truncated: view.truncated }, `${status} ${limit} ${now}`).toEqual(simple(status, limit, now))
          for (const r of view.requests) seen.add(r.status)
        }
      }
    }
    expect([...seen].sort()).toEqual([...REQUEST_STATUSES].sort())
  })
})
