// The projection store on SQLite (`<data dir>/state.db`), the embedded default
// (src/ports/ProjectionStore.ts). One file, one connection (sqliteConnection.ts: better-sqlite3
// is synchronous; @effect/sql's client serialises the statements of this process on it, and
// the point lookups are prepared reads beside it).
//
// Durability: WAL journal (with exclusive locking: see SCHEMA), synchronous=NORMAL. A commit is atomic (one transaction moves
// the rows and `folded` together), and with WAL a crash keeps the database consistent but
// may lose the last transactions if the machine loses power before the WAL is synced.
// That is enough here, and FULL would buy nothing: the store only ever folds leaves that
// are already durable in the log, so losing its last commits only moves `folded` back, to
// a state that is still exactly the fold of its first `folded` leaves, and the next start
// folds them again.
//
// Search (issue 12, "Search that is indexed"): names_fts is an FTS5 table with the trigram
// tokenizer whose rowid is the name's claim index, so a part of three characters or more is
// answered from the trigram index, in claim order (FTS5 walks its rowids in order and stops
// at the limit). A part of two characters is in a name exactly when one of the name's
// trigrams begins or ends with it (names have three characters or more, docs/spec/profile.md
// section 2), so it is answered from the same index as the OR of those trigrams over the
// names' alphabet. A part of one character is answered by walking the names in claim order
// and stopping at the limit, quick exactly when it matches many names.
//
// A state.db that cannot be opened or read (damaged, not a database) is moved aside, with a
// loud log line, and a new one is created: the app then rebuilds it from the log (app
// Projection.ts). The file is only a cache of the log; nothing is lost.

import { rename } from "node:fs/promises"
import { Cause, Effect, Layer, Option } from "effect"
import { ServiceHalt } from "../../app/ServiceHalt.js"
import type { StateRow } from "../../domain/write/stateSlice.js"
import { ProjectionStore } from "../../ports/ProjectionStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { DIRECTORY_COLUMNS, directoryFields, type NameRow, recordOfRow, ROWS_PER_INSERT, rowOfRecord, runsOf } from "../projection/nameRows.js"
import { stateOfJson } from "../projection/stateJson.js"
import { ACTIVITY_AREA, ACTIVITY_MINUTE_MS, activityMinute, appendedLists, appendRows, keysByArea, keysBySeek, KEYS_PER_SELECT, listId, recentOfRows, RESIDENT_AREA, residentOfRows, RETENTION_AREA, retentionKey, rowWrites, type StoredRow } from "../projection/stateRows.js"
import { openSqliteConnection, type SqliteConnection } from "./sqliteConnection.js"
import { isDamaged, sqliteErrors } from "./sqliteErrors.js"

