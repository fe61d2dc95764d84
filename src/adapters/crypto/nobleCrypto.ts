// @noble implementation of the Crypto port: pure JavaScript, the portable client's choice
// (browsers, Deno, any Node), and an independent second implementation that the agreement
// property test holds equal to node:crypto.
//
// Verification uses noble's default ZIP-215 rules (cofactored equation, permissive point
// decoding), not its strict RFC 8032 mode. OpenSSL, behind node:crypto, accepts small-order
// and non-canonically encoded public keys and checks the cofactorless equation, which
// implies the cofactored one; so every signature node:crypto accepts, this accepts too, and
// an auditor using @noble never rejects a leaf the server verified with node:crypto. The
// reverse does not hold for crafted signatures (mixed-order keys, non-canonical R), which
// no honest signer produces.

import { ed25519 } from "@noble/curves/ed25519.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { Effect, Layer } from "effect"
import type { CryptoPrimitives } from "../../domain/crypto.js"
import { Crypto } from "../../ports/Crypto.js"

export const nobleCrypto: CryptoPrimitives = {
  sha256: (data) => sha256(data),
  ed25519: {
    publicKey: (seed) => {
      if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes")
      return ed25519.getPublicKey(seed)
    },
    sign: (seed, message) => {
      if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes")
      return ed25519.sign(message, seed)
    },
    verify: (publicKey, message, signature) => {
      // noble throws on wrong lengths; the port promises false, never an exception.
      if (publicKey.length !== 32 || signature.length !== 64) return false
      try {
        return ed25519.verify(signature, message, publicKey)
      } catch {
        return false
      }
    }
  }
}

export const NobleCryptoLive = Layer.succeed(Crypto, {
  ...nobleCrypto,
  // Pure JavaScript has no pool to run on: it signs in place.
  signInBackground: (seed, message) => Effect.sync(() => nobleCrypto.ed25519.sign(seed, message))
})
