// One test per refusal code of governance, forum and SUP (src/domain/write/refusal.ts),
// each through the route's stateless checks and the sequencer's decide.

import { describe, expect, it } from "vitest"
import { bodyStatus } from "../../../src/domain/bodyStatus.js"
import { agentWritesHeld } from "../../../src/domain/governance/freeze.js"
import { REFUSALS } from "../../../src/domain/write/refusal.js"
import { postPayload } from "../../support/agents.js"
import { auditReport, completion, GovLog, hashOf, makeAgent, policyDocument, pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { claimPayload } from "../../support/identityAgents.js"

let n = 0
const setup = () => {
  const label = `refusal-${++n}`
  const log = new GovLog({ label })
  const alice = makeAgent(`${label} alice`)
  const bob = makeAgent(`${label} bob`)
  log.accept(alice, "claim", claimPayload("alice", alice))
  const { payload, body } = postPayload("hello")
  const post = log.accept(alice, "post", payload, body)
  return { log, alice, bob, post }
}

const credit = (log: GovLog, name: string, amount: number, label: string) =>
  log.policyOp("sup.credit", { name, amount, claim_hash: hashOf(label), network: "testnet", tx: label })

describe("governance refusal codes", () => {
  it("not_owner (403): an owner type signed by another key", () => {
    const { log, alice, post } = setup()
    expect(log.submitAs(["owner"], alice, "tombstone", { target_index: post, reason_code: "spam" }).refused).toBe("not_owner")
    expect(REFUSALS.not_owner.status).toBe(403)
  })

  it("not_policy (403): a policy type signed by another key", () => {
    const { log, alice } = setup()
    const out = log.submitAs(["policy"], alice, "sup.credit", { name: "alice", amount: 1, claim_hash: hashOf("c"), network: "testnet", tx: "t" })
    expect(out.refused).toBe("not_policy")
  })

  it("owner and policy types are not agent types at /v2/entries (unknown_type)", () => {
    const { log, alice, post } = setup()
    expect(log.submit(alice, "tombstone", { target_index: post, reason_code: "spam" }).refused).toBe("unknown_type")
    expect(log.submitAs(["owner"], log.owner, "report", { kind: "notice", notice_hash: hashOf("n"), outcome: "no_action" }).refused).toBe("unknown_type")
  })

  it("writes_frozen (403), already_frozen and not_frozen (409); owner leaves still go in", () => {
    const { log, alice, post } = setup()
    expect(log.ownerOp("freeze", { state: "open", resume: 0 }).refused).toBe("not_frozen")
    const frozen = log.must(log.ownerOp("freeze", { state: "frozen" }))
    expect(agentWritesHeld(log.state)).toBe(true)
    const { payload, body } = postPayload("held")
    expect(log.submit(alice, "post", payload, body).refused).toBe("writes_frozen")
    expect(log.ownerOp("freeze", { state: "frozen" }).refused).toBe("already_frozen")
    log.must(log.ownerOp("tombstone", { target_index: post, reason_code: "spam" }))
    expect(log.ownerOp("freeze", { state: "open", resume: frozen + 1 }).refused).toBe("payload_invalid")
    log.must(log.ownerOp("freeze", { state: "open", resume: frozen }))
    expect(log.submit(alice, "post", payload, body).refused).toBeUndefined()
  })

  it("suspended (403) for a key, for its name and for a claim of a suspended name; not_suspended (409)", () => {
    const { log, alice, bob } = setup()
    expect(log.ownerOp("suspension", { subject: "alice", until: log.seconds }).refused).toBe("not_suspended")
    log.must(log.ownerOp("suspension", { subject: "alice", order: hashOf("order 1") }))
    const { payload, body } = postPayload("x")
    expect(log.submit(alice, "post", payload, body).refused).toBe("suspended")
    log.must(log.ownerOp("suspension", { subject: bob.kid, order: hashOf("order 2"), until: log.seconds + 60 }))
    expect(log.submit(bob, "post", payload, body).refused).toBe("suspended")
    log.must(log.ownerOp("suspension", { subject: "carol", order: hashOf("order 3") }))
    const carol = makeAgent(`${n} carol`)
    expect(log.submit(carol, "claim", claimPayload("carol", carol)).refused).toBe("suspended")
    // Ends: by a leaf with until at or before now, and by time.
    expect(log.ownerOp("suspension", { subject: "alice", until: log.seconds + 10 }).refused).toBe("payload_invalid")
    log.must(log.ownerOp("suspension", { subject: "alice", until: log.seconds }))
    expect(log.submit(alice, "post", payload, body).refused).toBeUndefined()
    log.now += 60_000
    expect(log.submit(bob, "post", payload, body).refused).toBeUndefined()
  })

  it("already_tombstoned (409), and the body status shows the tombstone", () => {
    const { log, post } = setup()
    expect(log.ownerOp("tombstone", { target_index: 0, reason_code: "spam" }).refused).toBe("payload_invalid")
    expect(log.ownerOp("tombstone", { target_index: post, reason_code: "not_a_reason" }).refused).toBe("payload_invalid")
    const t = log.must(log.ownerOp("tombstone", { target_index: post, reason_code: "privacy" }))
    expect(log.ownerOp("tombstone", { target_index: post, reason_code: "spam" }).refused).toBe("already_tombstoned")
    expect(bodyStatus(log.state, { index: post, type: "post", logged: log.now }, log.now)).toEqual({
      state: "tombstoned", tombstone_index: t, reason_code: "privacy", policy_index: null
    })
  })

  it("notice_closed (409): a notice hash is reported once", () => {
    const { log, post } = setup()
    log.must(log.policyOp("report", { kind: "notice", notice_hash: hashOf("notice 1"), outcome: "no_action" }))
    expect(log.policyOp("report", { kind: "notice", notice_hash: hashOf("notice 1"), outcome: "withdrawn" }).refused).toBe("notice_closed")
    expect(log.policyOp("report", { kind: "notice", notice_hash: hashOf("notice 2"), outcome: "removed" }).refused).toBe("payload_invalid")
    const t = log.must(log.ownerOp("tombstone", { target_index: post, reason_code: "notice_upheld" }))
    log.must(log.policyOp("report", { kind: "notice", notice_hash: hashOf("notice 2"), outcome: "removed", tombstone_index: t }))
    const audit = auditReport("freeze", "audit")
    log.must(log.ownerOp("report", audit.payload, audit.body))
  })

  it("policy_too_soon and order_not_cited (422); an order the document cites shortens the notice", () => {
    const { log } = setup()
    const soon = policyDocument("a", "change", log.seconds + log.noticePeriodSeconds - 1)
    expect(log.ownerOp("policy", soon.payload, soon.body).refused).toBe("policy_too_soon")
    const timely = policyDocument("b", "change", log.seconds + log.noticePeriodSeconds)
    log.must(log.ownerOp("policy", timely.payload, timely.body))
    const order = hashOf("court order")
    const uncited = policyDocument("c", "card", log.seconds)
    expect(log.ownerOp("policy", { ...uncited.payload, order_hash: order }, uncited.body).refused).toBe("order_not_cited")
    const cited = policyDocument("d", "card", log.seconds, order)
    log.must(log.ownerOp("policy", { ...cited.payload, order_hash: order }, cited.body))
  })

  it("poll_closed and already_voted (409)", () => {
    const { log, alice, bob } = setup()
    const { payload, body } = pollPayload("which?", ["a", "b"], log.seconds + 10)
    const poll = log.accept(alice, "poll", payload, body)
    log.accept(alice, "vote", { poll_index: poll, option: 1 })
    expect(log.submit(alice, "vote", { poll_index: poll, option: 0 }).refused).toBe("already_voted")
    expect(log.submit(bob, "vote", { poll_index: poll, option: 2 }).refused).toBe("payload_invalid")
    log.now += 10_000
    expect(log.submit(bob, "vote", { poll_index: poll, option: 0 }).refused).toBe("poll_closed")
  })

  it("task_awarded (409) and recipient_unknown (422) for an award", () => {
    const { log, alice, bob } = setup()
    const t = taskPayload("do it", 5, log.seconds + 100)
    const task = log.must(log.ownerOp("task", t.payload, t.body))
    const a = postPayload("done"), b = postPayload("me too")
    const subA = log.accept(alice, "post", a.payload, a.body)
    const subB = log.accept(bob, "post", b.payload, b.body)
    expect(log.ownerOp("task.award", { task_index: task, submission_index: subB, name: "alice" }).refused).toBe("recipient_unknown")
    expect(log.ownerOp("task.award", { task_index: task, submission_index: subA, name: "bobby" }).refused).toBe("payload_invalid")
    log.must(log.ownerOp("task.award", { task_index: task, submission_index: subA, name: "alice" }))
    expect(log.ownerOp("task.award", { task_index: task, submission_index: subA, name: "alice" }).refused).toBe("task_awarded")
  })

  it("insufficient_balance, quote_paid, quote_expired, quote_unpaid, action_completed (409)", () => {
    const { log, alice, bob, post } = setup()
    const q = log.must(log.ownerOp("action.quote", { request_index: post, amount: 3 }))
    const result = completion(q, "r")
    expect(log.ownerOp("action.complete", result.payload, result.body).refused).toBe("quote_unpaid")
    expect(log.submit(alice, "action.pay", { quote_index: q }).refused).toBe("insufficient_balance")
    expect(log.submit(bob, "action.pay", { quote_index: q }).refused).toBe("insufficient_balance")
    log.must(credit(log, "alice", 3, "c1"))
    log.accept(alice, "action.pay", { quote_index: q })
    expect(log.submit(alice, "action.pay", { quote_index: q }).refused).toBe("quote_paid")
    log.must(log.ownerOp("action.complete", result.payload, result.body))
    expect(log.ownerOp("action.complete", result.payload, result.body).refused).toBe("action_completed")
    const late = log.must(log.ownerOp("action.quote", { request_index: post, amount: 1, expires: log.seconds + 5 }))
    log.must(credit(log, "alice", 1, "c2"))
    log.now += 5_000
    expect(log.submit(alice, "action.pay", { quote_index: late }).refused).toBe("quote_expired")
  })

  it("claim_settled (409): a claim is settled once, a transaction credits once", () => {
    const { log } = setup()
    expect(credit(log, "nobody", 1, "c0").refused).toBe("name_unclaimed")
    log.must(credit(log, "alice", 2, "c1"))
    expect(credit(log, "alice", 2, "c1").refused).toBe("claim_settled")
    expect(log.policyOp("sup.credit", { name: "alice", amount: 2, claim_hash: hashOf("other"), network: "testnet", tx: "c1" }).refused).toBe("claim_settled")
    log.must(log.policyOp("sup.refusal", { claim_hash: hashOf("c3"), code: "tx_not_found" }))
    expect(credit(log, "alice", 2, "c3").refused).toBe("claim_settled")
  })

  it("every code used here is in the catalogue with a condition", () => {
    for (const code of ["not_owner", "not_policy", "writes_frozen", "suspended", "already_frozen", "not_frozen", "not_suspended",
      "already_tombstoned", "notice_closed", "poll_closed", "already_voted", "task_awarded", "quote_paid", "quote_expired",
      "quote_unpaid", "action_completed", "insufficient_balance", "claim_settled", "policy_too_soon", "order_not_cited"] as const) {
      expect(REFUSALS[code].condition.length).toBeGreaterThan(10)
    }
  })
})
