// A PostgreSQL database for the PostgreSQL adapters' tests: the real server named by
// AICS_TEST_DATABASE_URL when it is set (.ci/run sets it), else PGlite served on a free
// local port by @electric-sql/pglite-socket, started once per test file. The SQL is real
// either way, so `npm test` needs no PostgreSQL installed.
//
// Each store a test opens lives in its own schema, dropped when the test's scope closes:
// freshSchema answers a URL whose connections use it. On the real server the URL says so
// (options=-c search_path=...), which isolates test files running in parallel. PGlite is
// one Postgres session that every connection shares and it ignores startup options, so
// there the schema is selected with SET search_path on that session: one schema at a time
// (tests of a file run one after the other; freshSchema refuses an overlap), pools of one
// connection without the storage watch (storageOptions), and tests that need several
// sessions (locks between writers, several nodes) run only where multiSession is true.

import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Redacted, type Scope } from "effect"
import { afterAll } from "vitest"
import type { PgStorageOptions } from "../../src/adapters/pg/PgStorage.js"

export interface TestDatabase {
  /** True on a real server: several sessions, real locks. False on PGlite. */
  readonly multiSession: boolean
  /** The pool size for stores under test: 1 on PGlite, several on a real server. */
  readonly maxConnections: number
  /**
   * The options of a store's pool under test (PgDatabaseLive): `maxConnections`, and on PGlite
   * no storage watch. pglite-socket runs one session's queue, which takes nothing from another
   * connection while a transaction is open: the watch's SELECT 1 would wait behind the
   * migrations' transaction, or a test's, and one longer than its bound (3 s, on a loaded
   * machine) would have the pool cut.
   */
  readonly storageOptions: PgStorageOptions
  /** A new, empty schema and a URL whose connections use it; dropped when the scope closes. */
  readonly freshSchema: Effect.Effect<string, never, Scope.Scope>
  /**
   * A new, empty database of its own and its URL, dropped (its sessions ended) when the scope
   * closes: for a test that must tell its processes' sessions from other test files'
   * (pg_stat_activity.datname). The real server only (multiSession).
   */
  readonly freshDatabase: Effect.Effect<string, never, Scope.Scope>
}

const configured = process.env["AICS_TEST_DATABASE_URL"]
const serverUrl = configured !== undefined && configured.length > 0 ? configured : undefined

let pglite: Promise<{ readonly url: string; readonly stop: () => Promise<void> }> | undefined

/** A PGlite database behind a socket of its own, as the tests use without a server. */
export const startPgliteServer = async () => {
  // pg_trgm, as a server would have it: the projection's directory search uses it (migration 0012).
  const db = await PGlite.create({ extensions: { pg_trgm } })
  // The server's connection limit is not the pools' (1): it leaves room for this helper's
  // own connection and for a closing pool's socket that the server has not released yet.
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 16 })
  await server.start()
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    stop: async () => {
      await server.stop()
      await db.close()
    }
  }
}

/** Runs statements on a connection of its own (the helper's, not a store's). */
const admin = (url: string, statements: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(statements, (s) => sql.unsafe(s), { discard: true })).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
    Effect.orDie
  )

const withSearchPath = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

/** The store options a PGlite database takes (testDatabase's on PGlite): one connection, no storage watch. */
export const PGLITE_STORAGE_OPTIONS: PgStorageOptions = { maxConnections: 1, storageWatch: false }

let schemas = 0
let liveOnPglite = 0

/** The test database of this file; call it at the top level of the test file. */
export const testDatabase = (): TestDatabase => {
  afterAll(async () => {
    const started = pglite
    pglite = undefined
    if (started !== undefined) await (await started).stop()
  })
  const baseUrl = Effect.promise(() => {
    if (serverUrl !== undefined) return Promise.resolve(serverUrl)
    pglite ??= startPgliteServer()
    return pglite.then((p) => p.url)
  })
  const multiSession = serverUrl !== undefined
  const freshSchema = Effect.gen(function*() {
    const url = yield* baseUrl
    const schema = `aics_test_${process.pid}_${++schemas}_${Math.random().toString(36).slice(2, 8)}`
    if (!multiSession && liveOnPglite > 0) return yield* Effect.dieMessage("PGlite serves one schema at a time")
    yield* Effect.acquireRelease(
      admin(url, multiSession ? [`CREATE SCHEMA ${schema}`] : [`CREATE SCHEMA ${schema}`, `SET search_path TO ${schema}`]).pipe(
        Effect.tap(() => Effect.sync(() => void (multiSession || liveOnPglite++)))
      ),
      () =>
        admin(url, multiSession ? [`DROP SCHEMA ${schema} CASCADE`] : [`SET search_path TO public`, `DROP SCHEMA ${schema} CASCADE`]).pipe(
          Effect.ensuring(Effect.sync(() => void (multiSession || liveOnPglite--)))
        )
    )
    return withSearchPath(url, schema)
  })
  const freshDatabase = Effect.gen(function*() {
    if (!multiSession) return yield* Effect.dieMessage("a database of its own needs the real server (AICS_TEST_DATABASE_URL)")
    const url = yield* baseUrl
    const name = `aics_test_${process.pid}_${++schemas}_${Math.random().toString(36).slice(2, 8)}`
    yield* Effect.acquireRelease(admin(url, [`CREATE DATABASE ${name}`]), () => admin(url, [`DROP DATABASE ${name} WITH (FORCE)`]))
    const parsed = new URL(url)
    parsed.pathname = `/${name}`
    return parsed.toString()
  })
  const maxConnections = multiSession ? 4 : 1
  return { multiSession, maxConnections, storageOptions: multiSession ? { maxConnections } : PGLITE_STORAGE_OPTIONS, freshSchema, freshDatabase }
}
