// The ReadCursors contract (src/ports/ReadCursors.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { ReadCursors } from "../../src/ports/ReadCursors.js"

export interface ReadCursorsUnderTest {
  /** A new, empty store and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<ReadCursors, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withCursors = <A, E>(layer: Layer.Layer<ReadCursors, unknown>, use: (c: typeof ReadCursors.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(ReadCursors, use).pipe(Effect.provide(layer)))

export const readCursorsContract = (name: string, adapter: ReadCursorsUnderTest): void => {
  describe(`ReadCursors contract: ${name}`, () => {
    it.scoped("starts at -1 and only moves forward", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withCursors(layer, (cursors) => Effect.gen(function*() {
          expect(yield* cursors.get("did:key:zA")).toBe(-1)
          yield* cursors.advance("did:key:zA", 5)
          yield* cursors.advance("did:key:zA", 3)
          yield* cursors.advance("did:key:zB", 0)
          expect(yield* cursors.get("did:key:zA")).toBe(5)
          expect(yield* cursors.get("did:key:zB")).toBe(0)
          expect(yield* cursors.get("did:key:zC")).toBe(-1)
        }))
      }))

    if (adapter.durable) {
      it.scoped("keeps every cursor across reopens, also after compaction", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withCursors(layer, (cursors) => Effect.gen(function*() {
            for (let i = 0; i < 600; i++) yield* cursors.advance(`did:key:z${i % 7}`, i)
          }))
          yield* withCursors(layer, (cursors) => Effect.gen(function*() {
            for (let k = 0; k < 7; k++) expect(yield* cursors.get(`did:key:z${k}`)).toBe(599 - ((599 - k) % 7))
            yield* cursors.advance("did:key:z0", 1000)
          }))
          yield* withCursors(layer, (cursors) => Effect.gen(function*() {
            expect(yield* cursors.get("did:key:z0")).toBe(1000)
          }))
        }))
    }
  })
}
