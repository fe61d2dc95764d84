// The StatsStore contract (src/ports/StatsStore.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { StatsStore, type StatsCounters } from "../../src/ports/StatsStore.js"

export interface StatsStoreUnderTest {
  /** A new, empty store and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<StatsStore, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withStore = <A, E>(layer: Layer.Layer<StatsStore, unknown>, use: (s: typeof StatsStore.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(StatsStore, use).pipe(Effect.provide(layer)))

/** The counters in key order, as a comparison needs them (adapters load in any order). */
export const sorted = (counters: StatsCounters) => [...counters].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

const A = "2026-03-01 program entries ok le_50"
const B = "2026-03-01 browser forum ok le_100"
const OLD = "2025-02-28 program tlog ok le_50"

export const statsStoreContract = (name: string, adapter: StatsStoreUnderTest): void => {
  describe(`StatsStore contract: ${name}`, () => {
    it.scoped("loads nothing when empty, then the sum of the adds, without the dropped counters", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.load).toEqual([])
          yield* store.add([[A, 3], [OLD, 2]], [])
          yield* store.add([[A, 4], [B, 1]], [])
          expect(sorted(yield* store.load)).toEqual(sorted([[A, 7], [B, 1], [OLD, 2]]))
          yield* store.add([[B, 2]], [OLD, "never counted"])
          expect(sorted(yield* store.load)).toEqual(sorted([[A, 7], [B, 3]]))
          yield* store.add([], [])
          expect(sorted(yield* store.load)).toEqual(sorted([[A, 7], [B, 3]]))
        }))
      }))

    if (adapter.durable) {
      it.scoped("keeps the counters across reopens", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withStore(layer, (store) => store.add([["2026-03-01 program tlog ok le_50", 7]], []))
          yield* withStore(layer, (store) => store.add([["2026-03-01 program tlog ok le_50", 1]], []))
          expect(yield* withStore(layer, (store) => store.load)).toEqual([["2026-03-01 program tlog ok le_50", 8]])
        }))
    }
  })
}
