// The projection store (issue 12, "Projections in an indexed store"): what the log's leaves
// establish, kept in indexed tables instead of process memory, and read through queries
// that page. The leaves are the truth; the store is a fold of a prefix of them and says
// which: `folded` is the number of leaves it has folded (the index of the next leaf to
// fold). It is never ahead of the durable log, because the app folds only leaves it has
// read back from the log store, and each fold step is one atomic `commit` that writes the
// changed rows and moves `folded` together: after a crash the store holds exactly the fold
// of its first `folded` leaves, and a start folds only the tail after it.
//
// It holds the whole state of the log, split as domain/write/stateAreas.ts says: the names
// (docs/spec/profile.md section 5: each claimed name's record and key events, the
// directory's claim order and its search by a part of the name); the rows of the map areas
// (keys, chain heads, grants, posts' metadata, polls, capsules, SUP accounts...); the lists
// (each key's envelopes, a channel's posts, an inbox...), appended to and read by page; the
// activity rows, also indexed by when each agent last wrote (/online); and the resident
// parts (governance, tasks, counters), which the app holds whole and reads back at start. The app loads the slice a step needs (`rows`), the
// pure rules fold it (domain/write/stateSlice.ts), and `commit` writes what changed.
//
// Contract (test/ports/ProjectionStore.contract.ts):
//   - an empty store has folded 0, no last leaf and no names;
//   - commit({ from, upTo, lastLeaf, names }) applies only when from equals folded: it
//     upserts the records, sets folded to upTo and the last leaf's hash, all or nothing, and
//     answers true; when from is not
//     folded it changes nothing and answers false (another writer folded those leaves, or
//     the caller's view of the store is stale): folding is idempotent across processes;
//   - names(list) answers the records of the listed names that are claimed, events in order;
//   - rows(keys) answers the stored rows of the keys (names included), those that exist;
//   - resident answers the resident parts last committed (the empty ones for a new store);
//   - list(area, key, page) answers a list's elements newest first, before a position when
//     given, at most `limit`, with the list's length;
//   - recentActivity(since, limit) answers the activity rows logged at or after `since`,
//     newest first (latest logged, then highest index), at most `limit`, and how many there
//     are, from one commit;
//   - directory pages names in claim order after `after` (a claim index, exclusive), only
//     names containing `part` when given, at most `limit`, and says whether more match;
//   - recoveryNames(kid, { from, limit }) answers the names whose claim named `kid` as their
//     recovery key, claimed at or after `from` (a claim index, inclusive), claim order, at
//     most `limit`, from an index on the recovery key (its cost is the page, not the names);
//   - retained(walk) answers where one of retention's walks stands (0 for a new store),
//     retain(walk, position) records a position there and never moves it back (two
//     nodes' turns may end in either order); each walk's position is its own;
//   - rowKeys(area, { after, limit }) answers the keys of the area's rows after `after`, in
//     order, at most `limit` (deleted rows gone);
//   - reset empties the store (folded 0, no last leaf, both walks at 0): the start of a rebuild;
//   - a durable adapter answers the same after a reopen.

import type { Effect } from "effect"
import { Context } from "effect"
import type { RecoveryClaim } from "../domain/identity/bindings.js"
import type { RecentActivity } from "../domain/telemetry/activity.js"
import type { NameRecord } from "../domain/write/logState.js"
import type { ListAreaName, MapAreaName } from "../domain/write/stateAreas.js"
import type { RowKey } from "../domain/write/stateReads.js"
import type { LoadedRows, ResidentState, StateChanges } from "../domain/write/stateSlice.js"
import type { StorageError } from "./StorageError.js"

/** The map areas whose rows rowKeys lists: all but `activity`, which has a table of its own. */
export type KeyedRowArea = Exclude<MapAreaName, "activity">

/** Retention's walks (app/BodyLedger.ts): the ciphertext as it comes due, the tombstones as they are logged. */
export type RetentionWalk = "ciphertexts" | "tombstones"

/** One page of the directory: the records without their events, claim order. */
export interface DirectoryPage {
  readonly names: ReadonlyArray<Omit<NameRecord, "events">>
  /** Whether more names match after the last one. */
  readonly truncated: boolean
}

export interface DirectorySearch {
  /** Only names containing this (already in normal form); every name when undefined. */
  readonly part?: string | undefined
  /** Only names claimed after this leaf index. */
  readonly after?: number | undefined
  readonly limit: number
}

