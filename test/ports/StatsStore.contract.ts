// The StatsStore contract (src/ports/StatsStore.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { StatsStore } from "../../src/ports/StatsStore.js"

export interface StatsStoreUnderTest {
  /** A new, empty store and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<StatsStore, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withStore = <A, E>(layer: Layer.Layer<StatsStore, unknown>, use: (s: typeof StatsStore.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(StatsStore, use).pipe(Effect.provide(layer)))

export const statsStoreContract = (name: string, adapter: StatsStoreUnderTest): void => {
  describe(`StatsStore contract: ${name}`, () => {
    it.scoped("loads nothing when empty, then exactly the last save", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.load).toEqual([])
          yield* store.save([["2026-03-01 program entries ok le_50", 3], ["2026-03-01 browser forum ok le_100", 1]])
          yield* store.save([["2026-03-01 program entries ok le_50", 4]])
          expect(yield* store.load).toEqual([["2026-03-01 program entries ok le_50", 4]])
        }))
      }))

    if (adapter.durable) {
      it.scoped("keeps the last save across reopens", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withStore(layer, (store) => store.save([["2026-03-01 program tlog ok le_50", 7]]))
          expect(yield* withStore(layer, (store) => store.load)).toEqual([["2026-03-01 program tlog ok le_50", 7]])
        }))
    }
  })
}
