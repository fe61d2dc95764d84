import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Exit, Fiber, Layer, Option, Redacted, Schedule } from "effect"
import { describe, expect } from "vitest"
import { NodeCryptoLive, nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { runMigrations } from "../../../src/adapters/pg/migrations.js"
import { PgDatabaseLive, PgStorageLive, PgStoresLive } from "../../../src/adapters/pg/PgStorage.js"
import { ownSockets } from "../../../src/adapters/pg/ownSockets.js"
import { DatabaseDistanceLive } from "../../../src/adapters/pg/databaseDistance.js"
import { cutWhenSilent, STORAGE_SILENCE, WATCH_EVERY } from "../../../src/adapters/pg/storageWatch.js"
import { storage as asStorageError } from "../../../src/adapters/pg/pgValues.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { BodyStore } from "../../../src/ports/BodyStore.js"
import { ContributionIntents } from "../../../src/ports/ContributionIntents.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import { NonceStore } from "../../../src/ports/NonceStore.js"
import { NoticeRegister } from "../../../src/ports/NoticeRegister.js"
import { ReadCursors } from "../../../src/ports/ReadCursors.js"
import { StatsStore } from "../../../src/ports/StatsStore.js"
import { entryBytes, LogModel } from "../../ports/LogStore.contract.js"
import { leaseFenceOf } from "../../support/leases.js"
import { PGLITE_STORAGE_OPTIONS, startPgliteServer, testDatabase } from "../../support/pg.js"
import { sessionOn } from "../../support/pgSessions.js"
import { databaseBehindProxy } from "../../support/tcpProxy.js"
import { coordinationOn } from "./open.js"

const db = testDatabase()
const storage = (url: string) => PgStorageLive(url, db.storageOptions).pipe(Layer.provide(NodeCryptoLive))

/** The migrations, run on a pool of their own; answers the ones that ran. */
const migrate = (url: string) =>
  runMigrations.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: db.maxConnections })))

const recorded = (url: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ migration_id: number; name: string }>`SELECT migration_id, name FROM aics_migrations ORDER BY migration_id`).pipe(
    Effect.map((rows) => rows.map((row) => [row.migration_id, row.name])),
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  )

const ALL = [[1, "log"], [2, "bodies"], [3, "nonces"], [4, "read_cursors"], [5, "relay"], [6, "tiles"], [7, "off_log"], [8, "gate_secrets"], [9, "notice_report_id_deleted"], [10, "lease_epoch"], [11, "relay_claimed_epoch"], [12, "projection_names"], [13, "witness_state"], [14, "cosignatures"], [15, "projection_state"], [16, "projection_names_search_index"], [17, "state_activity"], [18, "projection_name_search"], [19, "state_activity_minutes"], [20, "leaf_body"], [21, "projection_names_by_recovery"], [22, "witness_alarms"], [23, "witness_alarm_size"], [24, "witness_alarm_refused_tree"]]

