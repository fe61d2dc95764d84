// PgCoordination: the Coordination contract on PostgreSQL, and the relay of a holder
// deposed without noticing (src/ports/Coordination.ts, the fenced relay): its lease session
// ended by the server while its process lives on and still calls the relay with its fence.
// Then the database failing it (docs/operations.md "Several nodes behind a load balancer"):
// its LISTEN connection ended by the server comes back by itself, one line each way, and a
// notification wakes the node at once again; a network that drops everything silently
// fails the lease's holder and its seeker in bounded time (a frozen proxy in between),
// not after the kernel's TCP timeouts, and the lease is taken again once it carries
// packets. A distant database (a proxy that delays everything, and connecting more) is
// given the time it needs, and found silent in the same bounds; so is one that got farther
// after the node started. A wait for the lease is told when a try finds it held, and a try
// that cannot be made fails it (the contract).

import * as PgClient from "@effect/sql-pg/PgClient"
import { it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Exit, Fiber, Layer, Logger, Queue, Redacted, Schedule, Scope, Stream } from "effect"
import { describe, expect } from "vitest"
import { DatabaseDistance, DatabaseDistanceLive } from "../../../src/adapters/pg/databaseDistance.js"
import { LEASE_ANSWER_LIMIT, PgCoordinationLive } from "../../../src/adapters/pg/PgCoordination.js"
import { PgDatabaseLive } from "../../../src/adapters/pg/PgStorage.js"
import { type ClaimedSubmission, Coordination, type RelayedOutcome } from "../../../src/ports/Coordination.js"
import { coordinationContract } from "../../ports/Coordination.contract.js"
import { testDatabase } from "../../support/pg.js"
import { sessionOn, terminateLeaseSession } from "../../support/pgSessions.js"
import { databaseBehindProxy } from "../../support/tcpProxy.js"
import { coordinationOn } from "./open.js"

const db = testDatabase()

// Each build opens its own pools on the schema: a process of the deployment.
coordinationContract("PgCoordination", {
  fresh: (unclaimedTimeout) =>
    Effect.map(db.freshSchema, (url) =>
      PgCoordinationLive(url, { unclaimedTimeout }).pipe(Layer.provide(PgDatabaseLive(url, db.storageOptions)))),
  severalProcesses: db.multiSession,
  // Behind a proxy that then drops everything silently (a real server: PGlite's one session
  // would be held by the frozen connections).
  ...(db.multiSession ? {
    silenced: Effect.gen(function*() {
      const direct = yield* db.freshSchema
      const { proxy, url } = yield* databaseBehindProxy(direct)
      return {
        layer: PgCoordinationLive(url).pipe(Layer.provide(PgDatabaseLive(url, db.storageOptions))),
        silence: Effect.sync(() => proxy.freeze()),
        unsilenced: PgCoordinationLive(direct).pipe(Layer.provide(PgDatabaseLive(direct, db.storageOptions)))
      }
    })
  } : {})
})

const accepted: RelayedOutcome = { _tag: "Accepted", index: 0, logged: 1_700_000_000_000, leafHash: new Uint8Array(32).fill(1) }
const refused: RelayedOutcome = { _tag: "Refused", code: "seq_mismatch", detail: "decided twice", at: 1_700_000_000_001 }

/** Claims again until one submission is taken (the relay races with the claim). */
const claimedOne = <E>(claim: Effect.Effect<ReadonlyArray<ClaimedSubmission>, E>) =>
  Effect.repeat(
    Effect.tap(claim, (taken) => (taken.length === 1 ? Effect.void : Effect.sleep(Duration.millis(20)))),
    { until: (taken) => taken.length === 1 }
  )

