// A hand-driven wall clock for tests of retention, expiry and signature lifetimes: it
// stands still until a test moves it. This is the AICS Clock port (src/ports/Clock.ts),
// not Effect's TestClock, which drives Effect's own Clock and sleeps; the two never mix.
//
// Every layer built from one ManualClock reads the same time, so a test can hand the
// layer to the code under test and keep set/advance for itself.

import { Effect, Layer } from "effect"
import { Clock } from "../../ports/Clock.js"

export interface ManualClock {
  /** The Clock port, reading this clock's current time. */
  readonly layer: Layer.Layer<Clock>
  /** Moves the clock to a time, back as well as forward: the only way time goes back. */
  readonly set: (millis: number) => Effect.Effect<void>
  /** Moves the clock forward; a negative step is a defect, since real time never goes back by itself. */
  readonly advance: (millis: number) => Effect.Effect<void>
  /** The current time, for assertions outside an effect. */
  readonly peek: () => number
}

// Same range as the port promises: Unix milliseconds that are safe integers, never negative.
const checkTime = (millis: number): number => {
  if (!Number.isSafeInteger(millis) || millis < 0) throw new RangeError(`not a Unix time in milliseconds: ${millis}`)
  return millis
}

export const makeTestClock = (startMillis: number): ManualClock => {
  let now = checkTime(startMillis)
  return {
    layer: Layer.succeed(Clock, { nowMillis: Effect.sync(() => now) }),
    set: (millis) => Effect.sync(() => { now = checkTime(millis) }),
    advance: (millis) =>
      Effect.sync(() => {
        if (!Number.isSafeInteger(millis) || millis < 0) throw new RangeError(`advance takes a whole, non-negative step: ${millis}`)
        now = checkTime(now + millis)
      }),
    peek: () => now
  }
}
