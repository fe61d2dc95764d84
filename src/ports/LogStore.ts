// The log itself: leaves (entry bytes) and the stored hashes of storedHash.ts, both
// addressed by position. It is the source of truth; tiles are published from it.
//
// Contract (test/ports/LogStore.contract.ts, run against every adapter):
// - append(start, leaves, fence) succeeds only when start equals the committed size, and
//   only after every leaf and hash of the batch is durable; on failure nothing of the batch
//   is visible after a reopen beyond a prefix of whole leaves.
// - the append is fenced by the sequencing lease (LeaseFence.ts; docs/operations.md, "The
//   log's appends"): only the lease holder appends, with its lease's fence. A store that
//   several processes share (PgLogStore) appends only while no later lease exists, in a way
//   ordered against the next holder taking its fence, and otherwise fails with
//   LeaseSuperseded having written nothing: a holder deposed without noticing cannot add a
//   leaf after its successor took over (a leaf that could name bytes the successor's
//   retention just deleted). A store of one process (memory, files) is appended to by that
//   process's sequencer alone, whose lease is never lost to another process, so it takes
//   the fence without checking it: the port is one shape for all.
// - a reopen after a crash exposes a prefix of the appended leaves that includes every
//   batch whose append succeeded, with exactly storedHashCount(size) hashes.
// - reads beyond the committed size fail; findLeaf answers the first index with that hash.
// - readEntryAndHashes answers what readEntries(index, index + 1) and readHashes(hashes)
//   answer, and fails where either would: one read of a store that is a round trip away
//   (PgLogStore), both reads in turn elsewhere (readEntryAndHashesInTurn). A store that
//   shares its database with the body store (PgLogStore) may also answer, in that read, the
//   body the leaf was appended naming (AppendedLeaf.body): whether the body store holds it
//   now, and its bytes when it rides; any other leaves `body` undefined and the caller asks
//   the BodyStore.

import type { Option } from "effect"
import { Context, Effect } from "effect"
import type { Hash } from "../domain/tlog/hasher.js"
import type { LeaseFence, LeaseSuperseded } from "./LeaseFence.js"
import type { StorageError } from "./StorageError.js"

/** The off-leaf body an entry names (domain/bodyReference.ts), as the leaf's store may keep it. */
export interface NamedBody {
  /** SHA-256 of the body. */
  readonly digest: Uint8Array
  /** Whether it rides in the entry's wire bundle. */
  readonly rides: boolean
}

export interface AppendedLeaf {
  /** The entry bytes (docs/spec/profile.md section 4), at most 65,535 bytes. */
  readonly bytes: Uint8Array
  /** The stored hashes this leaf adds: its leaf hash, then the subtree roots it completes. */
  readonly hashes: ReadonlyArray<Hash>
  /** The body the entry names, if any: a store may keep its digest beside the leaf. */
  readonly body?: NamedBody | undefined
}

/** What the body store holds now of the body a leaf names. */
export interface BodyBesideLeaf {
  readonly stored: boolean
  /** The bytes, when stored and the body rides in the bundle. */
  readonly bytes: Uint8Array | undefined
}

export interface EntryAndHashes {
  readonly entry: Uint8Array
  readonly hashes: ReadonlyArray<Hash>
  /** The named body, when this store can tell in the same read; else undefined (ask the BodyStore). */
  readonly body?: BodyBesideLeaf | undefined
}

export class LogStore extends Context.Tag("aics/LogStore")<LogStore, {
  /** Number of committed leaves. */
  readonly size: Effect.Effect<number, StorageError>
  /**
   * Durably appends leaves at positions start, start+1, ... (start must be the size), unless
   * a lease later than `fence` exists: then it appends nothing and fails with LeaseSuperseded.
   */
  readonly append: (
    start: number,
    leaves: ReadonlyArray<AppendedLeaf>,
    fence: LeaseFence
  ) => Effect.Effect<void, StorageError | LeaseSuperseded>
  /** Entry bytes of leaves [from, to). */
  readonly readEntries: (from: number, to: number) => Effect.Effect<ReadonlyArray<Uint8Array>, StorageError>
  /** Stored hashes at the given stored-hash positions, in the order asked. */
  readonly readHashes: (indexes: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<Hash>, StorageError>
  /**
   * The entry bytes of leaf `index` and the stored hashes at `hashes` (in the order asked):
   * what an entry's bundle needs (its leaf and the proof's hashes no cache holds).
   */
  readonly readEntryAndHashes: (index: number, hashes: ReadonlyArray<number>) => Effect.Effect<EntryAndHashes, StorageError>
  /** Stored hashes at positions [from, to): what the publisher reads for new leaves. */
  readonly readHashRange: (from: number, to: number) => Effect.Effect<ReadonlyArray<Hash>, StorageError>
  /** Index of the first leaf whose RFC 6962 leaf hash is the given one. */
  readonly findLeaf: (leafHash: Hash) => Effect.Effect<Option.Option<number>, StorageError>
}>() {}

/** readEntryAndHashes as two reads, for a store whose reads cost no round trip (files, memory). */
export const readEntryAndHashesInTurn = (
  store: Pick<Context.Tag.Service<LogStore>, "readEntries" | "readHashes">
) =>
(index: number, hashes: ReadonlyArray<number>): Effect.Effect<EntryAndHashes, StorageError> =>
  Effect.zipWith(
    store.readEntries(index, index + 1),
    // Every hash cached (LogReader.entryWithProof): the leaf alone, no read of the hashes.
    hashes.length === 0 ? Effect.succeed<ReadonlyArray<Hash>>([]) : store.readHashes(hashes),
    ([entry], read) => ({ entry: entry!, hashes: read }))
