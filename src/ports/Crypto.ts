// SHA-256 and Ed25519 for everything above the domain. The service is synchronous
// functions, not effects: they are pure computations on the hot path (every leaf, every
// interior node, two signature checks per write), and the domain takes them as arguments.
// Adapters: node:crypto (server, fast) and @noble (portable); a property test keeps them equal.

import type { Effect } from "effect"
import { Context } from "effect"
import type { CryptoPrimitives } from "../domain/crypto.js"

export interface CryptoService extends CryptoPrimitives {
  /**
   * The Ed25519 signature of the message, computed off the event loop where the adapter can
   * (node:crypto: on libuv's thread pool). The service signs a receipt for every write: on
   * the event loop that was ~40 µs of its busiest thread per write, on the pool it runs on
   * the other core. Same bytes as `ed25519.sign`.
   */
  readonly signInBackground: (seed: Uint8Array, message: Uint8Array) => Effect.Effect<Uint8Array>
}

export class Crypto extends Context.Tag("aics/Crypto")<Crypto, CryptoService>() {}
