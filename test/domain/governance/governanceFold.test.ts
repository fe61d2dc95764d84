// Governance, forum and SUP as a pure fold: random sequences of owner, policy and agent
// leaves (freezes, suspensions, tombstones, notice and audit reports, policies, polls and
// votes, tasks and awards, quotes, payments and completions, SUP credits) with time passing.
// After every step, against an independent model:
//   - no balance is ever negative, and every balance is the model's;
//   - no agent write is accepted while frozen, or from a suspended key or name;
//   - no key's second vote in a poll counts, and each tally is the count of distinct voters;
//   - no closed notice (a reported notice hash) is reported again;
//   - no policy is in force before its time, and none without an order before the notice period.
// At the end the incremental state equals a fold of the accepted leaves from scratch.

import { Chunk, HashMap } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bodyStatus } from "../../../src/domain/bodyStatus.js"
import { pollView } from "../../../src/domain/forum/polls.js"
import { freezeView } from "../../../src/domain/governance/freeze.js"
import { policyInForce, policyView } from "../../../src/domain/governance/policyTiming.js"
import { suspensionView } from "../../../src/domain/governance/suspension.js"
import { supAccountView } from "../../../src/domain/sup/ledger.js"
import { requestView } from "../../../src/domain/tasks/ownerRequests.js"
import { taskView } from "../../../src/domain/tasks/taskBoard.js"
import type { LogState } from "../../../src/domain/write/logState.js"
import { postPayload } from "../../support/agents.js"
import { auditReport, completion, GovLog, hashOf, makeAgent, policyDocument, pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { claimPayload, type TestAgent } from "../../support/identityAgents.js"

const NAMES = ["alice", "bob", "carol"] as const
const AGENTS = 4 // the last holds no name

type Act =
  | { k: "post"; a: number }
  | { k: "poll"; a: number; options: number; closesIn: number }
  | { k: "vote"; a: number; pick: number; option: number }
  | { k: "freeze" }
  | { k: "open" }
  | { k: "suspend"; subject: number; byName: boolean; untilIn: number | null }
  | { k: "unsuspend"; subject: number; byName: boolean }
  | { k: "credit"; name: number; amount: number; dup: boolean }
  | { k: "task"; reward: number; closesIn: number }
  | { k: "award"; pick: number; post: number }
  | { k: "quote"; post: number; amount: number; expiresIn: number | null }
  | { k: "pay"; a: number; pick: number }
  | { k: "complete"; pick: number }
  | { k: "policy"; kind: "change" | "card"; offset: number; order: "none" | "cited" | "uncited" }
  | { k: "notice"; which: number }
  | { k: "audit" }
  | { k: "tombstone"; post: number; audit: boolean }
  | { k: "tick"; ms: number }

const a = fc.nat({ max: AGENTS - 1 })
const pick = fc.nat({ max: 40 })
const act: fc.Arbitrary<Act> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("post" as const), a }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("poll" as const), a, options: fc.integer({ min: 2, max: 4 }), closesIn: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant("vote" as const), a, pick, option: fc.nat({ max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("freeze" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("open" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("suspend" as const), subject: a, byName: fc.boolean(), untilIn: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("unsuspend" as const), subject: a, byName: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("credit" as const), name: fc.nat({ max: NAMES.length }), amount: fc.integer({ min: 1, max: 5 }), dup: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("task" as const), reward: fc.integer({ min: 1, max: 5 }), closesIn: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("award" as const), pick, post: pick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("quote" as const), post: pick, amount: fc.integer({ min: 1, max: 6 }), expiresIn: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("pay" as const), a, pick }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("complete" as const), pick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("policy" as const), kind: fc.constantFrom("change" as const, "card" as const), offset: fc.integer({ min: -5, max: 5 }), order: fc.constantFrom("none" as const, "none" as const, "cited" as const, "uncited" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("notice" as const), which: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("audit" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("tombstone" as const), post: pick, audit: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 20_000 }) }) }
)

