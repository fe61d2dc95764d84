// FsLogStore's findLeaf index on disk: a SQLite file beside the log's files (leafFinder.ts
// says when it is written and why it can always be rebuilt). One row per leaf, (first 8
// bytes of the leaf hash as a signed 64-bit integer, leaf index), in a WITHOUT ROWID table
// keyed by both, so a lookup is one B-tree descent and the rows of one prefix come out in
// leaf order; and one number, `indexed`: the rows of leaves [0, indexed) are all there.
// Rows and `indexed` move in one transaction, so whatever a crash keeps of the file, its
// `indexed` never claims a row it lacks. Rows at or beyond `indexed` (a count cut back by
// hand or clamped to a shorter log) are never answered: lookups ask below a bound.
//
// How it is opened, and what is done when it cannot be used, is shared with the body
// store's index (sqliteSidecar.ts).

import type { Scope } from "effect"
import { Effect } from "effect"
import type { Hash } from "../../domain/tlog/hasher.js"
import { StorageError } from "../../ports/StorageError.js"
import { ROWS_PER_INSERT, runsOf } from "../projection/nameRows.js"
import type { SqliteConnection } from "../sqlite/sqliteConnection.js"
import { sqliteErrors } from "../sqlite/sqliteErrors.js"
import { keyPrefix, openSqliteSidecar, type SidecarCheck } from "./sqliteSidecar.js"

/** The sidecar's name in the log's folder. */
export const LEAF_INDEX_FILE = "leaf-index.db"

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS leaf_index_meta (
    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
    indexed INTEGER NOT NULL CHECK (indexed >= 0)
  )`,
  "INSERT OR IGNORE INTO leaf_index_meta (only_row, indexed) VALUES (1, 0)",
  `CREATE TABLE IF NOT EXISTS leaf_prefixes (
    prefix INTEGER NOT NULL,
    leaf INTEGER NOT NULL,
    PRIMARY KEY (prefix, leaf)
  ) WITHOUT ROWID`
]

const { storage, transact } = sqliteErrors(LEAF_INDEX_FILE)

/** The first 8 bytes of a leaf hash, big-endian, as SQLite's signed 64-bit INTEGER. */
export const leafPrefix = (leafHash: Hash): bigint => keyPrefix(leafHash)

export interface LeafSidecar {
  /** How many leaves, from the first, the table holds. */
  readonly indexed: Effect.Effect<number, StorageError>
  /** Leaves below `below` whose hash has this prefix, ascending. */
  readonly candidates: (prefix: bigint, below: number) => Effect.Effect<ReadonlyArray<number>, StorageError>
  /** Whether the row (prefix, leaf) is there. */
  readonly holds: (prefix: bigint, leaf: number) => Effect.Effect<boolean, StorageError>
  /**
   * Adds the leaves from, from+1, ... with these leaf hashes and moves `indexed` past them,
   * in one transaction; fails, writing nothing, unless `indexed` is `from`.
   */
  readonly record: (from: number, leafHashes: ReadonlyArray<Hash>) => Effect.Effect<void, StorageError>
  /** Lowers `indexed` to `size` if it is above (the log is the truth: never trusted beyond it). */
  readonly clamp: (size: number) => Effect.Effect<void, StorageError>
}

const sidecarOn = ({ sql, preparedRead }: SqliteConnection): LeafSidecar => {
  // Reads are prepared reads (sqliteConnection.ts), as the body index's (bodySidecar.ts).
  const leavesOf = preparedRead<{ leaf: number }>("SELECT leaf FROM leaf_prefixes WHERE prefix = ? AND leaf < ? ORDER BY leaf")
  const heldRow = preparedRead("SELECT 1 FROM leaf_prefixes WHERE prefix = ? AND leaf = ?")
  const indexed = preparedRead<{ indexed: number }>("SELECT indexed FROM leaf_index_meta")([]).pipe(
    Effect.map((rows) => rows[0]!.indexed),
    storage("read the leaf index")
  )
  return {
    indexed,
    candidates: (prefix, below) =>
      leavesOf([prefix, below]).pipe(
        Effect.map((rows) => rows.map((row) => row.leaf)),
        storage("read the leaf index")
      ),
    holds: (prefix, leaf) =>
      heldRow([prefix, leaf]).pipe(
        Effect.map((rows) => rows.length > 0),
        storage("read the leaf index")
      ),
    record: (from, leafHashes) =>
      transact(sql, "index leaves", Effect.gen(function*() {
        const [meta] = yield* sql<{ indexed: number }>`SELECT indexed FROM leaf_index_meta`
        if (meta!.indexed !== from) {
          return yield* new StorageError({ operation: "index leaves", detail: `${LEAF_INDEX_FILE} holds ${meta!.indexed} leaves, not ${from}` })
        }
        // In key order, so the inserts walk the B-tree forward instead of jumping about it.
        const rows = leafHashes.map((hash, i) => ({ prefix: leafPrefix(hash), leaf: from + i }))
          .sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : a.leaf - b.leaf))
        // OR IGNORE: rows at or beyond `indexed` may already be there (see the header).
        for (const run of runsOf(rows, ROWS_PER_INSERT)) yield* sql`INSERT OR IGNORE INTO leaf_prefixes ${sql.insert(run)}`
        yield* sql`UPDATE leaf_index_meta SET indexed = ${from + leafHashes.length}`
      })),
    clamp: (size) =>
      sql`UPDATE leaf_index_meta SET indexed = ${size} WHERE indexed > ${size}`.pipe(storage("clamp the leaf index"))
  }
}

/**
 * The sidecar `filename`, created when missing; a damaged one, or one `check` refuses, is
 * moved aside loudly and a new, empty one takes its place (sqliteSidecar.ts).
 */
export const openLeafSidecar = (filename: string, check: SidecarCheck<LeafSidecar>): Effect.Effect<LeafSidecar, StorageError, Scope.Scope> =>
  openSqliteSidecar(filename, {
    name: LEAF_INDEX_FILE,
    schema: SCHEMA,
    make: sidecarOn,
    probe: (sidecar) => sidecar.indexed,
    rebuiltFrom: "the log's hashes file"
  }, check)
