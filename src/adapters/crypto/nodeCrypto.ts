// node:crypto implementation of the Crypto port (nodeCryptoPrimitives.ts), with the
// receipts' signatures on libuv's thread pool.

import { sign } from "node:crypto"
import { Effect, Layer } from "effect"
import { Crypto } from "../../ports/Crypto.js"
import { nodeCrypto, privateKeyOf } from "./nodeCryptoPrimitives.js"

export { nodeCrypto }

/** Ed25519 signing on libuv's thread pool (node:crypto's sign with a callback). */
const signInBackground = (seed: Uint8Array, message: Uint8Array) =>
  Effect.async<Uint8Array>((resume) => {
    if (seed.length !== 32) return resume(Effect.die(new RangeError("an Ed25519 seed is 32 bytes")))
    sign(null, message, privateKeyOf(seed), (error, signature) =>
      resume(error === null ? Effect.succeed(new Uint8Array(signature)) : Effect.die(error)))
  })

export const NodeCryptoLive = Layer.succeed(Crypto, { ...nodeCrypto, signInBackground })