const SCHEMA = [
  // Exclusive locking before WAL is first used: the WAL index then lives in this process's
  // memory, with no `state.db-shm` file to create and fill, so the store opens on a full
  // disk (issue 13 item 13) as long as opening writes nothing. One process uses the file
  // (the filesystem storage is one process's), so the lock costs nothing.
  "PRAGMA locking_mode = EXCLUSIVE",
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL",
  // 8 MiB of page cache (SQLite's default is 2 MiB): the B-trees' upper pages and the rows
  // of active keys stay in memory, a fixed amount whatever the file's size; what misses it
  // is read from the kernel's page cache. At 3,000,000 entries a 32 MiB cache held 25 MiB
  // more of the process for no less CPU a write (1.26-1.29 against 1.23-1.25 ms, bench/README.md
  // "Session 32"), and 128 MiB bought nothing either ("Session 11").
  "PRAGMA cache_size = -8192",
  // A checkpoint after 10,000 pages of WAL (40 MiB; SQLite's default is 1,000): a checkpoint
  // copies each page once however often the commits since the last one rewrote it, and the
  // batches' commits rewrite the same B-tree pages. state.db's COMMITs took 28% less of the
  // main thread on bench/write (bench/README.md "Session 16"); the WAL file keeps its
  // largest size, and a start reads it to rebuild the WAL index.
  "PRAGMA wal_autocheckpoint = 10000",
  `CREATE TABLE IF NOT EXISTS projection_meta (
    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
    folded INTEGER NOT NULL CHECK (folded >= 0),
    last_leaf BLOB
  )`,
  "INSERT OR IGNORE INTO projection_meta (only_row, folded) VALUES (1, 0)",
  `CREATE TABLE IF NOT EXISTS names (
    name TEXT PRIMARY KEY,
    claim_index INTEGER NOT NULL UNIQUE,
    tier TEXT NOT NULL,
    kid TEXT NOT NULL,
    kid_index INTEGER NOT NULL,
    x25519 TEXT NOT NULL,
    x25519_index INTEGER,
    recovery TEXT,
    events TEXT NOT NULL
  ) WITHOUT ROWID`,
  "CREATE VIRTUAL TABLE IF NOT EXISTS names_fts USING fts5(name, tokenize = 'trigram')",
  // The names whose claim named a key as recovery key, in claim order (the key view,
  // ProjectionStore.recoveryNames); the primary key (name) rides along, so the index alone
  // answers. A state.db of an earlier version has the rows already: the open builds it.
  "CREATE INDEX IF NOT EXISTS names_by_recovery ON names (recovery, claim_index) WHERE recovery IS NOT NULL",
  `CREATE TABLE IF NOT EXISTS state_rows (
    area TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (area, key)
  ) WITHOUT ROWID`,
  // The row area `activity` (projection/stateRows.ts), and /online's agents of a window
  // (ProjectionStore.recentActivity) from the index on when and at which leaf each last wrote.
  `CREATE TABLE IF NOT EXISTS activity (
    actor TEXT PRIMARY KEY,
    logged INTEGER NOT NULL,
    leaf INTEGER NOT NULL,
    value TEXT NOT NULL
  ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS activity_recent ON activity (logged, leaf)",
  // How many activity rows fall in each minute (projection/stateRows.ts ACTIVITY_MINUTE_MS),
  // for /online's count. A state.db of an earlier version has none: see MINUTES_FROM_ACTIVITY.
  `CREATE TABLE IF NOT EXISTS activity_minutes (
    minute INTEGER PRIMARY KEY,
    agents INTEGER NOT NULL
  ) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS state_lists (
    area TEXT NOT NULL,
    key TEXT NOT NULL,
    n INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (area, key, n)
  ) WITHOUT ROWID`
]

/**
 * The minutes' counts of a state.db of an earlier version, counted from its activity rows,
 * run only when activity_minutes has no row. The check is a statement of its own: with it
 * inside this one as a condition, SQLite still read and grouped every agent's row at each
 * open, to insert none (164 ms at 596,669 agents, bench/README.md "Session 19").
 */
const MINUTES_FROM_ACTIVITY = `INSERT INTO activity_minutes (minute, agents)
  SELECT logged / ${ACTIVITY_MINUTE_MS}, COUNT(*) FROM activity GROUP BY logged / ${ACTIVITY_MINUTE_MS}`

/** The shortest part the trigram index answers. */
const TRIGRAM = 3

const { describe, storage, transact } = sqliteErrors("state.db")

const storeOn = ({ sql, preparedRead, preparedReadIn }: SqliteConnection) => Effect.gen(function*() {
  // Also reads the file: a damaged one fails here, at the start, not at the first query.
  yield* Effect.forEach(SCHEMA, (statement) => sql.unsafe(statement), { discard: true }).pipe(storage("open state.db"))
  const minutes = yield* sql`SELECT 1 FROM activity_minutes LIMIT 1`.pipe(storage("open state.db"))
  if (minutes.length === 0) yield* sql.unsafe(MINUTES_FROM_ACTIVITY).pipe(storage("open state.db"))
  yield* sql`SELECT folded FROM projection_meta`.pipe(storage("open state.db"))

  // Every read but the commit's is a prepared read (sqliteConnection.ts); a batch's slice
  // reads each area's keys with one statement per run of them (preparedReadIn).
  const namesIn = preparedReadIn<NameRow>((list) => `SELECT * FROM names WHERE name IN (${list})`)
  const stateRowsIn = preparedReadIn<{ key: string; value: string }>((list) => `SELECT key, value FROM state_rows WHERE area = ? AND key IN (${list})`)
  const activityRowsIn = preparedReadIn<{ key: string; value: string }>((list) => `SELECT actor AS key, value FROM activity WHERE actor IN (${list})`)
  const stateRow = preparedRead<{ value: string }>("SELECT value FROM state_rows WHERE area = ? AND key = ?")
  const listLength = preparedRead<{ n: number | null }>("SELECT MAX(n) AS n FROM state_lists WHERE area = ? AND key = ?")
  const listPage = preparedRead<{ n: number; value: string }>(
    "SELECT n, value FROM state_lists WHERE area = ? AND key = ? AND n < ? ORDER BY n DESC LIMIT ?"
  )
  const areaRows = preparedRead<StoredRow>("SELECT area, key, value FROM state_rows WHERE area = ?")
  const lastLeafRow = preparedRead<{ last_leaf: Uint8Array | null }>("SELECT last_leaf FROM projection_meta")
  const activitySince = preparedRead<{ value: string; count: number }>(`SELECT value,
      (SELECT COALESCE(SUM(agents), 0) FROM activity_minutes WHERE minute > ?)
      + (SELECT COUNT(*) FROM activity WHERE logged >= ? AND logged < ?) AS count
    FROM activity WHERE logged >= ? ORDER BY logged DESC, leaf DESC LIMIT ?`)
  const firstListKey = preparedRead<{ key: string }>("SELECT key FROM state_lists WHERE area = ? ORDER BY key LIMIT 1")
  const nextListKey = preparedRead<{ key: string }>("SELECT key FROM state_lists WHERE area = ? AND key > ? ORDER BY key LIMIT 1")
  const firstRowKeys = preparedRead<{ key: string }>("SELECT key FROM state_rows WHERE area = ? ORDER BY key LIMIT ?")
  const nextRowKeys = preparedRead<{ key: string }>("SELECT key FROM state_rows WHERE area = ? AND key > ? ORDER BY key LIMIT ?")
  const namesInClaimOrder = preparedRead<NameRow>(`SELECT ${DIRECTORY_COLUMNS} FROM names
    WHERE claim_index > ? ORDER BY claim_index LIMIT ?`)
  const namesMatching = preparedRead<NameRow>(`SELECT ${DIRECTORY_COLUMNS.split(", ").map((c) => `n.${c}`).join(", ")}
    FROM names_fts f JOIN names n ON n.claim_index = f.rowid
    WHERE names_fts MATCH ? AND f.rowid > ? ORDER BY f.rowid LIMIT ?`)
  const namesRecoveredBy = preparedRead<{ name: string; claim_index: number }>(`SELECT name, claim_index FROM names
    WHERE recovery = ? AND claim_index >= ? ORDER BY claim_index LIMIT ?`)
  const namesContaining = preparedRead<NameRow>(`SELECT ${DIRECTORY_COLUMNS} FROM names
    WHERE claim_index > ? AND instr(name, ?) > 0 ORDER BY claim_index LIMIT ?`)

  const names = (list: ReadonlyArray<string>) =>
    namesIn([], list).pipe(
      Effect.map((found) => new Map(found.map((row) => [row.name, recordOfRow(row)]))),
      storage("read names")
    )

  /**
   * The stored length of each list, by listId: one statement for many lists, each length
   * read from the primary key's last entry for that list (the correlated MAX).
   */
  const listLengths = (lists: ReadonlyArray<{ readonly area: string; readonly key: string }>) =>
    Effect.gen(function*() {
      const lengths = new Map<string, number>()
      for (const run of runsOf(lists, KEYS_PER_SELECT / 2)) {
        const found = yield* sql<{ area: string; key: string; n: number | null }>`WITH wanted(area, key) AS (VALUES ${sql.csv(run.map(({ area, key }) => sql`(${area}, ${key})`))})
          SELECT area, key, (SELECT MAX(n) FROM state_lists AS s WHERE s.area = wanted.area AND s.key = wanted.key) AS n FROM wanted`
        for (const row of found) if (row.n !== null) lengths.set(listId(row.area, row.key), row.n + 1)
      }
      return lengths
    })

  const folded = preparedRead<{ folded: number }>("SELECT folded FROM projection_meta")([]).pipe(
    Effect.map((rows) => rows[0]!.folded),
    storage("read folded index")
  )

  return ProjectionStore.of({
    folded,
    lastLeaf: lastLeafRow([]).pipe(
      Effect.map((rows) => (rows[0]!.last_leaf === null ? null : new Uint8Array(rows[0]!.last_leaf))),
      storage("read folded index")
    ),
    commit: ({ from, upTo, lastLeaf, changes }) =>
      transact(sql, "commit projection", Effect.gen(function*() {
        const [meta] = yield* sql<{ folded: number }>`SELECT folded FROM projection_meta`
        if (meta!.folded !== from) return false
        const { upserts, deletes, activity } = rowWrites(changes)
        for (const run of runsOf(upserts, ROWS_PER_INSERT)) {
          yield* sql`INSERT INTO state_rows ${sql.insert(run)} ON CONFLICT (area, key) DO UPDATE SET value = excluded.value`
        }
        for (const { area, key } of deletes) yield* sql`DELETE FROM state_rows WHERE area = ${area} AND key = ${key}`
        // The actors leave their minutes' counts, their rows change, they join their new ones.
        const minutes = (actors: ReadonlyArray<string>, sign: string) =>
          Effect.forEach(runsOf(actors, KEYS_PER_SELECT), (run) =>
            sql<{ minute: number | string; agents: number | string }>`INSERT INTO activity_minutes (minute, agents)
              SELECT logged / ${sql.literal(String(ACTIVITY_MINUTE_MS))}, ${sql.literal(sign)}COUNT(*) FROM activity WHERE actor IN ${sql.in(run)}
              GROUP BY logged / ${sql.literal(String(ACTIVITY_MINUTE_MS))}
              ON CONFLICT (minute) DO UPDATE SET agents = agents + excluded.agents
              RETURNING minute, agents`).pipe(Effect.map((rows) => rows.flat().filter((row) => Number(row.agents) === 0).map((row) => row.minute)))
        const upserted = activity.upserts.map((row) => row.actor)
        const emptied = yield* minutes([...upserted, ...activity.deletes], "-")
        for (const run of runsOf(activity.upserts, ROWS_PER_INSERT)) {
          yield* sql`INSERT INTO activity ${sql.insert(run)} ON CONFLICT (actor) DO UPDATE SET logged = excluded.logged, leaf = excluded.leaf, value = excluded.value`
        }
        for (const run of runsOf(activity.deletes, KEYS_PER_SELECT)) yield* sql`DELETE FROM activity WHERE actor IN ${sql.in(run)}`
        yield* minutes(upserted, "")
        // A minute the actors left empty and none came back to: its row goes.
        for (const run of runsOf(emptied, KEYS_PER_SELECT)) yield* sql`DELETE FROM activity_minutes WHERE minute IN ${sql.in(run)} AND agents = 0`
        const lengths = yield* listLengths(appendedLists(changes.appends))
        for (const run of runsOf(appendRows(changes.appends, lengths), ROWS_PER_INSERT)) yield* sql`INSERT INTO state_lists ${sql.insert(run)}`
        for (const run of runsOf(changes.names, ROWS_PER_INSERT)) {
          yield* sql`INSERT INTO names ${sql.insert(run.map(rowOfRecord))}
            ON CONFLICT (name) DO UPDATE SET tier = excluded.tier, kid = excluded.kid, kid_index = excluded.kid_index,
              x25519 = excluded.x25519, x25519_index = excluded.x25519_index, events = excluded.events`
          // A name is claimed once: the leaves of this step claimed it iff its claim is among them.
          const claimed = run.filter((record) => record.claimIndex >= from).map((record) => ({ rowid: record.claimIndex, name: record.name }))
          if (claimed.length > 0) yield* sql`INSERT INTO names_fts ${sql.insert(claimed)}`
        }
        yield* sql`UPDATE projection_meta SET folded = ${upTo}, last_leaf = ${lastLeaf}`
        return true
      })),
    names,
    recoveryNames: (kid, { from, limit }) =>
      namesRecoveredBy([kid, from, limit]).pipe(
        Effect.map((rows) => rows.map((row) => ({ name: row.name, claimIndex: Number(row.claim_index) }))),
        storage("read recovery names")
      ),
    rows: (keys) => Effect.gen(function*() {
      const rows: Array<StateRow> = []
      for (const [area, list] of keysByArea(keys)) {
        const found = yield* (area === ACTIVITY_AREA ? activityRowsIn([], list) : stateRowsIn([area], list))
        for (const row of found) rows.push({ area, key: row.key, value: stateOfJson(row.value) })
      }
      return { rows, names: [...(yield* names(keys.filter((k) => k.area === "names").map((k) => k.key))).values()] }
    }).pipe(storage("read state rows")),
    resident: areaRows([RESIDENT_AREA]).pipe(
      Effect.map(residentOfRows),
      storage("read resident state")
    ),
    // One statement, so the count and the rows are of one commit: the rows walk the index
    // activity_recent from `since`, the count adds the whole minutes after since's to the
    // rows of its own minute (SCHEMA).
    recentActivity: (since, limit) => {
      const minute = activityMinute(since)
      return activitySince([minute, since, (minute + 1) * ACTIVITY_MINUTE_MS, since, Math.max(1, limit)]).pipe(
        Effect.map((rows) => recentOfRows(rows, limit)),
        storage("read recent activity")
      )
    },
    list: (area, key, { before, limit }) => Effect.gen(function*() {
      const [last] = yield* listLength([area, key])
      const length = (last?.n ?? -1) + 1
      const found = yield* listPage([area, key, before ?? length, limit])
      return { length, elements: found.map((row) => ({ n: row.n, value: stateOfJson(row.value) })) }
    }).pipe(storage("read state list")),
    // One seek a key: the primary key (area, key, n) gives the next key after the last.
    listKeys: (area, { after, limit }) =>
      keysBySeek((last) =>
        Effect.map(
          last === undefined ? firstListKey([area]) : nextListKey([area, last]),
          (rows) => rows[0]?.key
        ), after, limit).pipe(storage("read list keys")),
    // A range of the primary key (area, key): the rows are one per key.
    rowKeys: (area, { after, limit }) =>
      (after === undefined ? firstRowKeys([area, limit]) : nextRowKeys([area, after, limit])).pipe(
        Effect.map((rows) => rows.map((row) => row.key)),
        storage("read row keys")
      ),
    retained: (walk) => stateRow([RETENTION_AREA, retentionKey(walk)]).pipe(
      Effect.map((rows) => (rows[0] === undefined ? 0 : Number(rows[0].value))),
      storage("read retention cursor")
    ),
    retain: (walk, position) =>
      sql`INSERT INTO state_rows (area, key, value) VALUES (${RETENTION_AREA}, ${retentionKey(walk)}, ${String(position)})
        ON CONFLICT (area, key) DO UPDATE SET value = excluded.value
        WHERE CAST(excluded.value AS INTEGER) > CAST(state_rows.value AS INTEGER)`.pipe(Effect.asVoid, storage("write retention cursor")),
    directory: ({ part, after, limit }) => {
      const from = after ?? -1
      const rows = part === undefined || part === ""
        ? namesInClaimOrder([from, limit + 1])
        : part.length >= TRIGRAM - 1
        ? namesMatching([part.length >= TRIGRAM ? trigramPhrase(part) : trigramsAround(part), from, limit + 1])
        : namesContaining([from, part, limit + 1])
      return rows.pipe(
        Effect.map((found) => ({
          names: found.slice(0, limit).map((row) => directoryFields(recordOfRow(row))),
          truncated: found.length > limit
        })),
        storage("read directory")
      )
    },
    reset: transact(sql, "reset projection", Effect.gen(function*() {
      yield* sql`DELETE FROM names`
      yield* sql`DELETE FROM names_fts`
      yield* sql`DELETE FROM state_rows`
      yield* sql`DELETE FROM activity`
      yield* sql`DELETE FROM activity_minutes`
      yield* sql`DELETE FROM state_lists`
      yield* sql`UPDATE projection_meta SET folded = 0, last_leaf = NULL`
    }))
  })
})

/** An FTS5 phrase that matches the part as a substring (a phrase, quotes doubled). */
const trigramPhrase = (part: string): string => `"${part.replaceAll("\"", "\"\"")}"`

