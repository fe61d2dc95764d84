// How far the database is, measured once when the node opens it, and the bounds of the
// coordination's connections derived from that (PgCoordination.ts, pgListener.ts,
// storageWatch.ts).
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
// The round trip is the fastest of a few trivial statements on the storage pool, which is open
// (and migrated) by then and reaches the database the same way: the fastest, so a statement
// that waited on a busy server does not raise every bound for the life of the process.

import type * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { storage } from "./pgValues.js"

/** Statements timed to measure the round trip (the fastest counts). */
const SAMPLES = 5
/**
 * Round trips a connection's set-up may take: TCP 1, TLS's request and handshake 3, the
 * startup with SCRAM 3, the pool's first statement 1, and room for a loss or two.
 */
export const SETUP_ROUND_TRIPS = 10
/** Round trips one statement's answer may take: it needs one; the rest is for a busy server. */
export const ANSWER_ROUND_TRIPS = 4

export interface DatabaseDistance {
  /** The round trip measured when the node opened the database. */
  readonly roundTrip: Duration.Duration
  /** How long a connection's set-up may take, up to its being ready for a statement. */
  readonly setup: (floor: Duration.DurationInput) => Duration.Duration
  /** How long a statement may wait for its answer, counted from when its connection is ready. */
  readonly answer: (floor: Duration.DurationInput) => Duration.Duration
}

/** The bounds of a database `roundTrip` away. */
export const distanceOf = (roundTrip: Duration.DurationInput): DatabaseDistance => {
  const measured = Duration.decode(roundTrip)
  const atLeast = (roundTrips: number) => (floor: Duration.DurationInput) => Duration.max(Duration.decode(floor), Duration.times(measured, roundTrips))
  return { roundTrip: measured, setup: atLeast(SETUP_ROUND_TRIPS), answer: atLeast(ANSWER_ROUND_TRIPS) }
}

/** Measures the round trip on `sql` (a pool already open). */
export const measureDistance = (sql: SqlClient.SqlClient): Effect.Effect<DatabaseDistance, StorageError> =>
  Effect.forEach(Array.from({ length: SAMPLES }), () => Effect.map(Effect.timed(sql`SELECT 1`), ([taken]) => taken)).pipe(
    Effect.map((taken) => distanceOf(taken.reduce(Duration.min))),
    storage("open")
  )