describe("PgCoordination with a holder deposed without noticing", () => {
  it.scopedLive.runIf(db.multiSession)("neither hands back nor answers what the new holder took over, nor claims anew", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)
      const [a, b] = yield* Effect.forEach([0, 1], () => Effect.map(Layer.build(coordinationOn(db, url)), (ctx) => Context.get(ctx, Coordination)))
      const row = (id: string) =>
        Effect.map(admin<{ claimed_at: string | null; claimed_epoch: string | null; outcome: unknown }>`SELECT claimed_at, claimed_epoch, outcome
          FROM aics_relay WHERE id = ${id}`, (rows) => rows.map((r) => [r.claimed_at === null ? null : Number(r.claimed_at), r.claimed_epoch === null ? null : Number(r.claimed_epoch), r.outcome]))

      // A holds the lease and claims a submission B's process relayed; then A's lease
      // session ends and B takes the lease, while A lives on.
      const { fence: fenceOfA } = yield* a.lease()
      const relayed = yield* Effect.fork(b.relay({ envelopeJcs: `{"n":1}`, body: null }))
      const claimed = yield* a.claim(1, 5, fenceOfA).pipe(claimedOne)
      yield* terminateLeaseSession(admin)
      const { fence: fenceOfB } = yield* b.lease()
      const id = claimed[0]!.id
      expect((yield* b.orphans(fenceOfB)).map((o) => o.id)).toEqual([id])

      // A hands its claim back and answers it: B's claim stays B's, claimed and unanswered.
      yield* a.release([id], fenceOfA)
      yield* a.answer([{ id, outcome: refused }], fenceOfA)
      expect(yield* row(id)).toEqual([[5, fenceOfB.epoch, null]])

      // The same once B released it and claimed it again.
      yield* b.release([id], fenceOfB)
      expect(yield* row(id)).toEqual([[null, null, null]])
      expect((yield* b.claim(1, 6, fenceOfB)).map((c) => c.id)).toEqual([id])
      yield* a.release([id], fenceOfA)
      expect(yield* row(id)).toEqual([[6, fenceOfB.epoch, null]])

      // A claims nothing any more, even with a submission waiting.
      const waiting = yield* Effect.fork(b.relay({ envelopeJcs: `{"n":2}`, body: null }))
      yield* Effect.sleep(Duration.millis(100))
      expect(yield* a.claim(10, 6, fenceOfA)).toEqual([])
      expect(yield* a.orphans(fenceOfA)).toEqual([])
      const [next] = yield* b.claim(10, 6, fenceOfB).pipe(claimedOne)

      // B's answers are the ones its relaying process reads.
      yield* b.answer([{ id, outcome: accepted }, { id: next!.id, outcome: refused }], fenceOfB)
      const answer = yield* Fiber.join(relayed)
      expect(answer._tag === "Accepted" && answer.index).toBe(0)
      expect(yield* Fiber.join(waiting)).toEqual(refused)
    }))
})

/** Log lines (messages) a test's effect and the fibers it starts write, kept in `lines`. */
/** The effect's exit and how long it took, by the clock. */
const elapsed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(effect)
    return { exit, millis: (yield* Clock.currentTimeMillis) - start }
  })

const keptLines = (lines: Array<string>) =>
  Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push(Array.isArray(message) ? message.join(" ") : String(message))))