/** The rows one fold step changes, and the leaves it covers: [from, upTo). */
export interface ProjectionCommit {
  readonly from: number
  readonly upTo: number
  /** The leaf hash of leaf upTo - 1: which log the store is a fold of (checked at start). */
  readonly lastLeaf: Uint8Array
  /** What the leaves changed (domain/write/stateSlice.ts changesOf). */
  readonly changes: StateChanges
}

/** A page of a list, newest first. */
export interface ListPage {
  /** Elements with their positions (0 is the first appended), newest first. */
  readonly elements: ReadonlyArray<{ readonly n: number; readonly value: unknown }>
  /** Elements the list holds in all. */
  readonly length: number
}

export interface ListQuery {
  /** Only elements at positions below this one. */
  readonly before?: number | undefined
  readonly limit: number
}

export class ProjectionStore extends Context.Tag("aics/ProjectionStore")<ProjectionStore, {
  /** Leaves folded: the index of the next leaf to fold. */
  readonly folded: Effect.Effect<number, StorageError>
  /** The leaf hash of the last leaf folded (leaf folded - 1), or null when none is. */
  readonly lastLeaf: Effect.Effect<Uint8Array | null, StorageError>
  /** Applies one fold step iff `from` is folded; answers whether it did. */
  readonly commit: (step: ProjectionCommit) => Effect.Effect<boolean, StorageError>
  /** The records of the listed names that are claimed (the slice a fold step starts from). */
  readonly names: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, NameRecord>, StorageError>
  readonly directory: (search: DirectorySearch) => Effect.Effect<DirectoryPage, StorageError>
  /**
   * The names whose claim named `kid` as their recovery key (the key view, docs/protocol.md
   * 10.3), claimed at or after `from`, in claim order, at most `limit`.
   */
  readonly recoveryNames: (kid: string, query: { readonly from: number; readonly limit: number }) => Effect.Effect<ReadonlyArray<RecoveryClaim>, StorageError>
  /** The stored rows of these keys (names too), those that exist. */
  readonly rows: (keys: ReadonlyArray<RowKey>) => Effect.Effect<LoadedRows, StorageError>
  /**
   * The agents whose latest public leaf (the activity rows) was logged at or after `since`
   * (Unix ms), newest first, at most `limit`, and how many there are: read from an index on
   * (logged, index), so the cost is the window's agents, not every agent.
   */
  readonly recentActivity: (since: number, limit: number) => Effect.Effect<RecentActivity, StorageError>
  /** The resident parts as last committed. */
  readonly resident: Effect.Effect<ResidentState, StorageError>
  /** A page of one list, newest first. */
  readonly list: (area: ListAreaName, key: string, query: ListQuery) => Effect.Effect<ListPage, StorageError>
  /**
   * The keys of an area's non-empty lists after `after` (all when undefined), in the store's
   * order of text (code points; on PostgreSQL the database's collation), at most `limit`:
   * one index seek each, so a few of them cost the same at any size.
   */
  readonly listKeys: (area: ListAreaName, query: { readonly after?: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<string>, StorageError>
  /**
   * The keys of a map area's rows after `after` (all when undefined), in the same order of
   * text as listKeys, at most `limit`: one range of the rows' primary key. What walks a
   * whole area (an auditor's sample of every key, client/auditPlan.ts) reads it a page at a time.
   */
  readonly rowKeys: (area: KeyedRowArea, query: { readonly after?: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<string>, StorageError>
  /**
   * Where one of retention's walks stands (app/BodyLedger.ts): for `ciphertexts` the
   * position in the `ciphertexts` list below which every ciphertext has been decided (its
   * bytes deleted, or kept for an entry that names them later); for `tombstones` the leaf
   * index below which every tombstone's body has been decided. Beside `folded`, so a
   * restart or the node that sequences next goes on from there instead of walking the log
   * again.
   */
  readonly retained: (walk: RetentionWalk) => Effect.Effect<number, StorageError>
  /** Records that the walk has decided everything below `position`; never moves it back. */
  readonly retain: (walk: RetentionWalk, position: number) => Effect.Effect<void, StorageError>
  /** Empties the store: folded 0, no rows, both walks at 0. */
  readonly reset: Effect.Effect<void, StorageError>
}>() {}
