// The replay store of the RFC 9421 profile (docs/spec/profile.md section 6): a (keyid, nonce) pair
// is accepted once and remembered until the signature's expires + 300 s.
//
// Contract (test/ports/NonceStore.contract.ts): remember answers true the first time a
// pair is seen and false while it is remembered; after `until` has passed it may be
// forgotten (and then accepted again); concurrent calls for one pair answer true once.

import type { Effect } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export class NonceStore extends Context.Tag("aics/NonceStore")<NonceStore, {
  /** True when the pair is new (and now remembered until `until`, Unix seconds). */
  readonly remember: (keyid: string, nonce: string, until: number, now: number) => Effect.Effect<boolean, StorageError>
}>() {}
