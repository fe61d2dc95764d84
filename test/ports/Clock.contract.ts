// The Clock contract (src/ports/Clock.ts): time is Unix milliseconds as a safe integer,
// and it never goes back between reads unless a test sets it back on purpose. Where the
// time lies (near Date.now() or wherever a test put it) is each adapter's own business,
// so range checks against the machine's clock live in the system clock's test file.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { Clock } from "../../src/ports/Clock.js"

/** How a test moves a controllable clock (src/adapters/clock/TestClock.ts). */
export interface ClockControl {
  readonly set: (millis: number) => Effect.Effect<void>
  readonly advance: (millis: number) => Effect.Effect<void>
}

export interface ClockInstance {
  readonly layer: Layer.Layer<Clock>
  /** Present when tests drive the clock; such a clock stands still between moves. */
  readonly control?: ClockControl
}

export interface ClockUnderTest {
  /** A new clock; a controllable one starts at a time the suite does not assume. */
  readonly fresh: Effect.Effect<ClockInstance, unknown, Scope.Scope>
  /** Whether fresh clocks come with a control (and then stand still between moves). */
  readonly controllable: boolean
}

const controlOf = (instance: ClockInstance): ClockControl => {
  if (instance.control === undefined) throw new Error("a controllable clock came without its control")
  return instance.control
}

const readMany = (count: number) =>
  Effect.flatMap(Clock, (clock) => Effect.all(Array.from({ length: count }, () => clock.nowMillis)))

const expectUnixMillis = (t: number) => {
  expect(Number.isSafeInteger(t)).toBe(true)
  expect(t).toBeGreaterThanOrEqual(0)
}

const expectNonDecreasing = (times: ReadonlyArray<number>) => {
  for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!)
}

export const clockContract = (name: string, adapter: ClockUnderTest): void => {
  describe(`Clock contract: ${name}`, () => {
    it.scoped("reads Unix milliseconds as safe, non-negative integers", () =>
      Effect.gen(function*() {
        const { layer } = yield* adapter.fresh
        const times = yield* readMany(100).pipe(Effect.provide(layer))
        times.forEach(expectUnixMillis)
      }))

    it.scoped("never goes back between reads, in sequence or concurrently", () =>
      Effect.gen(function*() {
        const { layer, control } = yield* adapter.fresh
        const sequential = yield* readMany(10_000).pipe(Effect.provide(layer))
        expectNonDecreasing(sequential)
        // Concurrent readers each see a non-decreasing series, also while time moves.
        const reader = Effect.flatMap(Clock, (clock) =>
          Effect.gen(function*() {
            const seen: Array<number> = []
            for (let i = 0; i < 200; i++) {
              seen.push(yield* clock.nowMillis)
              yield* Effect.yieldNow()
            }
            return seen
          }))
        const mover = control === undefined ? Effect.void : Effect.repeatN(Effect.zipRight(control.advance(7), Effect.yieldNow()), 300)
        const [series] = yield* Effect.all([Effect.all(Array.from({ length: 8 }, () => reader), { concurrency: "unbounded" }), mover], {
          concurrency: "unbounded"
        }).pipe(Effect.provide(layer))
        series.forEach(expectNonDecreasing)
      }))

    it.scoped("layers of one clock read the same time", () =>
      Effect.gen(function*() {
        const { layer } = yield* adapter.fresh
        const a = yield* Effect.provide(Effect.flatMap(Clock, (c) => c.nowMillis), layer)
        const b = yield* Effect.provide(Effect.flatMap(Clock, (c) => c.nowMillis), layer)
        expect(b).toBeGreaterThanOrEqual(a)
      }))

    if (!adapter.controllable) return

    it.scoped("a controllable clock stands still, moves when told, and goes back only when set back", () =>
      Effect.gen(function*() {
        const instance = yield* adapter.fresh
        const { layer } = instance
        const control = controlOf(instance)
        yield* Effect.gen(function*() {
          const clock = yield* Clock
          yield* control.set(1_700_000_000_000)
          expect(yield* clock.nowMillis).toBe(1_700_000_000_000)
          expect(yield* clock.nowMillis).toBe(1_700_000_000_000)
          yield* control.advance(1)
          expect(yield* clock.nowMillis).toBe(1_700_000_000_001)
          yield* control.advance(0)
          expect(yield* clock.nowMillis).toBe(1_700_000_000_001)
          yield* control.advance(86_400_000)
          expect(yield* clock.nowMillis).toBe(1_700_086_400_001)
          // Setting back is the explicit exception to "never goes back".
          yield* control.set(5)
          expect(yield* clock.nowMillis).toBe(5)
          yield* control.set(0)
          expect(yield* clock.nowMillis).toBe(0)
          yield* control.set(Number.MAX_SAFE_INTEGER)
          expect(yield* clock.nowMillis).toBe(Number.MAX_SAFE_INTEGER)
        }).pipe(Effect.provide(layer))
      }))

    it.scoped("a controllable clock refuses times the port cannot hold, and keeps its time", () =>
      Effect.gen(function*() {
        const instance = yield* adapter.fresh
        const { layer } = instance
        const control = controlOf(instance)
        yield* Effect.gen(function*() {
          const clock = yield* Clock
          yield* control.set(1_000)
          for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
            expect((yield* Effect.exit(control.set(bad)))._tag).toBe("Failure")
          }
          for (const bad of [-1, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER]) {
            expect((yield* Effect.exit(control.advance(bad)))._tag).toBe("Failure")
          }
          expect(yield* clock.nowMillis).toBe(1_000)
        }).pipe(Effect.provide(layer))
      }))
  })
}
