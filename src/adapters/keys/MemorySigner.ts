// The Signer port from two seeds held in memory, for tests and tools that need the
// service's keys without a data directory (FileKeys.ts is the service's own adapter).
// Signing goes through the Crypto port, so the same seeds give the same keys and
// signatures under node:crypto and @noble.

import { Effect, Layer } from "effect"
import { equal } from "../../domain/bytes.js"
import { Crypto } from "../../ports/Crypto.js"
import { Signer, type SigningKey } from "../../ports/Signer.js"

export interface SignerSeeds {
  /** 32-byte Ed25519 seed of the log key. */
  readonly log: Uint8Array
  /** 32-byte Ed25519 seed of the policy key; must differ from the log seed. */
  readonly policy: Uint8Array
}

export const MemorySignerLive = (seeds: SignerSeeds): Layer.Layer<Signer, never, Crypto> => {
  // Copied now, so a caller reusing its buffers cannot change the keys behind the signer.
  const log = seeds.log.slice()
  const policy = seeds.policy.slice()
  return Layer.effect(Signer, Effect.gen(function*() {
    const { ed25519 } = yield* Crypto
    // One key in both roles would let a checkpoint signature pass for a policy signature;
    // the port promises two keys, so equal seeds are a programming error.
    if (equal(log, policy)) return yield* Effect.dieMessage("MemorySigner: the log and policy seeds are equal")
    // A seed that is not 32 bytes makes ed25519.publicKey throw: a defect too.
    const signingKey = (seed: Uint8Array): SigningKey => ({
      publicKey: ed25519.publicKey(seed),
      sign: (message) => Effect.sync(() => ed25519.sign(seed, message))
    })
    return { log: signingKey(log), policy: signingKey(policy) }
  }))
}
