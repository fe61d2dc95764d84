// The forum's views read from the projection store (src/app/forumViews.ts, agoraPageView.ts,
// namePostsView.ts; issue 12) answer the same bytes as the views on the whole state: posts
// of every channel and page size, every leaf asked as a post, poll or request, requests of
// every status at several times, the /agora page of every channel, and the posts of names
// that rotated keys, claimed late or are secret-bound. The store is the one the pure log
// built from slices (log.sliced.store); JSON text is compared, so the members' order counts.
// A second log has lists longer than the walks' chunks, so the walks cross chunk ends; a
// third keeps writing posts after the /agora page was first shown, whose channels the page
// then finds among the posts written since.

import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { makeAgoraPageView } from "../../src/app/agoraPageView.js"
import { makeForumViews } from "../../src/app/forumViews.js"
import { namePostsView } from "../../src/app/namePostsView.js"
import { pollOf } from "../../src/domain/forum/polls.js"
import { agoraPageView as agoraPageOfState, pollItem } from "../../src/domain/pages/agoraPage.js"
import { pollDetail, pollsView } from "../../src/domain/views/agoraPolls.js"
import { postsView, postView } from "../../src/domain/views/agoraPosts.js"
import { humanActionsView, humanActionView, REQUEST_STATUSES } from "../../src/domain/views/humanActions.js"
import { namePosts } from "../../src/domain/views/namePosts.js"
import { nameView } from "../../src/domain/views/nameView.js"
import { taskDetail, taskListView } from "../../src/domain/views/taskList.js"
import type { LogState } from "../../src/domain/write/logState.js"
import { postPayload } from "../support/agents.js"
import { completion, GovLog, makeAgent, pollPayload, taskPayload } from "../support/governanceAgents.js"
import { claimPayload, rotatePayload, x25519Key } from "../support/identityAgents.js"
import { storeReader } from "../support/storeReader.js"

let run = 0
const json = (value: unknown) => JSON.stringify(value)
const read = <A>(effect: Effect.Effect<A, unknown>): A => Effect.runSync(effect)