describe("PgCoordination's LISTEN", () => {
  it.scopedLive.runIf(db.multiSession)("comes back by itself once its backend is terminated, and a notification wakes the node at once again", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)
      const [a, b] = yield* Effect.forEach([0, 1], () => Effect.map(Layer.build(coordinationOn(db, url)), (ctx) => Context.get(ctx, Coordination)))
      const [{ channel }] = (yield* admin<{ channel: string }>`SELECT 'aics_coordination_' || current_schema() AS channel`) as [{ channel: string }]
      const listeners = admin<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE query = ${`LISTEN "${channel}"`}`.pipe(
        Effect.map((rows) => rows.map((r) => r.pid)))

      // A's reads of the log: each is a wake (a NOTIFY) or a poll, a second after the last.
      const reads = yield* Queue.unbounded<number>()
      yield* Effect.forkScoped(Stream.runForEach(a.appended, () => Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(reads, at))))
      /** Milliseconds from B's announcement to A's next read, right after a read. */
      const wakeDelay = Effect.gen(function*() {
        yield* Queue.takeAll(reads)
        yield* Queue.take(reads)
        const announced = yield* Clock.currentTimeMillis
        yield* b.announce(1)
        return (yield* Queue.take(reads)) - announced
      })
      const woken = (delay: number) => delay < 500

      const before = yield* Effect.repeat(Effect.delay(listeners, Duration.millis(50)), { until: (pids) => pids.length === 2 })
      expect(woken(yield* wakeDelay)).toBe(true)
      yield* admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(${before}::int[])`

      // Both listen again on connections of their own (the terminated ones are gone)...
      const after = yield* listeners.pipe(
        Effect.delay(Duration.millis(100)),
        Effect.repeat({ until: (pids) => pids.length === 2 && pids.every((pid) => !before.includes(pid)) }),
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "nobody listens again" })
      )
      expect(after.length).toBe(2)
      // ...and a NOTIFY wakes A again well before its poll would.
      const delay = yield* wakeDelay.pipe(
        Effect.repeat({ until: woken }),
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "A is never woken again" })
      )
      expect(delay).toBeLessThan(500)
      yield* Effect.repeat(Effect.sync(() => lines.filter((l) => l.startsWith("LISTEN is back")).length), {
        until: (n) => n === 2, schedule: Schedule.spaced(Duration.millis(50))
      })
      // One line each way on each node.
      expect(lines.filter((l) => l.startsWith("LISTEN lost")).length, lines.join("\n")).toBe(2)
      expect(lines.filter((l) => l.startsWith("LISTEN is back")).length, lines.join("\n")).toBe(2)
    }).pipe(Effect.provide(keptLines(lines)))
  })
})

describe("PgCoordination on a network that drops everything silently", () => {
  it.scopedLive.runIf(db.multiSession)("fails the lease's holder and seeker in bounded time, and the lease is taken again once it carries packets", () =>
    Effect.gen(function*() {
      // A database of its own: its sessions are told from other test files' by datname.
      const direct = yield* db.freshDatabase
      const admin = yield* sessionOn(direct)
      const { proxy, url } = yield* databaseBehindProxy(direct)
      const [a, b] = yield* Effect.forEach([0, 1], () =>
        Effect.map(Layer.build(coordinationOn(db, url)), (ctx) => Context.get(ctx, Coordination)))

      // A holds the lease and has claimed a submission B relayed; B tries for the lease (its
      // tries answer: held).
      const leaseOfA = yield* Scope.make()
      const held = yield* Scope.extend(a.lease(), leaseOfA)
      yield* Effect.fork(b.relay({ envelopeJcs: `{"n":1}`, body: null }))
      const [claimed] = yield* a.claim(1, 1, held.fence).pipe(claimedOne)
      const seeking = yield* Effect.fork(Effect.scoped(b.lease()))
      yield* admin`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'aics-lease'
        AND query LIKE 'SELECT pg_try_advisory_lock%'`.pipe(Effect.delay(Duration.millis(50)), Effect.repeat({ until: (rows) => rows.length > 0 }))

      proxy.freeze()
      const [seeker, holder] = yield* Effect.all([elapsed(Fiber.join(seeking)), elapsed(held.lost)], { concurrency: 2 })
      // The seeker's try fails (it does not wait for the kernel), within the limit and a poll.
      expect(Exit.isFailure(seeker.exit) && String(seeker.exit.cause)).toMatch(/did not answer/)
      expect(seeker.millis).toBeLessThan(Duration.toMillis(LEASE_ANSWER_LIMIT) + 1_000)
      // The holder's heartbeat gives up (0.5 s between, 2 s each) and its lease ends at once.
      expect(Exit.isSuccess(holder.exit)).toBe(true)
      expect(holder.millis).toBeLessThan(3_500)
      const released = yield* elapsed(Scope.close(leaseOfA, Exit.void))
      expect(released.millis).toBeLessThan(Duration.toMillis(LEASE_ANSWER_LIMIT) + 1_000)
      // A new try, on a new connection that hears nothing either, fails in bounded time too.
      const again = yield* elapsed(Effect.scoped(a.lease()))
      expect(Exit.isFailure(again.exit)).toBe(true)
      expect(again.millis).toBeLessThan(Duration.toMillis(LEASE_ANSWER_LIMIT) + 1_000)
      // What a holder does as its lease ends neither hangs: a claim under way stops when
      // interrupted, and handing back what it claimed gives up after 5 s.
      const stopped = yield* elapsed(a.claim(1, 1, held.fence).pipe(Effect.timeoutOption(Duration.millis(200))))
      expect(stopped.millis).toBeLessThan(700)
      const handedBack = yield* elapsed(a.release([claimed!.id], held.fence))
      expect(Exit.isFailure(handedBack.exit) && String(handedBack.exit.cause)).toMatch(/did not answer within 5s/)
      expect(handedBack.millis).toBeLessThan(6_000)

      proxy.thaw()
      const retaken = yield* Effect.scoped(Effect.as(b.lease(), "taken")).pipe(
        Effect.retry(Schedule.spaced(Duration.millis(200))),
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "the lease is never taken again" })
      )
      expect(retaken).toBe("taken")
    }))
})