describe("PgStorage", () => {
  it.scoped("provides every storage port from one pool", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const context = yield* Layer.build(storage(url))
      const model = new LogModel()
      yield* Context.get(context, LogStore).append(0, model.add([entryBytes(1, 10)]), yield* leaseFenceOf(coordinationOn(db, url)))
      expect(yield* Context.get(context, LogStore).size).toBe(1)
      const bytes = utf8("a body")
      yield* Context.get(context, BodyStore).put([{ digest: nodeCrypto.sha256(bytes), bytes }])
      expect(Option.isSome(yield* Context.get(context, BodyStore).get(nodeCrypto.sha256(bytes)))).toBe(true)
      expect(yield* Context.get(context, NonceStore).remember("k", "n", 10, 0)).toBe(true)
      yield* Context.get(context, ReadCursors).advance("did:key:zA", 3)
      expect(yield* Context.get(context, ReadCursors).get("did:key:zA")).toBe(3)
      expect(yield* Context.get(context, NoticeRegister).list(undefined, 10)).toEqual([])
      expect(Option.isNone(yield* Context.get(context, ContributionIntents).get("none"))).toBe(true)
      yield* Context.get(context, StatsStore).add([["2026-03-01 program tlog ok le_50", 1]], [])
      expect(yield* Context.get(context, StatsStore).load).toEqual([["2026-03-01 program tlog ok le_50", 1]])
    }))

  it.scoped("runs every migration on a new schema, then none: a second run is a no-op that keeps the data", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      expect(yield* migrate(url)).toEqual(ALL)
      expect(yield* migrate(url)).toEqual([])
      const model = new LogModel()
      const fence = yield* leaseFenceOf(coordinationOn(db, url))
      yield* Effect.scoped(Effect.flatMap(LogStore, (store) => store.append(0, model.add([entryBytes(1, 10), entryBytes(2, 20)]), fence)).pipe(
        Effect.provide(storage(url))
      ))
      expect(yield* migrate(url)).toEqual([])
      expect(yield* recorded(url)).toEqual(ALL)
      expect(yield* Effect.scoped(Effect.flatMap(LogStore, (store) => store.size).pipe(Effect.provide(storage(url))))).toBe(2)
    }))

  it.scoped("fails to open, with a StorageError, when the database cannot be reached", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(Layer.build(PgDatabaseLive("postgres://postgres@127.0.0.1:1/none"))))
      expect(error._tag).toBe("StorageError")
    }))

  // Several API processes starting together on an empty database.
  it.scoped.runIf(db.multiSession)("several processes starting at once migrate once", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const ran = yield* Effect.all(Array.from({ length: 6 }, () => migrate(url)), { concurrency: "unbounded" })
      expect(ran.flat()).toEqual(ALL)
      expect(yield* recorded(url)).toEqual(ALL)
    }))
})

