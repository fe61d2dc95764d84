// How the service opens a SQLite file (state.db, SqliteProjectionStore.ts; the log's and the
// body store's indexes, src/adapters/fs/sqliteSidecar.ts; the data directory's lock,
// dataDirLock.ts): one better-sqlite3 connection (the better-sqlite3 12.x that
// @effect/sql-sqlite-node 0.53 brings), @effect/sql's client over it built as that
// package's SqliteClient builds it (the same compiler, the same one-permit semaphore, the
// same transactions), and one thing that client lacks: reads prepared once and run on the
// caller's fiber.
//
// Why: every statement through the client pays for a span, a scope, the semaphore's turn
// and the prepared-statement cache's lookup: about 20 us of CPU on top of the 4-5 us SQLite
// takes to answer a point lookup, measured alone, and about 65 us a request inside the
// server under load (GET /v2/entries/{i}, one body-index lookup a request: 3,000 -> 3,800
// requests/s without it; bench/README.md "Session 16"). SqliteClient keeps its connection
// to itself, hence this module. The point lookups (the body and leaf indexes, the
// projection's rows, names and lists) use `preparedRead`, the replay store's one statement a
// signed request `preparedWrite` (src/adapters/fs/FsNonceStore.ts); everything else goes
// through `sql`.
//
// Why a prepared read is as safe as the client's: better-sqlite3 is synchronous, so the
// read runs whole between two of the client's statements. Outside a transaction it sees
// what is committed, as the client's own read would. While a transaction is open on the
// connection (`inTransaction`: a fiber is between BEGIN and COMMIT, or a failed COMMIT left
// it open until `transact` rolls it back) it would see that transaction's uncommitted rows,
// so it goes through the client instead, which waits for the transaction's end, or, in the
// transaction's own fiber, runs in it. A prepared write likewise: outside a transaction it
// is one of its own, committed before the call returns; inside one it would join it.

import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import Database from "better-sqlite3"
import { Context, Effect, Scope } from "effect"

/**
 * Prepared statements kept (SqliteClient's default), the least recently used dropped first.
 * A batch's inserts are one text a number of rows (`sql.insert`), so the texts outnumber
 * this; starting the cache again when it was full re-prepared the busy ones too (0.9% of the
 * write path's main thread in better-sqlite3's prepare on bench/write).
 */
const PREPARED_KEPT = 200