/** A log with a bit of everything the forum views show. */
const richLog = () => {
  const log = new GovLog({ label: `store forum ${++run}` })
  const agent = (name: string) => makeAgent(`store forum ${run} ${name}`)
  const [alice, alice2, bob, bare, late] = ["alice", "alice2", "bob", "bare", "late"].map(agent) as [
    ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>
  ]
  const post = (who: typeof alice, text: string, channel = "general", replyTo?: number) => {
    const p = postPayload(text, channel)
    return log.accept(who, "post", replyTo === undefined ? p.payload : { ...p.payload, reply_to: replyTo }, p.body)
  }
  const poll = (who: typeof alice, question: string, channel: string, closesIn: number) => {
    const p = pollPayload(question, ["yes", "no", "maybe"], log.seconds + closesIn, channel)
    return log.accept(who, "poll", p.payload, p.body)
  }
  log.accept(alice, "claim", claimPayload("alice", alice))
  log.accept(bob, "claim", claimPayload("bob", bob))
  const first = post(alice, "first")
  post(bare, "over in random", "random")
  post(bob, "a reply", "general", first)
  const hidden = post(bare, "spam spam")
  log.must(log.ownerOp("tombstone", { target_index: hidden, reason_code: "spam" }))
  // More channels than the page lists, so the walk stops at the page.
  for (let i = 0; i < 33; i++) post(i % 2 === 0 ? bare : bob, `channel ${i}`, `c-${i}`)
  // A post whose author claims a name later, and a rotated name whose new key posts.
  const asked = post(late, "a request before my name", "owner-actions")
  log.accept(late, "claim", claimPayload("latecomer", late))
  log.accept(alice, "key.rotate", rotatePayload("alice", alice2, alice.kid))
  post(alice2, "alice with her new key", "random")
  log.accept(alice2, "key.x25519", { name: "alice", x25519: x25519Key(`store forum ${run}`) })
  // A secret-bound name, whose posts the policy key signs.
  log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
  const secret = postPayload("carol speaks", "general")
  log.must(log.submitAs(["policy"], log.policy, "post", { ...secret.payload, as: "carol" }, secret.body))
  // Polls in channels, votes, a hidden question, one closing soon.
  const tea = poll(alice2, "tea?", "general", 3600)
  const soon = poll(bob, "soon?", "random", 30)
  poll(bare, "quiet one", "quiet", 3600)
  log.accept(bob, "vote", { poll_index: tea, option: 1 })
  log.accept(bare, "vote", { poll_index: tea, option: 2 })
  log.accept(alice2, "vote", { poll_index: soon, option: 0 })
  log.must(log.ownerOp("tombstone", { target_index: soon, reason_code: "spam" }))
  // Tasks, one awarded, and requests to the owner in every status.
  const task = taskPayload("write a verifier", 7, log.seconds + 3600)
  const taskIndex = log.must(log.ownerOp("task", task.payload, task.body))
  const submission = post(bob, "my verifier", "tasks")
  log.must(log.ownerOp("task.award", { task_index: taskIndex, submission_index: submission, name: "bob" }))
  const later = taskPayload("a later task", 3, log.seconds + 60)
  log.must(log.ownerOp("task", later.payload, later.body))
  const quote = (request: number, expires?: number) =>
    log.must(log.ownerOp("action.quote", { request_index: request, amount: 2, ...(expires === undefined ? {} : { expires }) }))
  const inChannel = post(bob, "please check my key", "owner-actions")
  const elsewhere = post(bob, "please translate", "general")
  const toPay = post(bob, "pay me", "owner-actions")
  post(bare, "open request", "owner-actions")
  quote(asked, log.seconds + 100)
  quote(elsewhere)
  const paid = quote(toPay)
  log.accept(bob, "action.pay", { quote_index: paid })
  const done = quote(inChannel)
  log.accept(bob, "action.pay", { quote_index: done })
  const result = completion(done, "checked")
  log.must(log.ownerOp("action.complete", result.payload, result.body))
  post(bare, "the newest request", "owner-actions")
  return log
}

/** Every view of the store equals the same view of the whole state, as JSON (each leaf as an item too, when asked). */
const expectSameViews = (log: GovLog, channels: ReadonlyArray<string | undefined>, names: ReadonlyArray<string>, everyLeaf: boolean) => {
  const state: LogState = log.state
  const reader = storeReader(log.sliced.store)
  const forum = makeForumViews(reader)
  const page = read(makeAgoraPageView(reader, forum))
  const postsOfName = namePostsView(reader)
  const resident = read(reader.slice([]))
  for (const now of [log.now, log.now + 60_000, log.now + 200_000_000]) {
    for (const channel of channels) {
      for (const limit of [1, 2, 3, 50, 200]) {
        expect(json(read(forum.posts({ channel, limit }, now))), `posts ${channel} ${limit}`).toBe(json(postsView(state, { channel, limit }, now)))
      }
      expect(json(read(page(channel, undefined, now))), `agora page ${channel}`).toBe(json(agoraPageOfState(state, channel, now)))
      // Older pages, as the page's Older posts link asks for them.
      for (const before of [1, 2, Math.floor(state.size / 2), state.size]) {
        expect(json(read(page(channel, before, now))), `agora page ${channel} before ${before}`).toBe(json(agoraPageOfState(state, channel, now, before)))
      }
    }
    for (const status of [undefined, ...REQUEST_STATUSES]) {
      for (const limit of [1, 2, 3, 4, 5, 9, 50]) {
        expect(json(read(forum.requests({ status, limit }, now))), `requests ${status} ${limit}`).toBe(json(humanActionsView(state, { status, limit }, now)))
      }
      expect(json(taskListView(resident, { status: status === "open" ? "open" : undefined, limit: 100 }, now)))
        .toBe(json(taskListView(state, { status: status === "open" ? "open" : undefined, limit: 100 }, now)))
    }
    expect(json(read(forum.polls(now)))).toBe(json(pollsView(state, now)))
    for (let index = 0; everyLeaf && index < state.size + 2; index++) {
      expect(json(read(forum.post(index, now))), `post ${index}`).toBe(json(postView(state, index, now)))
      expect(json(read(forum.poll(index, now))), `poll ${index}`).toBe(json(pollDetail(state, index, now)))
      expect(json(read(forum.pollWithBody(index, now))), `poll page ${index}`)
        .toBe(json(pollOf(state, index) === undefined ? undefined : pollItem(state, index, now)))
      expect(json(read(forum.request(index, now))), `request ${index}`).toBe(json(humanActionView(state, index, now)))
      expect(json(taskDetail(resident, index, now)), `task ${index}`).toBe(json(taskDetail(state, index, now)))
    }
    for (const name of names) {
      const view = Either.getOrThrow(nameView(state, name))
      for (const limit of [1, 2, 10]) {
        expect(json(read(postsOfName(view, limit, now))), `posts of ${name} ${limit}`).toBe(json(namePosts(state, view, limit, now)))
      }
    }
  }
}

