// Sessions of the test's own on a real PostgreSQL server, to set up and watch the races
// between nodes that the fenced removes and appends must survive (docs/operations.md,
// "Retention" and "The log's appends"): a transaction that holds a row lock until the test
// lets it go, what waits on a lock of whom, and the end of a node's lease session. Waits are
// on what the server reports, never on a time, so they hold on a loaded machine; only the
// real server has several sessions (test/support/pg.ts, multiSession).

import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Redacted, Scope } from "effect"
import { expect } from "vitest"

/** A pool of one connection on the schema of `url`, closed with the scope. */
export const sessionOn = (url: string): Effect.Effect<SqlClient.SqlClient, unknown, Scope.Scope> =>
  Effect.map(
    Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1, applicationName: "aics-test" })),
    (context) => Context.get(context, SqlClient.SqlClient)
  )

/**
 * Opens a transaction on a session of its own that takes the row locks of `lock`; answers
 * the session's pid once they are held, and `release`, which ends the transaction.
 */
const holdRows = (url: string, lock: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* sessionOn(url)
    const held = yield* Deferred.make<number>()
    const release = yield* Deferred.make<void>()
    yield* Effect.forkScoped(sql.withTransaction(Effect.gen(function*() {
      yield* lock(sql)
      const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
      yield* Deferred.succeed(held, row!.pid)
      yield* Deferred.await(release)
    })).pipe(Effect.orDie))
    return { pid: yield* Deferred.await(held), release: Deferred.succeed(release, undefined) }
  })

/** Holds the body row of `digest` FOR UPDATE, so a DELETE of that row waits (see holdRows). */
export const holdBodyRow = (url: string, digest: Uint8Array) =>
  holdRows(url, (sql) => sql`SELECT 1 FROM aics_bodies WHERE digest = ${digest} FOR UPDATE`)

/** Holds the log's head row FOR UPDATE, so an append waits before it writes (see holdRows). */
export const holdLogHead = (url: string) => holdRows(url, (sql) => sql`SELECT size FROM aics_log_head FOR UPDATE`)

/** Waits until a session waits on a lock that session `pid` holds; answers the waiting session's pid. */
export const waitingOn = (admin: SqlClient.SqlClient, pid: number) =>
  admin<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`.pipe(
    Effect.orDie,
    Effect.delay(Duration.millis(20)),
    Effect.repeat({ until: (rows) => rows.length > 0 }),
    Effect.map((rows) => rows[0]!.pid)
  )

/**
 * Ends the session that holds the sequencing lease of the schema of `admin`'s session
 * (PgCoordination's advisory lock) with pg_terminate_backend, as a server or a proxy may
 * cut a node's lease connection while the node lives on; answers the pid it ended.
 */
export const terminateLeaseSession = (admin: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const key = "hashtext(current_schema() || '.aics_sequencer')::bigint"
    // A bigint advisory key is kept as its high and low 32 bits (classid, objid).
    const [holder] = yield* admin.unsafe<{ pid: number }>(`SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid::bigint = ((${key} >> 32) & 4294967295) AND objid::bigint = (${key} & 4294967295)`)
    if (holder === undefined) return yield* Effect.dieMessage("nobody holds the sequencing lease")
    yield* admin`SELECT pg_terminate_backend(${holder.pid}::int)`
    return holder.pid
  }).pipe(Effect.orDie)

/**
 * The order a fenced write (leaseEpoch.ts) forces on the next lease: `write`, forked, holds
 * the epoch row FOR SHARE and waits on `blocker`; then its writer's lease (`leaseOfWriter`)
 * ends and the next one is taken (`nextLease`), whose raise of the epoch must wait on the
 * write, neither of them done. Then the blocker lets go: answers the write's result and the
 * next lease, in the order the server let them finish.
 */
export const nextLeaseAfterWrite = <A, E, L, F>(
  admin: SqlClient.SqlClient,
  blocker: { readonly pid: number; readonly release: Effect.Effect<boolean> },
  write: Effect.Effect<A, E>,
  leaseOfWriter: Scope.CloseableScope,
  nextLease: Effect.Effect<L, F, Scope.Scope>
) =>
  Effect.gen(function*() {
    const writing = yield* Effect.fork(write)
    const writerPid = yield* waitingOn(admin, blocker.pid)
    yield* Scope.close(leaseOfWriter, Exit.void)
    const taking = yield* Effect.fork(nextLease)
    yield* waitingOn(admin, writerPid)
    expect(Option.isNone(yield* Fiber.poll(taking))).toBe(true)
    expect(Option.isNone(yield* Fiber.poll(writing))).toBe(true)
    yield* blocker.release
    return { written: yield* Fiber.join(writing), next: yield* Fiber.join(taking) }
  })
