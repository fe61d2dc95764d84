// The owner's public key (docs/spec/profile.md section 2). The owner governs through signed, logged
// operations; the service holds only this public identity, never the private key.

import { Context } from "effect"

export class OwnerKey extends Context.Tag("aics/OwnerKey")<OwnerKey, {
  /** did:key of the owner key that leaf 0 names. */
  readonly kid: string
}>() {}