describe("PgCoordination on a distant database", () => {
  it.scopedLive.runIf(db.multiSession)("takes the lease 350 ms away, over a set-up of six round trips, and still finds the database silent in bounded time", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const direct = yield* db.freshDatabase
      // Migrated directly: through the proxy, the migrations' hundred round trips would take a minute.
      yield* Effect.scoped(Layer.build(PgDatabaseLive(direct, { maxConnections: 1 })))
      const { proxy, url } = yield* databaseBehindProxy(direct, { roundTripMs: 350, setupRoundTrips: 5 })
      const admin = yield* sessionOn(direct)
      // Two nodes, each with its storage pool through the proxy too (the schema is migrated).
      const [a, b] = yield* Effect.all([0, 1].map(() =>
        Effect.map(
          Layer.build(PgCoordinationLive(url).pipe(
            Layer.provide(DatabaseDistanceLive),
            Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 }))
          )),
          (ctx) => Context.get(ctx, Coordination)
        )), { concurrency: 2 })

      // A takes the lease (its first connection costs 6 round trips, 2.1 s, more than the
      // 1.5 s floor), B tries for it.
      const leaseOfA = yield* Scope.make()
      const held = yield* Scope.extend(a.lease(), leaseOfA).pipe(
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "the lease is never taken" })
      )
      expect(held.fence.epoch).toBeGreaterThan(0)
      const seeking = yield* Effect.fork(Effect.scoped(b.lease()))
      yield* admin`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'aics-lease'
        AND query LIKE 'SELECT pg_try_advisory_lock%'`.pipe(Effect.delay(Duration.millis(50)), Effect.repeat({ until: (rows) => rows.length > 0 }))

      // A's LISTEN hears across the distance: a notification wakes it before its 1 s poll.
      const [{ channel }] = (yield* admin<{ channel: string }>`SELECT 'aics_coordination_' || current_schema() AS channel`) as [{ channel: string }]
      const reads = yield* Queue.unbounded<number>()
      yield* Effect.forkScoped(Stream.runForEach(a.appended, () => Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(reads, at))))
      const wakeDelay = Effect.gen(function*() {
        yield* Queue.takeAll(reads)
        yield* Queue.take(reads)
        const announced = yield* Clock.currentTimeMillis
        yield* admin`SELECT pg_notify(${channel}, 'appended 1')`
        return (yield* Queue.take(reads)) - announced
      })
      const delay = yield* wakeDelay.pipe(
        Effect.repeat({ until: (ms) => ms < 700 }),
        Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => "A is never woken by a notification" })
      )
      expect(delay).toBeLessThan(700)
      expect(lines.filter((l) => l.startsWith("LISTEN lost")), lines.join("\n")).toEqual([])
      // Each node said once that the database is far, at its start.
      expect(lines.filter((l) => l.startsWith("the database is far")).length, lines.join("\n")).toBe(2)

      proxy.freeze()
      const [seeker, holder] = yield* Effect.all([elapsed(Fiber.join(seeking)), elapsed(held.lost)], { concurrency: 2 })
      // The same bounds as nearby: 350 ms round trips stay under the floors once connected.
      expect(Exit.isFailure(seeker.exit) && String(seeker.exit.cause)).toMatch(/did not answer/)
      expect(seeker.millis).toBeLessThan(Duration.toMillis(LEASE_ANSWER_LIMIT) + 1_000)
      expect(Exit.isSuccess(holder.exit)).toBe(true)
      expect(holder.millis).toBeLessThan(3_500)
      yield* Effect.sync(() => console.log(`distant database: seeker failed after ${seeker.millis} ms, holder lost the lease after ${holder.millis} ms`))
      proxy.thaw()
      yield* Scope.close(leaseOfA, Exit.void)
    }).pipe(Effect.provide(keptLines(lines)))
  })
})