/** The characters of names (docs/spec/profile.md section 2). */
const NAME_ALPHABET = [..."abcdefghijklmnopqrstuvwxyz0123456789-"]

/** An FTS5 query for every trigram a name can hold the two-character part in. */
const trigramsAround = (part: string): string =>
  NAME_ALPHABET.flatMap((c) => [trigramPhrase(`${c}${part}`), trigramPhrase(`${part}${c}`)]).join(" OR ")

/** Where a damaged state.db goes: beside it, named for the moment it was found. */
const asideOf = (filename: string) => `${filename}.damaged-${Date.now()}`

/** Moves the file and its WAL aside; fails with the reason when the database file itself stays. */
const moveAside = (filename: string, aside: string) =>
  Effect.gen(function*() {
    yield* Effect.tryPromise(() => rename(filename, aside)).pipe(Effect.mapError((error) => describe(error)))
    for (const suffix of ["-wal", "-shm"]) yield* Effect.tryPromise(() => rename(`${filename}${suffix}`, `${aside}${suffix}`)).pipe(Effect.ignore)
  })

/**
 * The store, with damage found while it serves (a page SQLite reads as corrupt, found by the
 * first query that reaches it: opening reads only the first pages) handled as damage found
 * at open: the file is moved aside, once, and the service stops (ServiceHalt) so that its
 * next start rebuilds the projection from the log. Serving on would refuse every write
 * (the sequencer cannot record a batch), leave the leaves already durable unpublished, and
 * answer some views 503 for as long as the process lives.
 */
