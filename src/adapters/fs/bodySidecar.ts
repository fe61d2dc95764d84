// FsBodyStore's index on disk: a SQLite file, `body-index.db`, beside `bodies` and `index`
// (bodyIndex.ts says when it is written and why it can always be rebuilt). One row per
// stored body, (first 8 bytes of the digest as a signed 64-bit integer, offset of its put
// record in `bodies`, length of the body), in a WITHOUT ROWID table keyed by (prefix,
// offset): a lookup is one B-tree descent, and a removal deletes exactly the row of the
// put record it names. And, in one meta row, `indexed`: records [0, indexed) of the
// `index` file, puts and removals in order, are applied (a put inserted its row, a removal
// deleted its target's), with `last_entry`, the 44 index-file bytes of record indexed-1,
// by which an open tells this store's sidecar from another's or from one of older files.
// Rows and the meta row move in one transaction, so whatever a crash keeps of the file is
// the state after some prefix of the records.
//
// Unlike the log's leaf index (leafSidecar.ts) its rows are not only added: a sidecar that
// claims more records than the files hold may lack the row of a body those files still
// hold (its removal came later), so it cannot be clamped to a shorter store; bodyIndex.ts
// empties it instead. Opening and damage are handled as for the leaf index (sqliteSidecar.ts).

import type { Scope } from "effect"
import { Effect } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { ROWS_PER_INSERT, runsOf } from "../projection/nameRows.js"
import type { SqliteConnection } from "../sqlite/sqliteConnection.js"
import { sqliteErrors } from "../sqlite/sqliteErrors.js"
import type { IndexEntry } from "./bodyLayout.js"
import type { BodyLocation } from "./bodyTable.js"
import { keyPrefix, openSqliteSidecar, type SidecarCheck } from "./sqliteSidecar.js"