const nth = <T>(items: ReadonlyArray<T>, i: number): T | undefined => (items.length === 0 ? undefined : items[i % items.length])

/** Every projection the run could have touched, as JSON. */
const projections = (state: LogState, agents: ReadonlyArray<TestAgent>, indexes: { posts: Array<number>; polls: Array<number>; tasks: Array<number>; audits: Array<number> }, now: number) => ({
  size: state.size,
  accounts: [...NAMES, "nobody"].map((n) => supAccountView(state, n)),
  totals: [state.sup.creditedTotal, state.sup.spentTotal, state.sup.contributionsCredited],
  polls: indexes.polls.map((i) => pollView(state, i, now)),
  tasks: indexes.tasks.map((i) => taskView(state, i, now)),
  requests: indexes.posts.map((i) => requestView(state, i, now)),
  bodies: indexes.posts.map((i) => bodyStatus(state, { index: i, type: "post", logged: 0 }, now)),
  reports: indexes.audits.map((i) => bodyStatus(state, { index: i, type: "report", logged: 0 }, now)),
  freeze: freezeView(state),
  policy: policyView(state, now),
  suspensions: [...NAMES, ...agents.map((x) => x.kid)].map((s) => suspensionView(state, s, now)),
  notices: [...HashMap.entries(state.governance.noticeReports)].sort(),
  audits: Chunk.toReadonlyArray(state.governance.audits)
})

let run = 0

