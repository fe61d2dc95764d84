// FsLogStore's findLeaf index on disk: a SQLite file beside the log's files (leafFinder.ts
// says when it is written and why it can always be rebuilt). One row per leaf, (first 8
// bytes of the leaf hash as a signed 64-bit integer, leaf index), in a WITHOUT ROWID table
// keyed by both, so a lookup is one B-tree descent and the rows of one prefix come out in
// leaf order; and one number, `indexed`: the rows of leaves [0, indexed) are all there.
// Rows and `indexed` move in one transaction, so whatever a crash keeps of the file, its
// `indexed` never claims a row it lacks. Rows at or beyond `indexed` (a count cut back by
// hand or clamped to a shorter log) are never answered: lookups ask below a bound.
//
// Pragmas as state.db's (SqliteProjectionStore.ts): exclusive locking before WAL, so the
// WAL index lives in this process's memory and an existing file opens on a full disk
// without writing; synchronous=NORMAL, so a commit is not fsynced: losing the last commits
// to a power cut only moves `indexed` back, and the next open indexes that tail again.
// SQLite's page cache is its default (about 2 MiB), whatever the size of the log.

import { rename } from "node:fs/promises"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Cause, Context, Effect, ExecutionStrategy, Exit, Layer, Scope } from "effect"
import type { Hash } from "../../domain/tlog/hasher.js"
import { StorageError } from "../../ports/StorageError.js"
import { ROWS_PER_INSERT, runsOf } from "../projection/nameRows.js"
import { isDamaged, sqliteErrors } from "../sqlite/sqliteErrors.js"

/** The sidecar's name in the log's folder. */
export const LEAF_INDEX_FILE = "leaf-index.db"

const SCHEMA = [
  "PRAGMA locking_mode = EXCLUSIVE",
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL",
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

const { describe, storage, transact } = sqliteErrors(LEAF_INDEX_FILE)

/** The first 8 bytes of a leaf hash, big-endian, as SQLite's signed 64-bit INTEGER. */
export const leafPrefix = (leafHash: Hash): bigint =>
  new DataView(leafHash.buffer, leafHash.byteOffset, 8).getBigInt64(0)

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

const sidecarOn = (sql: SqlClient.SqlClient): LeafSidecar => {
  const indexed = sql<{ indexed: number }>`SELECT indexed FROM leaf_index_meta`.pipe(
    Effect.map((rows) => rows[0]!.indexed),
    storage("read the leaf index")
  )
  return {
    indexed,
    candidates: (prefix, below) =>
      sql<{ leaf: number }>`SELECT leaf FROM leaf_prefixes WHERE prefix = ${prefix} AND leaf < ${below} ORDER BY leaf`.pipe(
        Effect.map((rows) => rows.map((row) => row.leaf)),
        storage("read the leaf index")
      ),
    holds: (prefix, leaf) =>
      sql`SELECT 1 FROM leaf_prefixes WHERE prefix = ${prefix} AND leaf = ${leaf}`.pipe(
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

/** Opens the file in `scope` (closed with it) and reads it once, so a damaged file fails here. */
const openIn = (filename: string, scope: Scope.Scope) =>
  Effect.gen(function*() {
    // WAL is set by SCHEMA, after the locking mode, not by the client as it opens.
    const context = yield* Layer.buildWithScope(SqliteClient.layer({ filename, disableWAL: true }), scope)
    const sql = Context.get(context, SqlClient.SqlClient)
    yield* Effect.forEach(SCHEMA, (statement) => sql.unsafe(statement), { discard: true })
    const sidecar = sidecarOn(sql)
    yield* sidecar.indexed
    return sidecar
  })

/**
 * Why an open sidecar must not be used (it belongs to another log, say), or undefined to
 * use it.
 */
export type SidecarCheck = (sidecar: LeafSidecar) => Effect.Effect<string | undefined, StorageError>

/**
 * The sidecar `filename`, created when missing. A file that is damaged (not a database,
 * corrupt pages) or that `check` refuses is moved aside with a loud log line and a new,
 * empty one takes its place: it is only a cache of the log, which rebuilds it.
 */
export const openLeafSidecar = (filename: string, check: SidecarCheck): Effect.Effect<LeafSidecar, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    const attemptOpen = Effect.gen(function*() {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const exit = yield* Effect.exit(Effect.flatMap(openIn(filename, scope), (sidecar) =>
        Effect.map(check(sidecar), (refused) => ({ sidecar, refused }))))
      if (Exit.isSuccess(exit) && exit.value.refused === undefined) return { sidecar: exit.value.sidecar }
      yield* Scope.close(scope, Exit.void)
      if (Exit.isSuccess(exit)) return { refused: exit.value.refused! }
      const error = Cause.squash(exit.cause)
      if (isDamaged(error)) return { refused: `damaged (${describe(error)})` }
      return yield* Effect.fail(error instanceof StorageError ? error : new StorageError({ operation: `open ${LEAF_INDEX_FILE}`, detail: describe(error), cause: error }))
    })
    const first = yield* attemptOpen
    if (first.sidecar !== undefined) return first.sidecar
    const aside = `${filename}.damaged-${Date.now()}`
    yield* Effect.logError(`${LEAF_INDEX_FILE} cannot be used: ${first.refused}; moved to ${aside}, the leaf index is rebuilt from the log's hashes file`)
    for (const suffix of ["", "-wal", "-shm"]) {
      yield* Effect.tryPromise(() => rename(`${filename}${suffix}`, `${aside}${suffix}`)).pipe(Effect.ignore)
    }
    const second = yield* attemptOpen
    if (second.sidecar !== undefined) return second.sidecar
    return yield* new StorageError({ operation: `open ${LEAF_INDEX_FILE}`, detail: `a new leaf index cannot be used either: ${second.refused}` })
  })
