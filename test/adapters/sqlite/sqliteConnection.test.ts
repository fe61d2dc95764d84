// sqliteConnection.ts: @effect/sql's client over one better-sqlite3 connection, and its
// prepared reads. The client does what @effect/sql-sqlite-node's does (statements,
// transactions that roll back, big integers when asked, SQLite's error codes); a prepared
// read answers what a read through the client would answer at the same moment: the
// committed rows, never another fiber's uncommitted ones, and its own transaction's rows
// inside it.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { openSqliteConnection } from "../../../src/adapters/sqlite/sqliteConnection.js"
import { sqliteCode } from "../../../src/adapters/sqlite/sqliteErrors.js"
import { tempDir } from "../fs/tempDir.js"

const opened = Effect.gen(function*() {
  const dir = yield* tempDir("sqlite-connection")
  const connection = yield* openSqliteConnection(join(dir, "test.db"))
  yield* connection.sql.unsafe("PRAGMA journal_mode = WAL")
  yield* connection.sql.unsafe("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
  return connection
})

/** Lets every other fiber run until it waits. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("sqliteConnection", () => {
  it.scoped("runs statements, reads rows and values, and keeps a transaction that fails out", () =>
    Effect.gen(function*() {
      const { sql } = yield* opened
      yield* sql`INSERT INTO items ${sql.insert([{ id: 1, name: "one" }, { id: 2, name: "two" }])}`
      expect(yield* sql`SELECT id, name FROM items ORDER BY id`).toEqual([{ id: 1, name: "one" }, { id: 2, name: "two" }])
      expect(yield* sql`SELECT id, name FROM items ORDER BY id`.values).toEqual([[1, "one"], [2, "two"]])
      const failing = sql.withTransaction(Effect.zipRight(sql`INSERT INTO items (id, name) VALUES (3, 'three')`, Effect.fail("no")))
      expect(yield* Effect.exit(failing)).toEqual(Exit.fail("no"))
      expect(yield* sql`SELECT count(*) AS n FROM items`).toEqual([{ n: 2 }])
    }))

  it.scoped("reads big integers as bigint when SafeIntegers is set, and gives SQLite's code on failure", () =>
    Effect.gen(function*() {
      const { sql, preparedRead } = yield* opened
      const big = 2n ** 62n + 1n
      yield* sql`INSERT INTO items (id, name) VALUES (${big}, 'big')`
      const rows = yield* Effect.provideService(sql<{ id: bigint }>`SELECT id FROM items`, SqlClient.SafeIntegers, true)
      expect(rows).toEqual([{ id: big }])
      const duplicate = yield* Effect.flip(sql`INSERT INTO items (id, name) VALUES (${big}, 'again')`)
      expect(sqliteCode(duplicate)).toBe("SQLITE_CONSTRAINT_PRIMARYKEY")
      const badRead = yield* Effect.flip(preparedRead("SELECT missing FROM items")([]))
      expect(badRead._tag).toBe("SqlError")
      expect(String(badRead.cause)).toContain("no such column: missing")
    }))

  it.scoped("a prepared read sees committed rows, and its own transaction's rows inside it", () =>
    Effect.gen(function*() {
      const { sql, preparedRead } = yield* opened
      const names = preparedRead<{ name: string }>("SELECT name FROM items WHERE id >= ? ORDER BY id")
      expect(yield* names([0])).toEqual([])
      yield* sql`INSERT INTO items (id, name) VALUES (1, 'one')`
      expect(yield* names([0])).toEqual([{ name: "one" }])
      const inside = yield* sql.withTransaction(Effect.zipRight(sql`INSERT INTO items (id, name) VALUES (2, 'two')`, names([2])))
      expect(inside).toEqual([{ name: "two" }])
      expect(yield* names([0])).toEqual([{ name: "one" }, { name: "two" }])
    }))

  it.scoped("a read of a list of keys answers the rows of exactly those keys, however many", () =>
    Effect.gen(function*() {
      const { sql, preparedReadIn } = yield* opened
      yield* sql`INSERT INTO items ${sql.insert(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `n${i}` })))}`
      const named = preparedReadIn<{ id: number }>((list) => `SELECT id FROM items WHERE name LIKE ? AND id IN (${list}) ORDER BY id`)
      for (const count of [0, 1, 3, 4, 5, 16, 17, 64, 65, 150]) {
        // Every third id, and ids that no row has.
        const keys = Array.from({ length: count }, (_, i) => (i % 7 === 6 ? 1000 + i : 3 * i))
        const rows = yield* named(["n%"], keys)
        const expected = keys.filter((id) => id < 200).sort((a, b) => a - b)
        // A statement per run of 64 keys: ordered within each run.
        expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual(expected)
      }
      expect(yield* named(["x%"], [1, 2, 3])).toEqual([])
    }))

  it.scoped("a prepared read never sees another fiber's open transaction: it waits for its end", () =>
    Effect.gen(function*() {
      const { sql, preparedRead } = yield* opened
      const names = preparedRead<{ name: string }>("SELECT name FROM items ORDER BY id")
      yield* sql`INSERT INTO items (id, name) VALUES (1, 'one')`
      for (const outcome of ["commit", "rollback"] as const) {
        const written = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const writer = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO items (id, name) VALUES (${outcome === "commit" ? 2 : 3}, ${outcome})`
          yield* Deferred.succeed(written, undefined)
          yield* Deferred.await(release)
          if (outcome === "rollback") return yield* Effect.fail("rolled back")
        })))
        yield* Deferred.await(written)
        const reader = yield* Effect.fork(names([]))
        yield* settle
        // The transaction is open: the read has not answered (it would have seen its row).
        expect(yield* Fiber.poll(reader)).toEqual(expect.objectContaining({ _tag: "None" }))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.await(writer)
        expect(yield* Fiber.join(reader)).toEqual([{ name: "one" }, { name: "commit" }])
      }
    }))
})