const watchedForDamage = (filename: string, store: ProjectionStore["Type"]) => Effect.gen(function*() {
  const halt = yield* Effect.serviceOption(ServiceHalt)
  let found = false
  const onError = (error: StorageError): Effect.Effect<void> => {
    if (found || !isDamaged(error)) return Effect.void
    found = true
    const aside = asideOf(filename)
    return Effect.gen(function*() {
      const moved = yield* Effect.either(moveAside(filename, aside))
      const reason = new StorageError({
        operation: "state.db",
        detail: moved._tag === "Right"
          ? `state.db is damaged (${error.detail}); it was moved to ${aside}: start the service again and it rebuilds the projection from the log`
          : `state.db is damaged (${error.detail}) and could not be moved aside (${moved.left}): delete ${filename} and ${filename}-wal, then start the service again; it rebuilds the projection from the log`,
        cause: error
      })
      yield* Effect.logError(`${reason.detail}; the service stops`)
      if (Option.isSome(halt)) yield* halt.value.halt(reason)
    })
  }
  const watch = <A>(effect: Effect.Effect<A, StorageError>) => Effect.tapError(effect, onError)
  const watched = Object.fromEntries(Object.entries(store).map(([name, member]) => [
    name,
    Effect.isEffect(member)
      ? watch(member as Effect.Effect<unknown, StorageError>)
      : typeof member === "function"
      ? (...args: Array<unknown>) => watch((member as (...args: Array<unknown>) => Effect.Effect<unknown, StorageError>)(...args))
      : member
  ]))
  return ProjectionStore.of(watched as unknown as ProjectionStore["Type"])
})

