// The service's two private keys (docs/spec/profile.md section 2): the log key signs checkpoints
// and receipts, the policy key signs service-authored leaves and the assurance card.
// The owner key never lives in the service process, so it is not here.

import type { Effect } from "effect"
import { Context } from "effect"

export interface SigningKey {
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array
  /** Ed25519 signature of the message. */
  readonly sign: (message: Uint8Array) => Effect.Effect<Uint8Array>
}

export class Signer extends Context.Tag("aics/Signer")<Signer, {
  readonly log: SigningKey
  readonly policy: SigningKey
}>() {}
