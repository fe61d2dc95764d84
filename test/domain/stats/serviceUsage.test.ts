// The usage counts of the service statistics (docs/protocol.md section 16) as a pure
// function of the resident parts of the log's state: every counter starts at 0 and moves by
// the leaves it counts, and by nothing else. The counts come from the tallies the fold keeps
// (stats/usageTallies.ts), here those the log's slices committed to its projection store,
// and must equal, at every step, a walk of the whole state (how they were counted before
// the fold kept them) and the tallies of the whole state taken in one step; a fold of the
// leaves from scratch counts the same.

import { Chunk, Effect, HashMap } from "effect"
import { describe, expect, it } from "vitest"
import { type LogHead, serviceUsage, type ServiceUsage } from "../../../src/domain/stats/serviceUsage.js"
import { uptimeHuman } from "../../../src/domain/stats/uptime.js"
import { taskStatus } from "../../../src/domain/tasks/taskBoard.js"
import type { LogState } from "../../../src/domain/write/logState.js"
import { changesOf, residentOf, sliceOfResident } from "../../../src/domain/write/stateSlice.js"
import { postPayload } from "../../support/agents.js"
import { completion, GovLog, hashOf, makeAgent, pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, dmPayload, rotatePayload } from "../../support/identityAgents.js"

const HEAD = { size: 9, rootHashHex: "ab".repeat(32) }

type Inputs = { readonly now: number; readonly noticesOpen: number; readonly head: LogHead }

/** The counts as a walk of the whole state: the reference the tallies must match. */
const scannedUsage = (state: LogState, inputs: Inputs): ServiceUsage => {
  let keyTier = 0
  const recoveryKeys = new Set<string>()
  for (const record of HashMap.values(state.names)) {
    if (record.tier === "key") keyTier++
    if (record.recovery !== null) recoveryKeys.add(record.recovery)
  }
  let bareKeys = 0
  for (const key of HashMap.values(state.keys)) {
    if (key.name === null && !recoveryKeys.has(key.kid) && key.kid !== state.service?.policyKid && key.kid !== state.service?.ownerKid) bareKeys++
  }
  let messages = 0
  for (const inbox of HashMap.values(state.inboxes)) messages += inbox.length
  let tasksOpen = 0
  let awards = 0
  for (const task of HashMap.values(state.tasks.tasks)) {
    if (taskStatus(task, inputs.now) === "open") tasksOpen++
    if (task.award !== null) awards++
  }
  let settled = 0
  for (const quote of HashMap.values(state.tasks.quotes)) if (quote.completion !== null) settled++
  return {
    registered_agents: HashMap.size(state.names) + bareKeys,
    ans_handles_claimed: HashMap.size(state.names),
    verified_key_identities: keyTier,
    e2ee_messages_relayed: messages,
    encrypted_capsules: HashMap.size(state.capsules),
    agora_posts: Chunk.size(state.forum.postOrder),
    tombstones: HashMap.size(state.governance.tombstoneLeaves),
    agora_polls: Chunk.size(state.forum.pollOrder),
    agora_votes: HashMap.size(state.forum.votes),
    tasks_total: Chunk.size(state.tasks.taskOrder),
    tasks_open: tasksOpen,
    task_awards: awards,
    contributions_credited: state.sup.contributionsCredited,
    sup_credited_total: state.sup.creditedTotal,
    sup_spent_total: state.sup.spentTotal,
    owner_actions_quoted: HashMap.size(state.tasks.quotes),
    owner_actions_settled: settled,
    notices_open: inputs.noticesOpen,
    tlog_tree_size: inputs.head.size,
    tlog_root_hash_hex: inputs.head.rootHashHex
  }
}

/** The tallies of a whole state taken in one step, as from an empty store. */
const wholeResident = (state: LogState) => changesOf(sliceOfResident(residentOf(state)), state).resident

/** The counts from the store the log's slices built, checked against the walk and the one-step tallies. */
const usageOf = (log: GovLog, noticesOpen = 0, now = log.now): ServiceUsage => {
  const inputs = { now, noticesOpen, head: HEAD }
  const usage = serviceUsage(Effect.runSync(log.sliced.store.resident), inputs)
  expect(usage).toEqual(scannedUsage(log.state, inputs))
  expect(serviceUsage(wholeResident(log.state), inputs)).toEqual(usage)
  return usage
}