// WAL is set by SCHEMA, after the locking mode.
const openAt = (filename: string) =>
  Layer.scoped(ProjectionStore, Effect.flatMap(openSqliteConnection(filename), (connection) => Effect.flatMap(storeOn(connection), (store) => watchedForDamage(filename, store))))

/**
 * The projection store in the SQLite file `filename`; a damaged file (not a database,
 * corrupt pages) is moved aside and started anew. Any other failure to open it (locked by
 * another process, unreadable) fails the start: moving a file aside that is only in use
 * would throw away a good projection, and with it the other process's.
 */
export const SqliteProjectionStoreLive = (filename: string): Layer.Layer<ProjectionStore, StorageError> =>
  openAt(filename).pipe(
    Layer.catchAllCause((cause) => {
      const error = Cause.squash(cause)
      if (!isDamaged(error)) {
        return Layer.fail(error instanceof StorageError ? error : new StorageError({ operation: "open state.db", detail: describe(error), cause: error }))
      }
      const aside = asideOf(filename)
      return Layer.unwrapEffect(Effect.gen(function*() {
        yield* Effect.logError(`state.db cannot be used (${Cause.pretty(cause).split("\n")[0]}); moved to ${aside}, the projection is rebuilt from the log`)
        yield* Effect.ignore(moveAside(filename, aside))
        return openAt(filename).pipe(Layer.mapError((error) =>
          error instanceof StorageError ? error : new StorageError({ operation: "open state.db", detail: describe(error), cause: error })))
      }))
    })
  )
