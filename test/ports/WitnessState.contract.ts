// The WitnessState contract (src/ports/WitnessState.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { WitnessState, type WitnessRecord } from "../../src/ports/WitnessState.js"

export interface WitnessStateUnderTest {
  /** A new, empty store and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<WitnessState, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withState = <A, E>(layer: Layer.Layer<WitnessState, unknown>, use: (s: typeof WitnessState.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(WitnessState, use).pipe(Effect.provide(layer)))

const record = (size: number, tag = 0): WitnessRecord => ({
  size,
  rootHash: new Uint8Array(32).fill(size + tag),
  note: new TextEncoder().encode(`example.com/log\n${size}\n(note ${tag})\n\n— sig\n`)
})

export const witnessStateContract = (name: string, adapter: WitnessStateUnderTest): void => {
  describe(`WitnessState contract: ${name}`, () => {
    it.scoped("advances from the stored size only, each origin on its own", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withState(layer, (state) => Effect.gen(function*() {
          expect(yield* state.read("example.com/log")).toBeUndefined()
          expect(yield* state.advance("example.com/log", 3, record(5))).toBe(false)
          expect(yield* state.advance("example.com/log", 0, record(5))).toBe(true)
          expect(yield* state.advance("example.com/log", 0, record(9))).toBe(false)
          expect(yield* state.advance("example.com/log", 5, record(9))).toBe(true)
          expect(yield* state.advance("example.com/log", 9, record(9, 1))).toBe(true)
          expect(yield* state.read("example.com/log")).toEqual(record(9, 1))
          expect(yield* state.read("other.example/log")).toBeUndefined()
          expect(yield* state.advance("other.example/log", 0, record(0))).toBe(true)
          expect(yield* state.advance("other.example/log", 0, record(2))).toBe(true)
          expect(yield* state.read("other.example/log")).toEqual(record(2))
        }))
        if (adapter.durable) {
          yield* withState(layer, (state) => Effect.gen(function*() {
            expect(yield* state.read("example.com/log")).toEqual(record(9, 1))
            expect(yield* state.advance("example.com/log", 5, record(12))).toBe(false)
          }))
        }
      }))

    it.scoped("lets exactly one of concurrent advances from one size through", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withState(layer, (state) => Effect.gen(function*() {
          yield* state.advance("example.com/log", 0, record(4))
          const answers = yield* Effect.forEach([5, 6, 7, 8, 9, 10], (n) => state.advance("example.com/log", 4, record(n)), { concurrency: "unbounded" })
          expect(answers.filter((a) => a)).toHaveLength(1)
          expect((yield* state.read("example.com/log"))?.size).toBe(5 + answers.indexOf(true))
        }))
      }))
  })
}