// The storage pool on a network that drops everything silently (storageWatch.ts): a statement
// under way fails within WATCH_EVERY + STORAGE_SILENCE (and a turn of the event loop), not
// after the kernel's TCP timeouts, and the pool works again once the network does; a long
// statement the database is running is never cut.
describe("PgStorage's pool when the database stops answering", () => {
  /** The bound docs/operations.md states, with room for a loaded machine. */
  const documented = Duration.toMillis(WATCH_EVERY) + Duration.toMillis(STORAGE_SILENCE) + 1_000

  it.scopedLive.runIf(db.multiSession)("fails a statement under way with a StorageError in bounded time, and reconnects once packets flow", () =>
    Effect.gen(function*() {
      const direct = yield* db.freshDatabase
      const { proxy, url } = yield* databaseBehindProxy(direct)
      const admin = yield* sessionOn(direct)
      const context = yield* Layer.build(PgStoresLive.pipe(
        Layer.provideMerge(PgDatabaseLive(url, db.storageOptions)),
        Layer.provide(NodeCryptoLive)
      ))
      const log = Context.get(context, LogStore)
      const sql = Context.get(context, SqlClient.SqlClient)
      expect(yield* log.size).toBe(0)

      // A read under way (its answer held by the frozen network), then one sent into the silence.
      const reading = yield* Effect.fork(Effect.timed(sql`SELECT pg_sleep(0.5)`.pipe(asStorageError("read"))))
      yield* admin`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_sleep(0.5)'`.pipe(
        Effect.delay(Duration.millis(20)), Effect.repeat({ until: (rows) => rows.length > 0 }))
      proxy.freeze()
      const frozenAt = yield* Clock.currentTimeMillis
      const sized = yield* Effect.exit(log.size)
      const read = yield* Effect.exit(Fiber.join(reading))
      const sizedAfter = (yield* Clock.currentTimeMillis) - frozenAt
      expect(Exit.isFailure(sized) && String(sized.cause)).toMatch(/StorageError/)
      expect(Exit.isFailure(read) && String(read.cause)).toMatch(/StorageError: read/)
      expect(sizedAfter).toBeLessThan(documented)
      yield* Effect.sync(() => console.log(`storage pool: statements failed ${sizedAfter} ms after the freeze`))

      proxy.thaw()
      const size = yield* log.size.pipe(
        Effect.retry({ schedule: Schedule.spaced(Duration.millis(200)) }),
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "the pool never works again" })
      )
      expect(size).toBe(0)
    }))

  it.scopedLive.runIf(db.multiSession)("does not cut a statement that runs longer than the bound on a database that answers", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgDatabaseLive(url, db.storageOptions)))
      const seconds = (documented + 1_000) / 1_000
      const [taken, rows] = yield* Effect.timed(sql.unsafe<{ slept: string }>(`SELECT pg_sleep(${seconds})::text AS slept`).pipe(asStorageError("read")))
      expect(rows).toEqual([{ slept: "" }])
      expect(Duration.toMillis(taken)).toBeGreaterThan(documented)
    }))

  // PGlite (test/support/pg.ts): one session, whose queue takes nothing from another
  // connection while a transaction is open, so a watch's check would wait behind it. Its pools
  // have no watch (PGLITE_STORAGE_OPTIONS): a transaction longer than the watch's bound runs
  // to its end. On a PGlite of its own, whatever database the other tests use.
  it.scopedLive("on PGlite, runs a transaction longer than the watch's bound to its end: its pools have no watch", () =>
    Effect.gen(function*() {
      const { url } = yield* Effect.acquireRelease(Effect.promise(startPgliteServer), (pglite) => Effect.promise(pglite.stop))
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgDatabaseLive(url, PGLITE_STORAGE_OPTIONS)))
      const rows = yield* sql.withTransaction(
        sql`SELECT 1`.pipe(Effect.zipRight(Effect.sleep(Duration.millis(documented))), Effect.zipRight(sql<{ one: number }>`SELECT 1 AS one`))
      ).pipe(asStorageError("read"))
      expect(rows).toEqual([{ one: 1 }])
    }))

  // The server closes the watch's connection between two checks (a restart,
  // pg_terminate_backend, a proxy recycling its connections), on a database whose set-up takes
  // longer than a statement's bound: 350 ms away, eight round trips before its first bytes
  // (TLS and SCRAM), about 3.5 s to connect against 3 s to answer. The next check connects
  // again within the set-up's bound, and the pool's statement under way is not cut.
  it.scopedLive.runIf(db.multiSession)("gives the check after the server closed the watch's connection the set-up's bound: a distant database that answers is not cut", () =>
    Effect.gen(function*() {
      const direct = yield* db.freshDatabase
      const { url } = yield* databaseBehindProxy(direct, { roundTripMs: 350, setupRoundTrips: 8 })
      const through = Redacted.make(url)
      const admin = yield* sessionOn(direct)
      const pool = ownSockets()
      const context = yield* Layer.build(PgClient.layer({ url: through, maxConnections: 2, stream: pool.stream }))
      const sql = Context.get(context, SqlClient.SqlClient)
      yield* cutWhenSilent(through, pool).pipe(Effect.provide(DatabaseDistanceLive), Effect.provide(context))
      const watchSessions = admin<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'aics-watch'`
      const [watch] = yield* watchSessions.pipe(Effect.delay(Duration.millis(20)), Effect.repeat({ until: (rows) => rows.length > 0 }))

      // A statement under way on the pool, longer than the next check's bound.
      const reading = yield* Effect.fork(sql`SELECT pg_sleep(7)`.pipe(asStorageError("read")))
      yield* admin`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_sleep(7)'`.pipe(
        Effect.delay(Duration.millis(20)), Effect.repeat({ until: (rows) => rows.length > 0 }))
      // Ended just after a check was answered (the next one comes a second later): the check
      // that follows has to connect.
      yield* admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ${watch!.pid}
        AND state = 'idle' AND clock_timestamp() - state_change < interval '300 milliseconds'`.pipe(
        Effect.delay(Duration.millis(20)), Effect.repeat({ until: (rows) => rows.length > 0 }))

      // The watch is connected again, and the statement ran to its end.
      yield* watchSessions.pipe(
        Effect.delay(Duration.millis(100)),
        Effect.repeat({ until: (rows) => rows.some((row) => row.pid !== watch!.pid) }),
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "the watch never connects again" })
      )
      const read = yield* Effect.exit(Fiber.join(reading))
      expect(Exit.isSuccess(read), String(read)).toBe(true)
    }))
})
