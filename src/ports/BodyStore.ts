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
// remove under the current lease's fence deletes the whole batch, durably and idempotently.
//
// Removal is fenced by the sequencing lease (LeaseFence.ts; docs/operations.md, "Retention"):
// only the lease holder deletes, between its batches, and it hands its lease's fence to each
// remove. A store that several processes share (PgBodyStore) deletes only while no later
// lease exists, in a way ordered against the next holder taking its fence, and answers
// "superseded" otherwise, having deleted nothing: every put the next holder makes then
// stores its bytes again. A store of one process (memory, files) is written by that
// process's sequencer alone, whose own lock already keeps its batches and its retention
// apart (Sequencer.betweenBatches), whichever lease they run under; and its lease is never
// lost to another process. So it takes the fence without checking it: the port is one
// shape for all.

import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { LeaseFence } from "./LeaseFence.js"
import type { StorageError } from "./StorageError.js"

export interface StoredBody {
  /** SHA-256 of the bytes. */
  readonly digest: Uint8Array
  readonly bytes: Uint8Array
}

/**
 * What opening found missing from a store's files (docs/operations.md "Damage found at
 * start"): records its own index describes that its bodies file no longer holds whole, so
 * the store serves every other body and these not. Only a store with files can find one.
 */
export interface BodyShortfall {
  /** The file found short, relative to the data folder (it is shown on /healthz). */
  readonly file: string
  /** Its length as found. */
  readonly heldBytes: number
  /** The length its index describes. */
  readonly describedBytes: number
  /** Bodies whose records were synced before the last records written: lost for certain. */
  readonly synced: ReadonlyArray<Uint8Array>
  /**
   * Bodies of the last records written, which a crash may have cut before their put was
   * answered; lost only if the log names them (a leaf names a body only once it is durable).
   */
  readonly unsynced: ReadonlyArray<Uint8Array>
}

/** What a remove did: deleted the batch, or nothing because a later lease exists. */
export type RemoveOutcome = "removed" | "superseded"

export class BodyStore extends Context.Tag("aics/BodyStore")<BodyStore, {
  /** Durably stores the bodies (one batch, one durability point). */
  readonly put: (bodies: ReadonlyArray<StoredBody>) => Effect.Effect<void, StorageError>
  readonly get: (digest: Uint8Array) => Effect.Effect<Option.Option<Uint8Array>, StorageError>
  /**
   * get of each digest, in order (a digest asked twice is answered twice), in one lookup:
   * a page of fifty posts asks for fifty bodies, and fifty lookups cost the event loop
   * about half of the page's time (bench/README.md, "A page's bodies in one lookup").
   */
  readonly getMany: (digests: ReadonlyArray<Uint8Array>) => Effect.Effect<ReadonlyArray<Option.Option<Uint8Array>>, StorageError>
  /**
   * Whether the body is stored (get would answer it), without reading its bytes: a body
   * status needs only that, and a document may be 1 MiB (GET /v2/entries/{index}).
   */
  readonly has: (digest: Uint8Array) => Effect.Effect<boolean, StorageError>
  /**
   * Durably deletes the bodies (retention expiry), whoever named them, in one durability
   * point, unless a lease later than `fence` exists; the leaves that named them stay.
   */
  readonly remove: (digests: ReadonlyArray<Uint8Array>, fence: LeaseFence) => Effect.Effect<RemoveOutcome, StorageError>
  /** What this store found missing when it opened, if anything (app/BodyShortfall.ts reports it). */
  readonly shortfallAtOpen: BodyShortfall | undefined
}>() {}
