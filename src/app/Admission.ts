// Fair admission (docs/protocol.md "Fair admission"; issue 13): the token buckets of the
// published budgets (domain/admission/budgets.ts), one per subject (an address group, a
// key, a name, or the service), kept in this process's memory and refilled by the Clock
// port's time. The bucket math is domain/admission/tokenBucket.ts; this keeps the buckets.
//
// Memory: a bucket that has refilled completely is the same as none, so the table forgets
// full buckets when it grows (a sweep every SWEEP_EVERY new subjects), and holds at most
// MAX_BUCKETS: past that, the oldest-touched go first (they are the closest to full).
//
// Several nodes: each node enforces its share of every budget (capacity / AICS_LIMIT_NODES),
// so the service never admits more than it publishes, at no cost per request
// (docs/operations.md "Fair admission on several nodes" says why not shared counters).
//
// Every refusal is counted in the Effect Metric counter `aics_rate_limited_total` (RateLimitMetric.ts) with a
// `budget` label, for the operator's /metrics.

import { Context, Effect, Layer } from "effect"
import {
  type AdmissionLimits,
  BUDGET_NAMES,
  type BudgetName,
  DEFAULT_LIMITS,
  nodeRule,
  rateLimitField,
  rateLimitPolicyField,
  spentDetail
} from "../domain/admission/budgets.js"
import { type Bucket, type BucketRule, isFull, take } from "../domain/admission/tokenBucket.js"
import { Clock } from "../ports/Clock.js"
import { inFlightPerSubject, type InFlightPerSubject } from "./inFlightPerSubject.js"
import { countRateLimited } from "./RateLimitMetric.js"
import { ServiceConfig } from "./ServiceConfig.js"

/** Buckets kept at most (about 100 bytes each). */
export const MAX_BUCKETS = 500_000
const SWEEP_EVERY = 10_000


/** RateLimit-Policy and RateLimit header values (IETF httpapi ratelimit-headers draft). */
export interface RateLimitFields {
  readonly policy: string
  readonly limit: string
}

export type Verdict =
  | { readonly admitted: true; readonly fields?: RateLimitFields }
  | {
    readonly admitted: false
    readonly budget: BudgetName
    readonly retryAfter: number
    readonly fields: RateLimitFields
    /** "the writes budget (120 per 60 s per address) is spent; retry in 20 s": this node's quota, as RateLimit-Policy says it. */
    readonly detail: string
  }

const ADMITTED: Verdict = { admitted: true }

export class Admission extends Context.Tag("aics/Admission")<Admission, {
  readonly limits: AdmissionLimits
  /**
   * Spends `cost` from `budget`'s bucket for `subject` (an address group, a did:key, a name;
   * anything for the service budget). An off budget admits everything.
   */
  readonly take: (budget: BudgetName, subject: string, cost?: number) => Effect.Effect<Verdict>
  /** Several budgets in order, stopping at the first refusal (the ones before it stay spent). */
  readonly takeAll: (spends: ReadonlyArray<readonly [BudgetName, string]>) => Effect.Effect<Verdict>
  /** Runs a request of the address group once fewer than requestsInFlightPerAddress of its requests run (inFlightPerSubject.ts). */
  readonly inTurn: InFlightPerSubject["run"]
}>() {
  static readonly make = (limits: AdmissionLimits) =>
    Effect.gen(function*() {
      const clock = yield* Clock
      const rules = new Map<BudgetName, BucketRule>()
      for (const name of BUDGET_NAMES) {
        const rule = nodeRule(limits, name)
        if (rule !== undefined) rules.set(name, rule)
      }
      const buckets = new Map<string, { readonly rule: BucketRule; bucket: Bucket }>()
      let added = 0

      const sweep = (now: number) => {
        for (const [key, kept] of buckets) if (isFull(kept.bucket, kept.rule, now)) buckets.delete(key)
        // Map order is insertion order; a touched bucket is re-inserted, so the first are the stalest.
        for (const key of buckets.keys()) {
          if (buckets.size <= MAX_BUCKETS) break
          buckets.delete(key)
        }
      }

      const takeNow = (budget: BudgetName, subject: string, cost: number, now: number): Verdict => {
        const rule = rules.get(budget)
        if (rule === undefined) return ADMITTED
        const key = `${budget} ${subject}`
        const kept = buckets.get(key)
        const taken = take(kept?.bucket, rule, now, cost)
        if (kept === undefined) {
          if (++added % SWEEP_EVERY === 0 || buckets.size >= MAX_BUCKETS) sweep(now)
        } else {
          buckets.delete(key)
        }
        buckets.set(key, { rule, bucket: taken.bucket })
        const fields = { policy: rateLimitPolicyField(budget, rule), limit: rateLimitField(budget, taken.remaining, taken.resetSeconds) }
        if (taken.admitted) return { admitted: true, fields }
        return {
          admitted: false,
          budget,
          retryAfter: taken.retryAfterSeconds,
          fields,
          detail: spentDetail(limits, budget, rule, taken.retryAfterSeconds)
        }
      }

      const counted = (verdict: Verdict): Effect.Effect<Verdict> =>
        verdict.admitted ? Effect.succeed(verdict) : Effect.as(countRateLimited(verdict.budget), verdict)

      const takeOne = (budget: BudgetName, subject: string, cost = 1) =>
        rules.has(budget) ? Effect.flatMap(clock.nowMillis, (now) => counted(takeNow(budget, subject, cost, now))) : Effect.succeed(ADMITTED)

      const takeAll = (spends: ReadonlyArray<readonly [BudgetName, string]>) =>
        Effect.flatMap(clock.nowMillis, (now) => {
          // The headers tell of the first budget spent (the caller lists the one a client paces by first).
          let first: Verdict = ADMITTED
          for (const [budget, subject] of spends) {
            const verdict = takeNow(budget, subject, 1, now)
            if (!verdict.admitted) return counted(verdict)
            if (first.fields === undefined) first = verdict
          }
          return Effect.succeed(first)
        })

      return { limits, take: takeOne, takeAll, inTurn: inFlightPerSubject(limits.requestsInFlightPerAddress).run }
    })

  static readonly layer = Layer.effect(Admission, Effect.flatMap(ServiceConfig, (config) => Admission.make(config.limits ?? DEFAULT_LIMITS)))
}

/**
 * The Admission service if the composition provides one, else one that admits everything:
 * in-process test harnesses built before admission existed keep working unchanged.
 */
export const admissionOrOpen = Effect.map(Effect.serviceOption(Admission), (found) =>
  found._tag === "Some"
    ? found.value
    : {
      limits: { ...DEFAULT_LIMITS, enabled: false },
      take: () => Effect.succeed(ADMITTED),
      takeAll: () => Effect.succeed(ADMITTED),
      inTurn: () => (effect) => effect
    } satisfies typeof Admission.Service)
