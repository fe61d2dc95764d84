// The KeptCheckpoint contract (src/ports/KeptCheckpoint.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, Option, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { utf8 } from "../../src/domain/bytes.js"
import { KeptCheckpoint } from "../../src/ports/KeptCheckpoint.js"

export interface KeptCheckpointUnderTest {
  readonly fresh: Effect.Effect<Layer.Layer<KeptCheckpoint, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withStore = <A, E>(layer: Layer.Layer<KeptCheckpoint, unknown>, use: (s: typeof KeptCheckpoint.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(KeptCheckpoint, use).pipe(Effect.provide(layer)))

const note = (size: number) => utf8(`example.org/aics\n${size}\nroot\n\n— example.org/aics sig${size}\n`)

export const keptCheckpointContract = (name: string, adapter: KeptCheckpointUnderTest): void => {
  describe(`KeptCheckpoint contract: ${name}`, () => {
    it.scoped("answers none until a note is kept, then the last note kept, whole", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(Option.isNone(yield* store.read)).toBe(true)
          yield* store.keep(note(5))
          expect(Option.getOrThrow(yield* store.read)).toEqual(note(5))
          // A longer note, then a shorter one: each replaces the one before whole.
          yield* store.keep(note(12345))
          yield* store.keep(note(6))
          expect(Option.getOrThrow(yield* store.read)).toEqual(note(6))
        }))
        if (adapter.durable) {
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(Option.getOrThrow(yield* store.read)).toEqual(note(6))
          }))
        }
      }))
  })
}
