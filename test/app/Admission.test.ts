// The Admission service (app/Admission.ts): buckets per budget and subject, on the Clock
// port's time, each refusal counted in the `aics_rate_limited_total{budget}` counter that
// the operator's metrics read. A refusal's detail names the quota the node enforces (its
// share, with several nodes), the one its RateLimit-Policy names.

import { Effect, Layer, Metric } from "effect"
import { describe, expect, it } from "vitest"
import { Admission } from "../../src/app/Admission.js"
import { rateLimited } from "../../src/app/RateLimitMetric.js"
import { DEFAULT_LIMITS } from "../../src/domain/admission/budgets.js"
import { Clock } from "../../src/ports/Clock.js"

const limits = { ...DEFAULT_LIMITS, capacities: { ...DEFAULT_LIMITS.capacities, writes: 3, notices: 0 }, nodes: 1 }

const run = <A>(now: { ms: number }, effect: (admission: typeof Admission.Service) => Effect.Effect<A>) =>
  Effect.runPromise(Effect.flatMap(Admission.make(limits), effect).pipe(
    Effect.provide(Layer.succeed(Clock, { nowMillis: Effect.sync(() => now.ms) }))
  ))

const refusals = (budget: string) => Effect.map(Metric.value(Metric.tagged(rateLimited, "budget", budget)), (state) => state.count)

describe("Admission", () => {
  it("refuses a subject past its budget, keeps others apart, refills with time and counts refusals by budget", async () => {
    const now = { ms: 1_000_000 }
    await run(now, (admission) => Effect.gen(function*() {
      const before = yield* refusals("writes")
      for (let i = 0; i < 3; i++) expect((yield* admission.take("writes", "192.0.2.1")).admitted).toBe(true)
      const refused = yield* admission.take("writes", "192.0.2.1")
      expect(refused).toMatchObject({ admitted: false, budget: "writes", retryAfter: 20, detail: "the writes budget (3 per 60 s per address) is spent; retry in 20 s" })
      if (!refused.admitted) expect(refused.fields).toEqual({ policy: "\"writes\";q=3;w=60", limit: "\"writes\";r=0;t=60" })
      expect((yield* admission.take("writes", "192.0.2.2")).admitted).toBe(true)
      expect((yield* refusals("writes")) - before).toBe(1)
      now.ms += 20_000
      expect((yield* admission.take("writes", "192.0.2.1")).admitted).toBe(true)
      // A budget set to 0 is off.
      for (let i = 0; i < 100; i++) expect((yield* admission.take("notices", "192.0.2.1")).admitted).toBe(true)
    }))
  })

  it("stops at the first budget refused, and shares a budget among nodes", async () => {
    const now = { ms: 0 }
    await run(now, (admission) => Effect.gen(function*() {
      yield* admission.take("writes", "a")
      yield* admission.take("writes", "a")
      yield* admission.take("writes", "a")
      const verdict = yield* admission.takeAll([["writes", "a"], ["service_writes", "service"]])
      expect(verdict).toMatchObject({ admitted: false, budget: "writes" })
    }))
    const shared = await Effect.runPromise(Effect.flatMap(Admission.make({ ...limits, nodes: 3 }), (admission) =>
      Effect.forEach([1, 2], () => admission.take("writes", "b"))).pipe(
        Effect.provide(Layer.succeed(Clock, { nowMillis: Effect.succeed(0) }))))
    // 3 a minute over 3 nodes: each node admits 1.
    expect(shared.map((v) => v.admitted)).toEqual([true, false])
  })

  it("names in a refusal the quota this node enforces, as its RateLimit-Policy does, and whose share it is", async () => {
    // The requests budget, 1200 a minute published, over 2 nodes: this node admits 600.
    const refused = await Effect.runPromise(Effect.flatMap(Admission.make({ ...DEFAULT_LIMITS, nodes: 2 }), (admission) =>
      Effect.gen(function*() {
        for (let i = 0; i < 600; i++) expect((yield* admission.take("requests", "192.0.2.9")).admitted).toBe(true)
        return yield* admission.take("requests", "192.0.2.9")
      })).pipe(Effect.provide(Layer.succeed(Clock, { nowMillis: Effect.succeed(0) }))))
    if (refused.admitted) throw new Error("the 601st request of a node's 600 was admitted")
    expect(refused.fields.policy).toBe("\"requests\";q=600;w=60")
    expect(refused.detail).toBe("the requests budget (600 per 60 s per address on this node, its share of 1200 over 2 nodes) is spent; retry in 1 s")
  })
})
