import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { makeTestClock } from "../../../src/adapters/clock/TestClock.js"
import { Clock } from "../../../src/ports/Clock.js"
import { clockContract } from "../../ports/Clock.contract.js"

clockContract("Clock.system", { fresh: Effect.succeed({ layer: Clock.system }), controllable: false })

// Starts away from both the epoch and today, so nothing passes by accident of the start.
clockContract("TestClock", {
  fresh: Effect.sync(() => {
    const clock = makeTestClock(1_234_567_890_123)
    return { layer: clock.layer, control: clock }
  }),
  controllable: true
})

// Only the machine's clock is tied to real time: these checks would be wrong for a test clock.
describe("Clock.system", () => {
  const now = Effect.flatMap(Clock, (clock) => clock.nowMillis).pipe(Effect.provide(Clock.system))

  it.effect("reads within a second of Date.now(), in a sane range of years", () =>
    Effect.gen(function*() {
      const before = Date.now()
      const t = yield* now
      const after = Date.now()
      expect(t).toBeGreaterThanOrEqual(before - 1_000)
      expect(t).toBeLessThanOrEqual(after + 1_000)
      // 2024-01-01 to 2100-01-01: a clock outside this is misconfigured, or reads seconds.
      expect(t).toBeGreaterThan(Date.UTC(2024, 0, 1))
      expect(t).toBeLessThan(Date.UTC(2100, 0, 1))
    }))

  it.live("moves with real time", () =>
    Effect.gen(function*() {
      const a = yield* now
      yield* Effect.sleep("30 millis")
      const b = yield* now
      expect(b - a).toBeGreaterThanOrEqual(25)
      expect(b - a).toBeLessThan(10_000)
    }))
})

describe("TestClock", () => {
  it.effect("starts where it is told and stands still", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(42)
      const read = Effect.flatMap(Clock, (c) => c.nowMillis).pipe(Effect.provide(clock.layer))
      expect(yield* read).toBe(42)
      expect(yield* read).toBe(42)
      yield* clock.advance(1_000)
      expect(yield* read).toBe(1_042)
      expect(clock.peek()).toBe(1_042)
    }))

  it("refuses a start the port cannot hold", () => {
    for (const bad of [-1, 0.5, Number.NaN]) expect(() => makeTestClock(bad)).toThrow(RangeError)
  })

  it.effect("two clocks are independent", () =>
    Effect.gen(function*() {
      const a = makeTestClock(0)
      const b = makeTestClock(0)
      yield* a.advance(10)
      expect(a.peek()).toBe(10)
      expect(b.peek()).toBe(0)
    }))
})
