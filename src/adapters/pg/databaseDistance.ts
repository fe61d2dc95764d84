// How far the database is, and the bounds of the coordination's connections derived from that
// (PgCoordination.ts, pgListener.ts, storageWatch.ts): measured when the node opens the
// database, then kept current by the storage watch.
//
// Those connections give up on a database that does not answer within a bound (ownSockets.ts),
// and the bounds are floors chosen for a database nearby, where every statement takes
// milliseconds. A database in another region, or a managed one, is 50 to 400 ms away, and a
// new connection costs several round trips before its first statement (TCP, TLS if the URL
// asks for it, PostgreSQL's startup and its authentication: SCRAM alone is three): a fixed
// bound of 1.5 s was then shorter than the set-up itself, and the lease could never be taken.
// So a bound is its floor, or a number of round trips to this database when that is longer:
// the operator sets nothing, a near database keeps the floors (and so the detection times
// docs/operations.md states), and a distant one gets bounds it can meet. A setting would have
// to be found and tuned by hand after the node reported storage_unavailable for good; the
// round trip is what the bound depends on, and the node can measure it.
//
// The round trip is the fastest of the recent ones (WINDOW): the fastest, so a statement that
// waited on a busy server does not raise every bound; recent, because the database's distance
// is not fixed for the life of the process. A failover to a replica in another region, or a
// network path that changed, makes it farther after the node started, and bounds measured once
// would stay too short for good: the lease never taken again until a restart. At the open the
// window holds a few trivial statements on the storage pool, which is open by then (its
// first statement answered; the migrations and the watch come after) and reaches the
// database the same way; then the storage watch (storageWatch.ts) adds
// the time of its `SELECT 1`, every second, so a farther database raises the bounds within
// WINDOW checks and a nearer one lowers them at its first answer. Where there is no watch (a
// single-session embedded server, PgStorage.ts) the open's measurement stands. Each bound is
// read when it is used: a statement, or a connection opened, after the change has the new one.
// The operator is told when the bounds leave their floors and when they come back
// (tellDistance), at the start and whenever the distance changes after it.

import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Duration, Effect, Layer, Ref, Schedule, type Scope } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { storage } from "./pgValues.js"

/** Round trips the distance is the fastest of: the open's statements, then the watch's checks (one a second). */
export const WINDOW = 5
/**
 * Round trips a connection's set-up may take: TCP 1, TLS's request and handshake 3, the
 * startup with SCRAM 3, the pool's first statement 1, and room for a loss or two.
 */
export const SETUP_ROUND_TRIPS = 10
/** Round trips one statement's answer may take: it needs one; the rest is for a busy server. */
export const ANSWER_ROUND_TRIPS = 4

export class DatabaseDistance extends Context.Tag("aics/pg/DatabaseDistance")<DatabaseDistance, {
  /** The round trip now: the fastest of the last WINDOW timed. */
  readonly roundTrip: Effect.Effect<Duration.Duration>
  /** How long a connection's set-up may take now, up to its being ready for a statement. */
  readonly setup: (floor: Duration.DurationInput) => Effect.Effect<Duration.Duration>
  /** How long a statement may wait for its answer now, counted from when its connection is ready. */
  readonly answer: (floor: Duration.DurationInput) => Effect.Effect<Duration.Duration>
  /** Counts a round trip timed (a trivial statement on a connection already open). */
  readonly timed: (roundTrip: Duration.Duration) => Effect.Effect<void>
}>() {}

/** A database `roundTrips` away (the fastest counts), kept current by `timed`. */
export const distanceOf = (roundTrips: ReadonlyArray<Duration.DurationInput>): Effect.Effect<DatabaseDistance["Type"]> =>
  Effect.map(Ref.make(roundTrips.map(Duration.decode).slice(-WINDOW)), (recent) => {
    const roundTrip = Effect.map(Ref.get(recent), (window) => window.reduce(Duration.min))
    const atLeast = (roundTrips: number) => (floor: Duration.DurationInput) =>
      Effect.map(roundTrip, (measured) => Duration.max(Duration.decode(floor), Duration.times(measured, roundTrips)))
    return DatabaseDistance.of({
      roundTrip,
      setup: atLeast(SETUP_ROUND_TRIPS),
      answer: atLeast(ANSWER_ROUND_TRIPS),
      timed: (taken) => Ref.update(recent, (window) => [...window, taken].slice(-WINDOW))
    })
  })

/** Measures the round trip on `sql` (a pool already open). */
export const measureDistance = (sql: SqlClient.SqlClient): Effect.Effect<DatabaseDistance["Type"], StorageError> =>
  Effect.forEach(Array.from({ length: WINDOW }), () => Effect.map(Effect.timed(sql`SELECT 1`), ([taken]) => taken)).pipe(
    storage("open"),
    Effect.flatMap(distanceOf)
  )

/** The distance to the database of the pool in the context, measured once it is open. */
export const DatabaseDistanceLive: Layer.Layer<DatabaseDistance, StorageError, SqlClient.SqlClient> =
  Layer.effect(DatabaseDistance, Effect.flatMap(SqlClient.SqlClient, measureDistance))

/** How often tellDistance compares the set-up a connection needs with its floor. */
const DISTANCE_TOLD_EVERY = Duration.seconds(1)
/**
 * A far database is said near again once a set-up needs at most this share of the floor, so
 * that one whose set-up sits at the floor does not write a line each way every few seconds.
 */
const NEAR_AGAIN_SHARE = 3 / 4

/**
 * Tells the operator, for as long as the scope is open, that the database is far (a
 * connection's set-up needs longer than `floor`, so the connections are given longer): at the
 * start when it is then, and whenever it becomes so later (a failover to another region, a
 * network path that changed: the bounds follow without a restart, and a line at the start
 * alone would leave the log with the old distance); and that it is near again when it is.
 */
export const tellDistance = (distance: DatabaseDistance["Type"], floor: Duration.DurationInput): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const limit = Duration.decode(floor)
    // What the distance alone asks of a set-up, whatever the floor.
    const setupNeeded = distance.setup(Duration.zero)
    const farLine = Effect.gen(function*() {
      const [roundTrip, connect, answer] = yield* Effect.all([distance.roundTrip, distance.setup(limit), distance.answer(limit)])
      yield* Effect.logInfo("the database is far: the coordination's connections wait longer for it").pipe(Effect.annotateLogs({
        roundTrip: Duration.format(roundTrip),
        connect: Duration.format(connect),
        answer: Duration.format(answer)
      }))
    })
    const nearLine = Effect.flatMap(distance.roundTrip, (roundTrip) =>
      Effect.logInfo("the database is near again: the coordination's connections wait their usual bounds").pipe(
        Effect.annotateLogs({ roundTrip: Duration.format(roundTrip) })
      ))
    let far = Duration.greaterThan(yield* setupNeeded, limit)
    if (far) yield* farLine
    yield* Effect.forkScoped(Effect.repeat(
      Effect.flatMap(setupNeeded, (needed) => {
        if (!far && Duration.greaterThan(needed, limit)) {
          far = true
          return farLine
        }
        if (far && Duration.lessThanOrEqualTo(needed, Duration.times(limit, NEAR_AGAIN_SHARE))) {
          far = false
          return nearLine
        }
        return Effect.void
      }),
      Schedule.spaced(DISTANCE_TOLD_EVERY)
    ))
  })
