// A deterministic Entropy for reproducible tests: the same seed always yields the same
// bytes. Never for production keys or nonces. The stream is SHA-256 in counter mode,
// block i = SHA-256(seed || i as 8 bytes big-endian), through the Crypto port, read as one
// continuous stream: the bytes depend only on the seed and the position, not on how the
// reads were split (randomBytes(16) twice gives what randomBytes(32) once gives).
//
// Each build of the layer starts the stream again from position 0.

import { Effect, Layer } from "effect"
import { concat, uint32BE, utf8 } from "../../domain/bytes.js"
import { Crypto } from "../../ports/Crypto.js"
import { Entropy } from "../../ports/Entropy.js"

const counterBytes = (counter: number): Uint8Array =>
  concat(uint32BE(Math.floor(counter / 2 ** 32)), uint32BE(counter >>> 0))

/** A string seed stands for its UTF-8 bytes. */
export const SeededEntropyLive = (seed: Uint8Array | string): Layer.Layer<Entropy, never, Crypto> => {
  // Copied now, so a caller reusing its buffer cannot change the stream of a later build.
  const key = typeof seed === "string" ? utf8(seed) : seed.slice()
  return Layer.effect(Entropy, Effect.gen(function*() {
    const { sha256 } = yield* Crypto
    let counter = 0
    let block: Uint8Array = new Uint8Array(0)
    let used = 0
    return {
      randomBytes: (length) =>
        Effect.sync(() => {
          if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`randomBytes takes a byte count: ${length}`)
          const out = new Uint8Array(length)
          let filled = 0
          while (filled < length) {
            if (used === block.length) {
              block = sha256(concat(key, counterBytes(counter++)))
              used = 0
            }
            const take = Math.min(length - filled, block.length - used)
            out.set(block.subarray(used, used + take), filled)
            filled += take
            used += take
          }
          return out
        })
    }
  }))
}
