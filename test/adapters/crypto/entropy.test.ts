import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { NobleCryptoLive } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { NodeEntropyLive } from "../../../src/adapters/crypto/nodeEntropy.js"
import { SeededEntropyLive } from "../../../src/adapters/crypto/seededEntropy.js"
import { concat, toHex, uint32BE, utf8 } from "../../../src/domain/bytes.js"
import { Entropy } from "../../../src/ports/Entropy.js"
import { entropyContract } from "../../ports/Entropy.contract.js"

entropyContract("NodeEntropy", { fresh: Effect.succeed(NodeEntropyLive), kind: "random" })
entropyContract("SeededEntropy", {
  fresh: Effect.succeed(SeededEntropyLive(utf8("contract seed")).pipe(Layer.provide(NodeCryptoLive))),
  kind: "deterministic"
})

const read = (layer: Layer.Layer<Entropy>, lengths: ReadonlyArray<number>) =>
  Effect.flatMap(Entropy, (entropy) => Effect.forEach(lengths, (n) => entropy.randomBytes(n))).pipe(
    Effect.map((parts) => toHex(concat(...parts))),
    Effect.provide(layer)
  )

describe("SeededEntropy", () => {
  const seeded = (seed: Uint8Array | string) => SeededEntropyLive(seed).pipe(Layer.provide(NodeCryptoLive))

  it.effect("is SHA-256(seed || 64-bit big-endian counter), block after block", () =>
    Effect.gen(function*() {
      const seed = utf8("abc")
      const block = (i: number) => toHex(nodeCrypto.sha256(concat(seed, uint32BE(0), uint32BE(i))))
      expect(yield* read(seeded(seed), [80])).toBe((block(0) + block(1) + block(2)).slice(0, 160))
    }))

  it.effect("depends on the position in the stream, not on how reads are split", () =>
    Effect.gen(function*() {
      const whole = yield* read(seeded("split"), [200])
      expect(yield* read(seeded("split"), [16, 16, 1, 0, 31, 100, 36])).toBe(whole)
      expect(yield* read(seeded("split"), Array.from({ length: 200 }, () => 1))).toBe(whole)
    }))

  it.effect("different seeds give different streams; a string seed is its UTF-8 bytes", () =>
    Effect.gen(function*() {
      expect(yield* read(seeded("a"), [64])).not.toBe(yield* read(seeded("b"), [64]))
      expect(yield* read(seeded("seed"), [64])).toBe(yield* read(seeded(utf8("seed")), [64]))
    }))

  it.effect("is the same stream under both Crypto adapters", () =>
    Effect.gen(function*() {
      const viaNoble = SeededEntropyLive("agree").pipe(Layer.provide(NobleCryptoLive))
      expect(yield* read(viaNoble, [1000])).toBe(yield* read(seeded("agree"), [1000]))
    }))

  it.effect("keeps its own copy of the seed", () =>
    Effect.gen(function*() {
      const seed = utf8("mutable seed")
      const expected = yield* read(seeded(seed), [64])
      const layer = seeded(seed)
      seed.fill(0)
      expect(yield* read(layer, [64])).toBe(expected)
    }))

  it.effect("refuses a length that is not a byte count", () =>
    Effect.gen(function*() {
      for (const bad of [-1, 1.5, Number.NaN]) {
        const exit = yield* Effect.exit(Effect.flatMap(Entropy, (e) => e.randomBytes(bad)).pipe(Effect.provide(seeded("x"))))
        expect(exit._tag).toBe("Failure")
      }
    }))
})
