// Off-leaf bodies (post text, DM and capsule ciphertext, documents), addressed by their
// SHA-256. A leaf names a body by hash and size; the body lives here, so it can be hidden
// by a tombstone or dropped when it expires while the leaf stays. One copy per digest,
// however many leaves name it: a remove deletes the bytes for all of them, so retention
// removes only bytes that no leaf still needs (domain/bodyRetention.ts, app/BodyLedger.ts).
//
// Contract (test/ports/BodyStore.contract.ts): put is durable when it succeeds and is
// idempotent for the same digest; put refuses a body whose SHA-256 is not its digest (a
// store that serves bytes under a hash must never serve other bytes under it); get returns
// exactly the bytes put; has answers whether get would find the body, without reading it;
// remove is durable and idempotent.

import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export interface StoredBody {
  /** SHA-256 of the bytes. */
  readonly digest: Uint8Array
  readonly bytes: Uint8Array
}

export class BodyStore extends Context.Tag("aics/BodyStore")<BodyStore, {
  /** Durably stores the bodies (one batch, one durability point). */
  readonly put: (bodies: ReadonlyArray<StoredBody>) => Effect.Effect<void, StorageError>
  readonly get: (digest: Uint8Array) => Effect.Effect<Option.Option<Uint8Array>, StorageError>
  /**
   * Whether the body is stored (get would answer it), without reading its bytes: a body
   * status needs only that, and a document may be 1 MiB (GET /v2/entries/{index}).
   */
  readonly has: (digest: Uint8Array) => Effect.Effect<boolean, StorageError>
  /** Durably deletes a body (retention expiry), whoever named it; the leaves that named it stay. */
  readonly remove: (digest: Uint8Array) => Effect.Effect<void, StorageError>
}>() {}
