// The database's distance (src/adapters/pg/databaseDistance.ts): the fastest of the last
// WINDOW round trips timed, so one slow answer of a busy server raises no bound, a farther
// database raises them once a window of its answers is in, a nearer one lowers them at its
// first answer; the floors stay.

import { it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { describe, expect } from "vitest"
import { ANSWER_ROUND_TRIPS, distanceOf, SETUP_ROUND_TRIPS, WINDOW } from "../../../src/adapters/pg/databaseDistance.js"

const millis = (effect: Effect.Effect<Duration.Duration>) => Effect.map(effect, Duration.toMillis)

describe("the database's distance", () => {
  it.effect("follows the fastest of the recent round trips, above the floors", () =>
    Effect.gen(function*() {
      // The open's statements: a near database.
      const distance = yield* distanceOf(Array.from({ length: WINDOW }, (_, i) => Duration.millis(i === 2 ? 1 : 2)))
      expect(yield* millis(distance.roundTrip)).toBe(1)
      expect(yield* millis(distance.setup("1500 millis"))).toBe(1_500)
      expect(yield* millis(distance.answer("1500 millis"))).toBe(1_500)

      // One slow answer (a busy server) raises nothing.
      yield* distance.timed(Duration.millis(900))
      expect(yield* millis(distance.roundTrip)).toBe(1)
      yield* distance.timed(Duration.millis(2))

      // Farther (a failover to another region): raised once the window holds only its answers.
      for (let i = 0; i < WINDOW - 1; i++) yield* distance.timed(Duration.millis(350 + i))
      expect(yield* millis(distance.roundTrip)).toBe(2)
      yield* distance.timed(Duration.millis(360))
      expect(yield* millis(distance.roundTrip)).toBe(350)
      expect(yield* millis(distance.setup("1500 millis"))).toBe(350 * SETUP_ROUND_TRIPS)
      expect(yield* millis(distance.answer("1 second"))).toBe(350 * ANSWER_ROUND_TRIPS)

      // Nearer again: lowered at its first answer, down to the floors.
      yield* distance.timed(Duration.millis(2))
      expect(yield* millis(distance.roundTrip)).toBe(2)
      expect(yield* millis(distance.setup("1500 millis"))).toBe(1_500)
    }))
})
