// The tiles' lag that /healthz judges (src/app/LogStatus.ts): how long leaves have waited
// for a checkpoint, counted from the first of them, not from the last checkpoint, so the
// first write after a quiet minute is not a minute late; a publisher that stopped is still
// found once leaves wait beyond twice the merge delay.

import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref, SubscriptionRef } from "effect"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogStatus } from "../../src/app/LogStatus.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"

const START = 1_800_000_000_000

describe("LogStatus", () => {
  it.scoped("counts the lag from the first waiting leaf, and still finds a publisher that stopped", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(START)
      const size = yield* SubscriptionRef.make(1)
      const deps = Layer.mergeAll(
        LogHealth.layer,
        clock.layer,
        Layer.succeed(LogWriter, { size } as unknown as LogWriter["Type"]),
        ServiceConfig.layer({ domain: "status.example", mmdSeconds: 1 } as unknown as ServiceSettings)
      )
      const context = yield* Layer.build(Layer.provideMerge(LogStatus.layer, deps))
      const status = Context.get(context, LogStatus)
      const health = Context.get(context, LogHealth)
      /** The log grows to `n`, and the status's watcher sees it. */
      const grow = (n: number) => Effect.zipRight(SubscriptionRef.set(size, n), Effect.repeatN(Effect.yieldNow(), 20))
      const publish = (n: number) => Ref.set(health.publish, { publishedSize: n, publishedAt: clock.peek(), error: undefined })

      yield* publish(1)
      // A quiet minute, then a write: it has waited 200 ms, not a minute.
      yield* clock.advance(60_000)
      yield* grow(2)
      yield* clock.advance(200)
      const fresh = yield* status.current
      expect(fresh.lagEntries).toBe(1)
      expect(fresh.lagSeconds).toBeCloseTo(0.2)
      expect(fresh.tilesStalled).toBe(false)
      // No checkpoint comes: past twice the merge delay the tiles lag.
      yield* clock.advance(2_000)
      yield* grow(3)
      const stalled = yield* status.current
      expect(stalled.lagSeconds).toBeCloseTo(2.2)
      expect(stalled.tilesStalled).toBe(true)
      // Published at last; the next leaf, a minute later, starts a wait of its own.
      yield* publish(3)
      yield* clock.advance(60_000)
      yield* grow(4)
      yield* clock.advance(300)
      const next = yield* status.current
      expect(next.lagSeconds).toBeCloseTo(0.3)
      expect(next.tilesStalled).toBe(false)
    }))
})