describe("serviceUsage", () => {
  it("counts each kind of leaf, and nothing but the charter at the start", () => {
    const log = new GovLog({ label: "usage" })
    const zero = usageOf(log)
    expect(Object.entries(zero).filter(([k, v]) => typeof v === "number" && v !== 0 && k !== "tlog_tree_size")).toEqual([])
    expect(zero).toMatchObject({ tlog_tree_size: 9, tlog_root_hash_hex: HEAD.rootHashHex, notices_open: 0 })
    expect(usageOf(log, 3).notices_open).toBe(3)

    const [alice, bob, bare] = ["alice", "bob", "bare"].map((n) => makeAgent(`usage ${n}`)) as [ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>]
    const aliceClaim = log.accept(alice, "claim", claimPayload("alice", alice))
    log.accept(bob, "claim", claimPayload("bob", bob))
    const post = (agent: typeof alice, text: string, channel = "general") => {
      const p = postPayload(text, channel)
      return log.accept(agent, "post", p.payload, p.body)
    }
    const first = post(bare, "hello")
    expect(usageOf(log)).toMatchObject({
      registered_agents: 3, ans_handles_claimed: 2, verified_key_identities: 2, agora_posts: 1
    })

    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    for (const label of ["m1", "m2"]) {
      const dm = dmPayload(bob.kid, grant, aliceClaim + 1, ciphertext(label))
      log.accept(alice, "dm", dm.payload, dm.body)
    }
    for (const label of ["once", "twice"]) {
      const capsule = capsulePayload("slot one", ciphertext(label))
      log.accept(alice, "capsule", capsule.payload, capsule.body)
    }
    const other = capsulePayload("slot two", ciphertext("other"))
    log.accept(bob, "capsule", other.payload, other.body)
    expect(usageOf(log)).toMatchObject({ e2ee_messages_relayed: 2, encrypted_capsules: 2 })

    log.must(log.ownerOp("tombstone", { target_index: first, reason_code: "spam" }))
    const poll = pollPayload("yes?", ["yes", "no"], log.seconds + 3600)
    const pollIndex = log.accept(alice, "poll", poll.payload, poll.body)
    log.accept(alice, "vote", { poll_index: pollIndex, option: 0 })
    log.accept(bob, "vote", { poll_index: pollIndex, option: 1 })
    expect(usageOf(log)).toMatchObject({ tombstones: 1, agora_polls: 1, agora_votes: 2, agora_posts: 1 })

    const awarded = taskPayload("write a verifier", 7, log.seconds + 3600)
    const awardedIndex = log.must(log.ownerOp("task", awarded.payload, awarded.body))
    const open = taskPayload("translate", 3, log.seconds + 60)
    log.must(log.ownerOp("task", open.payload, open.body))
    log.must(log.ownerOp("task.award", { task_index: awardedIndex, submission_index: post(alice, "done", "tasks"), name: "alice" }))
    expect(usageOf(log)).toMatchObject({ tasks_total: 2, tasks_open: 1, task_awards: 1, sup_credited_total: 7 })

    log.must(log.policyOp("sup.credit", { name: "bob", amount: 4, claim_hash: hashOf("usage claim"), network: "testnet", tx: "usage-tx" }))
    const request = post(bob, "please review", "owner-actions")
    const paidQuote = log.must(log.ownerOp("action.quote", { request_index: request, amount: 2 }))
    log.must(log.ownerOp("action.quote", { request_index: request, amount: 9 }))
    log.accept(bob, "action.pay", { quote_index: paidQuote })
    expect(usageOf(log)).toMatchObject({ contributions_credited: 1, sup_credited_total: 11, sup_spent_total: 2, owner_actions_quoted: 2, owner_actions_settled: 0 })
    const review = completion(paidQuote, "review")
    log.must(log.ownerOp("action.complete", review.payload, review.body))
    const done = usageOf(log)
    expect(done).toMatchObject({ owner_actions_settled: 1, registered_agents: 3, agora_posts: 3 })

    // The open task closes with time; nothing else depends on it.
    const later = usageOf(log, 0, log.now + 3_600_000)
    expect(later.tasks_open).toBe(0)
    expect({ ...later, tasks_open: done.tasks_open }).toEqual(done)
    // The fold of the leaves from scratch counts the same.
    expect(scannedUsage(log.fold(), { now: log.now, noticesOpen: 0, head: HEAD })).toEqual(done)
    expect(serviceUsage(wholeResident(log.fold()), { now: log.now, noticesOpen: 0, head: HEAD })).toEqual(done)
    expect(log.sliced.storeMatches(log.state)).toEqual([])
  })
})

describe("registered_agents", () => {
  it("counts a name once through rotations and recovery, and each key that acts for no name", () => {
    const log = new GovLog({ label: "agents" })
    const [carol, recovery, second, third, bare] = ["carol", "recovery", "second", "third", "bare"].map((n) => makeAgent(`agents ${n}`)) as Array<ReturnType<typeof makeAgent>>
    log.accept(carol!, "claim", claimPayload("carol", carol!, recovery))
    expect(usageOf(log).registered_agents).toBe(1)
    // A rotation by the current key, then a recovery rotation signed by the recovery key.
    log.accept(carol!, "key.rotate", rotatePayload("carol", second!, carol!.kid))
    log.accept(recovery!, "key.rotate", rotatePayload("carol", third!, second!.kid))
    // Four keys the log knows, one agent.
    expect([carol!, recovery!, second!, third!].every((a) => HashMap.has(log.state.keys, a.kid))).toBe(true)
    expect(usageOf(log)).toMatchObject({ registered_agents: 1, ans_handles_claimed: 1 })
    const p = postPayload("hello", "general")
    log.accept(bare!, "post", p.payload, p.body)
    // A secret-bound name: its leaves are the policy key's, which is no agent.
    log.must(log.policyOp("claim", { name: "dana", as: "dana" }))
    expect(usageOf(log)).toMatchObject({ registered_agents: 3, ans_handles_claimed: 2, verified_key_identities: 1 })
    expect(scannedUsage(log.fold(), { now: log.now, noticesOpen: 0, head: HEAD })).toEqual(usageOf(log))
    expect(log.sliced.storeMatches(log.state)).toEqual([])
  })
})

describe("uptimeHuman", () => {
  it("writes days, hours, minutes and seconds from the largest unit that is not zero", () => {
    expect([0, 59, 60, 3_661, 86_400, 90_061.9].map(uptimeHuman)).toEqual(["0s", "59s", "1m 0s", "1h 1m 1s", "1d 0h 0m 0s", "1d 1h 1m 1s"])
  })
})