// The database got farther after the node started (a failover to a replica in another
// region): its connections now take six round trips of 350 ms to set up, 2.1 s, more than the
// 1.5 s the lease's connection was given at the start, when the database was near. The
// storage watch times the farther database's answers, the bounds follow within a few checks,
// and the lease is taken again. Measured once at the start, they stayed at the floors, and
// the lease could never be taken again until the node restarted. The log says the database
// is far once the bounds leave their floors, and near again once they are back.
describe("PgCoordination on a database that got farther after the start", () => {
  it.scopedLive.runIf(db.multiSession)("takes the lease again once the database is 350 ms away, over a set-up of six round trips, and says so each way", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const direct = yield* db.freshDatabase
      const { proxy, url } = yield* databaseBehindProxy(direct)
      const context = yield* Layer.build(PgCoordinationLive(url).pipe(Layer.provideMerge(PgDatabaseLive(url, db.storageOptions))))
      const node = Context.get(context, Coordination)
      const distance = Context.get(context, DatabaseDistance)
      // Near: the floors.
      const nearLease = yield* Scope.make()
      yield* Scope.extend(node.lease(), nearLease)
      yield* Scope.close(nearLease, Exit.void)
      expect(Duration.toMillis(yield* distance.setup(LEASE_ANSWER_LIMIT))).toBe(Duration.toMillis(LEASE_ANSWER_LIMIT))

      // The failover: every connection ends, and the database answers from far away.
      yield* Effect.promise(() => proxy.cut())
      proxy.moveTo({ roundTripMs: 350, setupRoundTrips: 5 })
      yield* Effect.promise(() => proxy.restore())

      const retaken = yield* elapsed(Effect.scoped(Effect.map(node.lease(), (lease) => lease.fence.epoch)).pipe(
        Effect.retry(Schedule.spaced(Duration.millis(200))),
        Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => "the lease is never taken again" })
      ))
      expect(Exit.isSuccess(retaken.exit), String(retaken.exit)).toBe(true)
      // The bounds follow the round trip the watch times: ten of them to connect.
      expect(Duration.toMillis(yield* distance.roundTrip)).toBeGreaterThanOrEqual(350)
      expect(Duration.toMillis(yield* distance.setup(LEASE_ANSWER_LIMIT))).toBeGreaterThanOrEqual(3_500)
      yield* Effect.sync(() => console.log(`database got farther: the lease was taken again ${retaken.millis} ms after the failover`))
      // The operator was told, after the start (near then: nothing said), and is told again
      // once the database is near: the storage watch's next answers bring the bounds back.
      const said = (start: string) => lines.filter((l) => l.startsWith(start)).length
      yield* Effect.repeat(Effect.sync(() => said("the database is far")), { until: (n) => n > 0, schedule: Schedule.spaced(Duration.millis(100)) }).pipe(
        Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => `never told the database is far: ${lines.join("\n")}` })
      )
      expect(said("the database is near again")).toBe(0)
      proxy.moveTo(undefined)
      yield* Effect.repeat(Effect.sync(() => said("the database is near again")), { until: (n) => n > 0, schedule: Schedule.spaced(Duration.millis(100)) }).pipe(
        Effect.timeoutFail({ duration: Duration.seconds(15), onTimeout: () => `never told the database is near again: ${lines.join("\n")}` })
      )
      expect(Duration.toMillis(yield* distance.setup(LEASE_ANSWER_LIMIT))).toBe(Duration.toMillis(LEASE_ANSWER_LIMIT))
      expect(said("the database is far"), lines.join("\n")).toBe(1)
    }).pipe(Effect.provide(keptLines(lines)))
  })
})