export interface SqliteConnection {
  /** The client every statement but the prepared reads goes through. */
  readonly sql: SqlClient.SqlClient
  /**
   * A read (a SELECT) prepared once: each call runs it with these parameters and answers its
   * rows, on the caller's fiber, or through `sql` while a transaction is open. Integers come
   * back as numbers (SqlClient.SafeIntegers applies to `sql`'s statements only).
   */
  readonly preparedRead: <Row extends object>(text: string) => (params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /**
   * A read of the rows whose key is in a list, prepared for a few list lengths: `text` makes
   * the statement from its list of placeholders ("?, ?, ?"); each call runs it with `params`
   * then the keys, IN_LENGTHS[-1] keys at a time, a shorter run padded with its last key.
   * For many keys one statement costs far less than one lookup a key (64 keys: 120 against
   * 470 us in better-sqlite3 alone).
   */
  readonly preparedReadIn: <Row extends object>(text: (placeholders: string) => string) => (
    params: ReadonlyArray<unknown>,
    keys: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /**
   * A write (INSERT, UPDATE, DELETE) prepared once, as `preparedRead`: each call runs it with
   * these parameters, a transaction of its own (SQLite's autocommit), and answers how many
   * rows it changed; through `sql` while a transaction is open.
   */
  readonly preparedWrite: (text: string) => (params: ReadonlyArray<unknown>) => Effect.Effect<number, SqlError>
}

/** The list lengths preparedReadIn prepares a statement for (IN is a set: padding repeats a key). */
const IN_LENGTHS = [1, 4, 16, 64]

const failed = (message: string) => (cause: unknown) => new SqlError({ cause, message })

/** Opens `filename` (created when missing) for the scope; closed with it. No pragma is set: the caller sets its own. */
export const openSqliteConnection = (filename: string): Effect.Effect<SqliteConnection, SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => new Database(filename), catch: failed(`Failed to open ${filename}`) }),
      (open) => Effect.sync(() => open.close())
    )

    const prepared = new Map<string, Database.Statement>()
    const prepare = (text: string) =>
      Effect.try({
        try: () => {
          let statement = prepared.get(text)
          // The map's order is the order of use: a statement used goes to the end.
          if (statement !== undefined) prepared.delete(text)
          else {
            statement = db.prepare(text)
            if (prepared.size >= PREPARED_KEPT) prepared.delete(prepared.keys().next().value!)
          }
          prepared.set(text, statement)
          return statement
        },
        catch: failed("Failed to prepare statement")
      })

    const run = (statement: Database.Statement, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.withFiberRuntime<unknown, SqlError>((fiber) => {
        statement.safeIntegers(Context.get(fiber.currentContext, SqlClient.SafeIntegers))
        try {
          if (statement.reader) return Effect.succeed(statement.all(...params))
          const result = statement.run(...params)
          return Effect.succeed(raw ? result : [])
        } catch (cause) {
          return Effect.fail(failed("Failed to execute statement")(cause))
        }
      })

    const execute = (text: string, params: ReadonlyArray<unknown>, raw = false) => Effect.flatMap(prepare(text), (statement) => run(statement, params, raw))

    const connection: Connection = {
      execute: (text, params, transformRows) => {
        const rows = execute(text, params) as Effect.Effect<ReadonlyArray<any>, SqlError>
        return transformRows === undefined ? rows : Effect.map(rows, transformRows)
      },
      executeRaw: (text, params) => execute(text, params, true),
      executeValues: (text, params) =>
        Effect.flatMap(prepare(text), (statement) =>
          Effect.try({
            try: () => {
              if (!statement.reader) {
                statement.run(...params)
                return []
              }
              try {
                return statement.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
              } finally {
                statement.raw(false)
              }
            },
            catch: failed("Failed to execute statement")
          })),
      executeUnprepared: (text, params, transformRows) => {
        const rows = Effect.flatMap(Effect.try({ try: () => db.prepare(text), catch: failed("Failed to prepare statement") }), (statement) =>
          run(statement, params, false)) as Effect.Effect<ReadonlyArray<any>, SqlError>
        return transformRows === undefined ? rows : Effect.map(rows, transformRows)
      },
      executeStream: () => Effect.dieMessage("executeStream not implemented") as never
    }

    // One permit: a statement holds it while it runs, a transaction from BEGIN to its end.
    const semaphore = yield* Effect.makeSemaphore(1)
    const sql = yield* SqlClient.make({
      acquirer: semaphore.withPermits(1)(Effect.succeed(connection)),
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.as(
          Effect.zipRight(restore(semaphore.take(1)), Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))),
          connection
        )),
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provide(Reactivity.layer))

    const preparedRead = <Row extends object>(text: string) => {
      let statement: Database.Statement | undefined
      return (params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
        Effect.suspend(() => {
          if (db.inTransaction) return sql.unsafe<Row>(text, params)
          try {
            statement ??= db.prepare(text)
            return Effect.succeed(statement.all(...params) as ReadonlyArray<Row>)
          } catch (cause) {
            return Effect.fail(failed("Failed to execute statement")(cause))
          }
        })
    }

    const preparedReadIn = <Row extends object>(text: (placeholders: string) => string) => {
      const byLength = new Map(IN_LENGTHS.map((length) => [length, preparedRead<Row>(text(Array(length).fill("?").join(", ")))]))
      const longest = IN_LENGTHS[IN_LENGTHS.length - 1]!
      return (params: ReadonlyArray<unknown>, keys: ReadonlyArray<unknown>) =>
        Effect.gen(function*() {
          const rows: Array<Row> = []
          for (let at = 0; at < keys.length; at += longest) {
            const run = keys.slice(at, at + longest)
            const length = IN_LENGTHS.find((n) => n >= run.length)!
            const padded = run.concat(Array(length - run.length).fill(run[run.length - 1]))
            rows.push(...(yield* byLength.get(length)!([...params, ...padded])))
          }
          return rows
        })
    }

    const preparedWrite = (text: string) => {
      let statement: Database.Statement | undefined
      return (params: ReadonlyArray<unknown>): Effect.Effect<number, SqlError> =>
        Effect.suspend(() => {
          if (db.inTransaction) return Effect.map(sql.unsafe(text, params).raw, (result) => (result as Database.RunResult).changes)
          try {
            statement ??= db.prepare(text)
            return Effect.succeed(statement.run(...params).changes)
          } catch (cause) {
            return Effect.fail(failed("Failed to execute statement")(cause))
          }
        })
    }

    return { sql, preparedRead, preparedReadIn, preparedWrite }
  })