describe("governance, forum and SUP as a fold", () => {
  it("keeps every invariant, and the incremental state is the fold from scratch", () => {
    fc.assert(fc.property(fc.array(act, { minLength: 1, maxLength: 70 }), (acts) => {
      const label = `gov-fold-${++run}`
      const log = new GovLog({ label })
      const agents = Array.from({ length: AGENTS }, (_, i) => makeAgent(`${label} ${i}`))
      NAMES.forEach((name, i) => log.accept(agents[i]!, "claim", claimPayload(name, agents[i]!)))
      const nameOf = (i: number): string | undefined => NAMES[i]

      // The model.
      const balance = new Map<string, number>()
      const voted = new Set<string>()
      const reported = new Set<string>()
      const susp = new Map<string, { until: number | null }>()
      let frozenIndex: number | null = null
      const posts: Array<number> = [], polls: Array<number> = [], tasks: Array<number> = [], quotes: Array<number> = [], audits: Array<number> = []
      const policies: Array<{ index: number; logged: number; order: boolean }> = []
      let credits = 0

      const suspendedAt = (subject: string | undefined, t: number) => {
        if (subject === undefined) return false
        const s = susp.get(subject)
        return s !== undefined && (s.until === null || t < s.until * 1000)
      }

      for (const step of acts) {
        if (step.k === "tick") {
          log.now += step.ms
          continue
        }
        const logged = Math.max(log.now, log.state.lastLogged)
        const seconds = Math.floor(logged / 1000)
        const agent = "a" in step ? agents[step.a]! : undefined
        let outcome: ReturnType<GovLog["submit"]>
        const agentWrite = step.k === "post" || step.k === "poll" || step.k === "vote" || step.k === "pay"
        switch (step.k) {
          case "post": {
            const { payload, body } = postPayload(`post ${log.state.size}`)
            outcome = log.submit(agent!, "post", payload, body)
            if (outcome.index !== undefined) posts.push(outcome.index)
            break
          }
          case "poll": {
            const { payload, body } = pollPayload(`poll ${log.state.size}`, ["a", "b", "c", "d"].slice(0, step.options), seconds + step.closesIn)
            outcome = log.submit(agent!, "poll", payload, body)
            if (outcome.index !== undefined) polls.push(outcome.index)
            break
          }
          case "vote": {
            const poll = nth(polls, step.pick) ?? 0
            outcome = log.submit(agent!, "vote", { poll_index: poll, option: step.option })
            if (outcome.index !== undefined) {
              const key = `${poll} ${agent!.kid}`
              expect(voted.has(key), "a key's second vote was accepted").toBe(false)
              voted.add(key)
            }
            break
          }
          case "freeze":
            outcome = log.ownerOp("freeze", { state: "frozen" })
            expect(outcome.index !== undefined).toBe(frozenIndex === null)
            if (outcome.index !== undefined) frozenIndex = outcome.index
            break
          case "open":
            outcome = log.ownerOp("freeze", { state: "open", resume: frozenIndex ?? 0 })
            expect(outcome.index !== undefined).toBe(frozenIndex !== null)
            if (outcome.index !== undefined) frozenIndex = null
            break
          case "suspend": {
            const subject = step.byName ? nameOf(step.subject) ?? agents[step.subject]!.kid : agents[step.subject]!.kid
            const until = step.untilIn === null ? null : seconds + step.untilIn
            outcome = log.ownerOp("suspension", { subject, order: hashOf(`order ${log.state.size}`), ...(until === null ? {} : { until }) })
            expect(outcome.refused).toBeUndefined()
            susp.set(subject, { until })
            break
          }
          case "unsuspend": {
            const subject = step.byName ? nameOf(step.subject) ?? agents[step.subject]!.kid : agents[step.subject]!.kid
            outcome = log.ownerOp("suspension", { subject, until: seconds })
            expect(outcome.index !== undefined).toBe(suspendedAt(subject, logged))
            if (outcome.index !== undefined) susp.delete(subject)
            break
          }
          case "credit": {
            const name = nameOf(step.name) ?? "nobody"
            const claim = step.dup && credits > 0 ? `claim ${credits - 1}` : `claim ${credits}`
            outcome = log.policyOp("sup.credit", { name, amount: step.amount, claim_hash: hashOf(`${label} ${claim}`), network: "testnet", tx: claim.replace(" ", "-") })
            expect(outcome.index !== undefined).toBe(name !== "nobody" && !(step.dup && credits > 0))
            if (outcome.index !== undefined) {
              credits++
              balance.set(name, (balance.get(name) ?? 0) + step.amount)
            }
            break
          }
          case "task": {
            const { payload, body } = taskPayload(`task ${log.state.size}`, step.reward, seconds + step.closesIn)
            outcome = log.ownerOp("task", payload, body)
            if (outcome.index !== undefined) tasks.push(outcome.index)
            break
          }
          case "award": {
            const task = nth(tasks, step.pick) ?? 0
            const post = nth(posts, step.post) ?? 0
            const author = agents.findIndex((x) => log.state.forum.postMeta.pipe(HashMap.get(post))._tag === "Some" && HashMap.unsafeGet(log.state.forum.postMeta, post).author === x.kid)
            const name = nameOf(author) ?? "nobody"
            outcome = log.ownerOp("task.award", { task_index: task, submission_index: post, name })
            if (outcome.index !== undefined) {
              const reward = HashMap.unsafeGet(log.state.tasks.tasks, task).reward
              balance.set(name, (balance.get(name) ?? 0) + reward)
            }
            break
          }
          case "quote": {
            const post = nth(posts, step.post) ?? 0
            outcome = log.ownerOp("action.quote", { request_index: post, amount: step.amount, ...(step.expiresIn === null ? {} : { expires: seconds + step.expiresIn }) })
            if (outcome.index !== undefined) quotes.push(outcome.index)
            break
          }
          case "pay": {
            const quote = nth(quotes, step.pick) ?? 0
            const name = nameOf(step.a)
            const before = name === undefined ? 0 : balance.get(name) ?? 0
            outcome = log.submit(agent!, "action.pay", { quote_index: quote })
            if (outcome.index !== undefined) {
              const amount = HashMap.unsafeGet(log.state.tasks.quotes, quote).amount
              expect(name).toBeDefined()
              expect(before).toBeGreaterThanOrEqual(amount)
              balance.set(name!, before - amount)
            } else if (outcome.refused === "insufficient_balance" && name !== undefined) {
              expect(before).toBeLessThan(HashMap.unsafeGet(log.state.tasks.quotes, quote).amount)
            }
            break
          }
          case "complete": {
            const result = completion(nth(quotes, step.pick) ?? 0, `result ${log.state.size}`)
            outcome = log.ownerOp("action.complete", result.payload, result.body)
            break
          }
          case "policy": {
            const order = hashOf(`order ${log.state.size}`)
            const notBefore = seconds + log.noticePeriodSeconds + step.offset * 86_400 * 3
            const doc = policyDocument(`${log.state.size}`, step.kind, notBefore, step.order === "cited" ? order : undefined)
            outcome = log.ownerOp("policy", { ...doc.payload, ...(step.order === "none" ? {} : { order_hash: order }) }, doc.body)
            const expected = step.order === "cited" || (step.order === "none" && notBefore * 1000 >= logged + log.noticePeriodSeconds * 1000)
            expect(outcome.index !== undefined).toBe(expected)
            if (outcome.index !== undefined) policies.push({ index: outcome.index, logged, order: step.order === "cited" })
            break
          }
          case "notice": {
            const hash = hashOf(`${label} notice ${step.which}`)
            outcome = log.policyOp("report", { kind: "notice", notice_hash: hash, outcome: "no_action" })
            expect(outcome.index !== undefined, "a closed notice was reported again").toBe(!reported.has(hash))
            reported.add(hash)
            break
          }
          case "audit": {
            // An audit names its report, which comes as the body: no state rule refuses it.
            const audit = auditReport("incident", `audit ${log.state.size}`)
            outcome = log.ownerOp("report", audit.payload, audit.body)
            expect(outcome.refused).toBeUndefined()
            audits.push(outcome.index!)
            break
          }
          case "tombstone":
            outcome = log.ownerOp("tombstone", { target_index: nth(step.audit ? audits : posts, step.post) ?? 0, reason_code: "spam" })
            break
        }

        if (agentWrite) {
          if (frozenIndex !== null) expect(outcome.refused).toBe("writes_frozen")
          else if (suspendedAt(agent!.kid, logged) || suspendedAt(nameOf(step.a as number), logged)) expect(outcome.refused).toBe("suspended")
          else expect(outcome.refused).not.toBe("suspended")
        }

        // Invariants on the state after every step.
        for (const [name, account] of HashMap.entries(log.state.sup.accounts)) {
          expect(account.balance, `${name}'s balance`).toBeGreaterThanOrEqual(0)
          expect(account.balance).toBe(balance.get(name) ?? 0)
        }
        for (const poll of HashMap.values(log.state.forum.polls)) {
          const voters = [...HashMap.keys(log.state.forum.votes)].filter((k) => k.startsWith(`${poll.index} `)).length
          expect(poll.tally.reduce((x, y) => x + y, 0)).toBe(voters)
          expect(poll.votes).toBe(voters)
        }
        for (const kind of ["change", "card"] as const) {
          const inForce = policyInForce(log.state, kind, log.now)
          if (inForce !== undefined) expect(inForce.effectiveAt).toBeLessThanOrEqual(log.now)
        }
        for (const p of log.state.governance.policies) {
          const model = policies.find((x) => x.index === p.index)!
          if (!model.order) expect(p.effectiveAt).toBeGreaterThanOrEqual(model.logged + log.noticePeriodSeconds * 1000)
        }
      }

      const indexes = { posts, polls, tasks, audits }
      expect(projections(log.fold(), agents, indexes, log.now)).toEqual(projections(log.state, agents, indexes, log.now))
      // The store the same decisions built on slices holds the state, row by row (issue 12).
      expect(log.sliced.storeMatches(log.state)).toEqual([])
    }), { numRuns: 120 })
  })
})
