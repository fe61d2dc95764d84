// The Entropy contract (src/ports/Entropy.ts): randomBytes answers exactly the bytes asked
// for, in a buffer of its own, and successive reads do not repeat. A random adapter also
// differs between instances; a seeded one (src/adapters/crypto/seededEntropy.ts) instead
// repeats itself exactly from the same seed, which is its reason to exist.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { toHex } from "../../src/domain/bytes.js"
import { Entropy } from "../../src/ports/Entropy.js"

export interface EntropyUnderTest {
  /** A new source. Two fresh deterministic sources are seeded alike. */
  readonly fresh: Effect.Effect<Layer.Layer<Entropy>, unknown, Scope.Scope>
  readonly kind: "random" | "deterministic"
}

const LENGTHS = [0, 1, 2, 16, 31, 32, 33, 64, 1000, 65_536] as const

/** The hex of successive reads of these lengths from one new source. */
const readSeries = (layer: Layer.Layer<Entropy>, lengths: ReadonlyArray<number>) =>
  Effect.flatMap(Entropy, (entropy) => Effect.forEach(lengths, (length) => Effect.map(entropy.randomBytes(length), toHex))).pipe(
    Effect.provide(layer)
  )

export const entropyContract = (name: string, adapter: EntropyUnderTest): void => {
  describe(`Entropy contract: ${name}`, () => {
    it.scoped("answers exactly the number of bytes asked for", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* Effect.gen(function*() {
          const entropy = yield* Entropy
          for (const length of LENGTHS) {
            const bytes = yield* entropy.randomBytes(length)
            expect(bytes).toBeInstanceOf(Uint8Array)
            expect(bytes.length).toBe(length)
            expect(bytes.byteLength).toBe(length)
          }
        }).pipe(Effect.provide(layer))
      }))

    it.scoped("gives each caller its own buffer", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* Effect.gen(function*() {
          const entropy = yield* Entropy
          const a = yield* entropy.randomBytes(32)
          const copy = toHex(a)
          const b = yield* entropy.randomBytes(32)
          b.fill(0)
          expect(toHex(a)).toBe(copy)
          expect(a.buffer).not.toBe(b.buffer)
        }).pipe(Effect.provide(layer))
      }))

    it.scoped("successive reads differ, and are not all zero", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const series = yield* readSeries(layer, Array.from({ length: 200 }, () => 16))
        expect(new Set(series).size).toBe(series.length)
        expect(series).not.toContain("00".repeat(16))
      }))

    it.scoped("looks uniform: every byte value shows up in 64 KiB", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const bytes = yield* Effect.flatMap(Entropy, (entropy) => entropy.randomBytes(65_536)).pipe(Effect.provide(layer))
        const counts = new Array<number>(256).fill(0)
        for (const b of bytes) counts[b]!++
        // Expected 256 each; these bounds are over 10 standard deviations away.
        for (const count of counts) {
          expect(count).toBeGreaterThan(100)
          expect(count).toBeLessThan(420)
        }
      }))

    if (adapter.kind === "random") {
      it.scoped("two sources differ", () =>
        Effect.gen(function*() {
          const a = yield* readSeries(yield* adapter.fresh, [32, 32])
          const b = yield* readSeries(yield* adapter.fresh, [32, 32])
          expect(a).not.toEqual(b)
        }))
    } else {
      it.scoped("two sources from one seed repeat each other exactly", () =>
        Effect.gen(function*() {
          const lengths = [32, 0, 1, 100, 7, 4096]
          const a = yield* readSeries(yield* adapter.fresh, lengths)
          const b = yield* readSeries(yield* adapter.fresh, lengths)
          expect(b).toEqual(a)
          // And so does a rebuild of one layer: the stream starts again from its seed.
          const layer = yield* adapter.fresh
          expect(yield* readSeries(layer, lengths)).toEqual(a)
          expect(yield* readSeries(layer, lengths)).toEqual(a)
        }))
    }
  })
}
