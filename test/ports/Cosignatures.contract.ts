// The Cosignatures contract (src/ports/Cosignatures.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { Cosignatures, type CollectedCosignature } from "../../src/ports/Cosignatures.js"

export interface CosignaturesUnderTest {
  readonly fresh: Effect.Effect<Layer.Layer<Cosignatures, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withStore = <A, E>(layer: Layer.Layer<Cosignatures, unknown>, use: (s: typeof Cosignatures.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(Cosignatures, use).pipe(Effect.provide(layer)))

const cosignature = (witness: string, size: number): CollectedCosignature =>
  ({ witness, size, line: `— ${witness.split("+")[0]} line-${size}\n`, timestamp: 1_800_000_000 + size })

const sorted = (list: ReadonlyArray<CollectedCosignature>) => [...list].sort((a, b) => a.witness.localeCompare(b.witness))

export const cosignaturesContract = (name: string, adapter: CosignaturesUnderTest): void => {
  describe(`Cosignatures contract: ${name}`, () => {
    it.scoped("keeps each witness's cosignature of the largest size", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.list).toEqual([])
          yield* store.record(cosignature("a.example/w+00000001+BA", 5))
          yield* store.record(cosignature("b.example/w+00000002+BA", 3))
          yield* store.record(cosignature("a.example/w+00000001+BA", 4))
          expect(sorted(yield* store.list)).toEqual([cosignature("a.example/w+00000001+BA", 5), cosignature("b.example/w+00000002+BA", 3)])
          yield* store.record(cosignature("a.example/w+00000001+BA", 8))
          yield* store.record({ ...cosignature("b.example/w+00000002+BA", 3), timestamp: 1 })
          expect(sorted(yield* store.list)).toEqual([cosignature("a.example/w+00000001+BA", 8), { ...cosignature("b.example/w+00000002+BA", 3), timestamp: 1 }])
        }))
        if (adapter.durable) {
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(sorted(yield* store.list).map((c) => c.size)).toEqual([8, 3])
          }))
        }
      }))
  })
}