/** The sidecar's name in the body store's folder. */
export const BODY_INDEX_FILE = "body-index.db"

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS body_index_meta (
    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
    indexed INTEGER NOT NULL CHECK (indexed >= 0),
    last_entry BLOB
  )`,
  "INSERT OR IGNORE INTO body_index_meta (only_row, indexed, last_entry) VALUES (1, 0, NULL)",
  `CREATE TABLE IF NOT EXISTS body_locations (
    prefix INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL,
    PRIMARY KEY (prefix, offset)
  ) WITHOUT ROWID`
]

const { storage, transact } = sqliteErrors(BODY_INDEX_FILE)

/** The first 8 bytes of a digest, big-endian, as SQLite's signed 64-bit INTEGER. */
export const bodyPrefix = (digest: Uint8Array): bigint => keyPrefix(digest)

export interface BodyIndexMeta {
  /** How many records of the `index` file, from the first, are applied. */
  readonly indexed: number
  /** The index-file bytes of record indexed-1 (none when indexed is 0). */
  readonly lastEntry: Uint8Array | undefined
}

export interface BodySidecar {
  readonly meta: Effect.Effect<BodyIndexMeta, StorageError>
  /**
   * Where the put records of the bodies whose digest has each of these prefixes are, by the
   * prefix's decimal text (one prepared statement a run of prefixes: a put asks for its
   * whole batch at once, a page of posts for its fifty bodies).
   */
  readonly candidates: (prefixes: ReadonlyArray<bigint>) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<BodyLocation>>, StorageError>
  /** Whether the row (prefix, offset) is there: the put record at `offset` is live. */
  readonly holds: (prefix: bigint, offset: number) => Effect.Effect<boolean, StorageError>
  /** Rows: bodies stored in the records applied. */
  readonly count: Effect.Effect<number, StorageError>
  /**
   * Applies records from, from+1, ... (their index entries, in order) and moves `indexed`
   * past them, with `lastEntry` the index-file bytes of the last, in one transaction; fails,
   * writing nothing, unless `indexed` is `from`.
   */
  readonly record: (from: number, entries: ReadonlyArray<IndexEntry>, lastEntry: Uint8Array) => Effect.Effect<void, StorageError>
  /** Forgets every row and sets `indexed` to 0 (a sidecar ahead of the files). */
  readonly clear: Effect.Effect<void, StorageError>
}

const sidecarOn = ({ sql, preparedRead, preparedReadIn }: SqliteConnection): BodySidecar => {
  // Reads are prepared reads (sqliteConnection.ts): the lookup is on every read of a body.
  // As text: better-sqlite3 reads an INTEGER as a number, which loses a prefix's low bits.
  const locationsIn = preparedReadIn<{ prefix: string; offset: number; length: number }>((list) =>
    `SELECT CAST(prefix AS TEXT) AS prefix, offset, length FROM body_locations WHERE prefix IN (${list})`)
  const metaRow = preparedRead<{ indexed: number; last_entry: Uint8Array | null }>("SELECT indexed, last_entry FROM body_index_meta")
  const heldRow = preparedRead("SELECT 1 FROM body_locations WHERE prefix = ? AND offset = ?")
  const rowCount = preparedRead<{ rows: number }>("SELECT count(*) AS rows FROM body_locations")
  return {
    meta: metaRow([]).pipe(
      Effect.map(([row]) => ({ indexed: row!.indexed, lastEntry: row!.last_entry === null ? undefined : new Uint8Array(row!.last_entry) })),
      storage("read the body index")
    ),
    candidates: (prefixes) =>
      locationsIn([], prefixes).pipe(
        Effect.map((rows) => {
          const found = new Map<string, Array<BodyLocation>>()
          for (const row of rows) {
            const locations = found.get(row.prefix) ?? []
            locations.push({ offset: row.offset, length: row.length })
            found.set(row.prefix, locations)
          }
          return found as ReadonlyMap<string, ReadonlyArray<BodyLocation>>
        }),
        storage("read the body index")
      ),
    holds: (prefix, offset) =>
      heldRow([prefix, offset]).pipe(
        Effect.map((rows) => rows.length > 0),
        storage("read the body index")
      ),
    count: rowCount([]).pipe(
      Effect.map(([row]) => row!.rows),
      storage("read the body index")
    ),
    record: (from, entries, lastEntry) =>
      transact(sql, "index bodies", Effect.gen(function*() {
        const [meta] = yield* sql<{ indexed: number }>`SELECT indexed FROM body_index_meta`
        if (meta!.indexed !== from) {
          return yield* new StorageError({ operation: "index bodies", detail: `${BODY_INDEX_FILE} holds ${meta!.indexed} records, not ${from}` })
        }
        // Every insert before every delete: a removal names an earlier put, in the table
        // already or among these. In key order, so they walk the B-tree forward.
        const byKey = (a: { prefix: bigint; offset: number }, b: { prefix: bigint; offset: number }) =>
          a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : a.offset - b.offset
        const puts = entries.flatMap((entry) => (entry.kind === "put" ? [{ prefix: bodyPrefix(entry.digest), offset: entry.offset, length: entry.length }] : []))
          .sort(byKey)
        const removals = entries.flatMap((entry) => (entry.kind === "removal" ? [{ prefix: bodyPrefix(entry.digest), offset: entry.target }] : []))
          .sort(byKey)
        // OR REPLACE: a row of these records may be there already, left by an older sidecar
        // that `clear` or a crash did not reach; the record is the truth.
        for (const run of runsOf(puts, ROWS_PER_INSERT)) yield* sql`INSERT OR REPLACE INTO body_locations ${sql.insert(run)}`
        for (const run of runsOf(removals, ROWS_PER_INSERT)) {
          yield* sql.unsafe(
            `DELETE FROM body_locations WHERE (prefix, offset) IN (VALUES ${run.map(() => "(?, ?)").join(", ")})`,
            run.flatMap((row) => [row.prefix, row.offset])
          )
        }
        yield* sql`UPDATE body_index_meta SET indexed = ${from + entries.length}, last_entry = ${Buffer.from(lastEntry)}`
      })),
    clear: transact(sql, "clear the body index", Effect.gen(function*() {
      yield* sql`DELETE FROM body_locations`
      yield* sql`UPDATE body_index_meta SET indexed = 0, last_entry = NULL`
    }))
  }
}

/**
 * The sidecar `filename`, created when missing; a damaged one, or one `check` refuses, is
 * moved aside loudly and a new, empty one takes its place (sqliteSidecar.ts).
 */
export const openBodySidecar = (filename: string, check: SidecarCheck<BodySidecar>): Effect.Effect<BodySidecar, StorageError, Scope.Scope> =>
  openSqliteSidecar(filename, {
    name: BODY_INDEX_FILE,
    schema: SCHEMA,
    make: sidecarOn,
    probe: (sidecar) => sidecar.meta,
    rebuiltFrom: "the body store's index file"
  }, check)