describe("the forum's views read from the projection store", () => {
  it("answer what the views answer on the whole state, for every query of a rich log", () => {
    const log = richLog()
    expect(log.sliced.storeMatches(log.state)).toEqual([])
    expectSameViews(log, [undefined, "general", "random", "owner-actions", "tasks", "c-4", "quiet", "nothing-here"], ["alice", "bob", "latecomer", "carol"], true)
  })

  it("walk lists longer than a chunk: a quiet channel's old poll, many channels' posts, a key's old posts", () => {
    const log = new GovLog({ label: `store forum long ${++run}` })
    const busy = makeAgent(`store forum long ${run} busy`)
    const writer = makeAgent(`store forum long ${run} writer`)
    log.accept(writer, "claim", claimPayload("writer", writer))
    const post = (text: string, channel: string) => {
      const p = postPayload(text, channel)
      return log.accept(writer, "post", p.payload, p.body)
    }
    post("an old post in a quiet channel", "quiet")
    const quietPoll = pollPayload("the old one", ["a", "b"], log.seconds + 3600, "quiet")
    log.accept(busy, "poll", quietPoll.payload, quietPoll.body)
    for (let i = 0; i < 230; i++) {
      const p = pollPayload(`poll ${i}`, ["a", "b"], log.seconds + 3600, "busy")
      log.accept(busy, "poll", p.payload, p.body)
      post(`busy post ${i}`, "busy")
    }
    // The writer's newest leaves are no posts: its posts are found past a chunk of them.
    for (let i = 0; i < 230; i++) log.accept(writer, "key.x25519", { name: "writer", x25519: x25519Key(`long ${run} ${i}`) })
    expectSameViews(log, [undefined, "quiet", "busy"], ["writer"], false)
  })

  it("keep the /agora page's channels exact as posts are written after it was first shown", () => {
    const log = new GovLog({ label: `store forum channels ${++run}` })
    const writer = makeAgent(`store forum channels ${run} writer`)
    const post = (channel: string) => {
      const p = postPayload(`in ${channel}`, channel)
      return log.accept(writer, "post", p.payload, p.body)
    }
    const reader = storeReader(log.sliced.store)
    const page = read(makeAgoraPageView(reader, makeForumViews(reader)))
    const same = () => expect(json(read(page(undefined, undefined, log.now)).channels)).toBe(json(agoraPageOfState(log.state, undefined, log.now).channels))
    same()
    for (const channel of ["a", "b", "a", "c"]) post(channel)
    same()
    same()
    // More channels than the page lists, then old ones written to again, one at a time.
    for (let i = 0; i < 35; i++) post(`many-${i}`)
    same()
    for (const channel of ["b", "many-0", "a", "b"]) {
      post(channel)
      same()
    }
    for (let i = 0; i < 12; i++) post(`many-${i % 3}`)
    same()
  })
})
