// LISTEN on PostgreSQL that comes back by itself after the database did (PgCoordination.ts).
//
// @effect/sql-pg's listen stream neither ends nor fails when its connection is lost: the
// client's error is swallowed, and a backend terminated (a restarted server, a proxy, an
// operator's pg_terminate_backend) or a network that stops carrying packets left the node
// polling for good, without a word. A lost connection cannot be seen from outside the
// library, so the listener checks that it hears: every LISTEN_CHECK it sends a
// notification of its own (`ping <id of this process>`, ignored by every other process)
// and waits for it to come back. Not heard within LISTEN_ANSWER, the listener is given up
// and opened anew, on a connection of its own (its pool's sockets cut, ownSockets.ts: a
// LISTEN connection over a dead network would keep the library's finalizer waiting, and
// the library would hand the same dead client to the next listen). One line when it is
// lost, one when it is back (app/failureLines.ts); meanwhile the polls of PgCoordination
// stand in for the notifications, as they always did for a lost one.
//
// A check is bounded from when its connections are ready: the first one after the listener
// is opened also has their set-up's bound (both connections are set up at once), which takes
// several round trips to a distant database (databaseDistance.ts). The bounds are those of the
// database's distance at each check, and a listener opened anew opens its pool anew too,
// with the connect timeout of the distance then: one lost to a database that got farther
// (a failover to another region) comes back with the longer set-up it needs.
//
// Its own pool (the pings, one connection) and the LISTEN connection are two of the four
// connections a node holds beside AICS_DATABASE_POOL (docs/operations.md).

import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { randomUUID } from "node:crypto"
import { Cause, Clock, Context, Duration, Effect, ExecutionStrategy, Exit, Fiber, Layer, LogLevel, Option, Queue, type Redacted, Scope, Stream } from "effect"
import { failureLines } from "../../app/failureLines.js"
import { StorageError } from "../../ports/StorageError.js"
import type { DatabaseDistance } from "./databaseDistance.js"
import { ownSockets } from "./ownSockets.js"
import { storage, unreachable } from "./pgValues.js"

/** How often the listener checks that it hears. */
export const LISTEN_CHECK = Duration.seconds(2)
/**
 * How long a check may take (a floor: longer for a distant database, databaseDistance.ts); the
 * first after the listener was opened anew also has the set-up's bound, for connecting and
 * issuing LISTEN. A listener lost is given up at most LISTEN_CHECK + LISTEN_ANSWER after.
 */
export const LISTEN_ANSWER = Duration.seconds(3)
/** How long a check waits for its ping before it sends another (the first may precede the LISTEN). */
const PING_WAIT = Duration.millis(250)
/** The pause before the listener is opened again after a failure. */
const LISTEN_RETRY = Duration.seconds(1)

/** Only the failure, when there is one: a lost connection also fails the library's UNLISTEN, a defect with a stack. */
const failureOnly = (cause: Cause.Cause<unknown>): Cause.Cause<unknown> =>
  Option.match(Cause.failureOption(cause), { onNone: () => cause, onSome: Cause.fail })

/** Delivers each payload on `channel` (but this process's pings) to `deliver`, for the life of the scope. */
export const keepListening = (
  url: Redacted.Redacted<string>,
  channel: string,
  distance: DatabaseDistance["Type"],
  deliver: (payload: string) => Effect.Effect<void>
): Effect.Effect<void, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const sockets = ownSockets()
    const setup = distance.setup(LISTEN_ANSWER)
    const answer = distance.answer(LISTEN_ANSWER)
    // Its pool, for the distance now: the first is opened with the layer, so a database the
    // listener cannot reach fails the start; each later one when the listener is opened anew.
    // Opening runs a first statement the pool's connect timeout does not cover (and which
    // cannot be interrupted): a database that goes silent after the connection is made is
    // cut off at the set-up's bound, as the lease's pool is (PgCoordination.ts).
    const open = Effect.flatMap(setup, (connectTimeout) =>
      Layer.build(PgClient.layer({
        url, maxConnections: 1, applicationName: "aics-listen", connectTimeout, stream: sockets.stream
      })).pipe(Effect.mapError(unreachable("listen", url)), sockets.within(connectTimeout, "listen")))
    const firstPool = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    let opened: Context.Context<PgClient.PgClient | SqlClient.SqlClient> | undefined = yield* Scope.extend(open, firstPool)
    const ping = `ping ${randomUUID()}`
    const pings = yield* Queue.sliding<void>(1)
    const lines = failureLines(LogLevel.Warning, Clock.currentTimeMillis)

    // A ping sent until one comes back (the first ones may come before the LISTEN is issued).
    // As one simple-protocol statement, no parameters: PGlite, which the tests serve every
    // connection from one session, mixes up the parse and bind steps of concurrent ones.
    const literal = (text: string) => `'${text.replaceAll("'", "''")}'`
    const heard = (sql: SqlClient.SqlClient, limit: Effect.Effect<Duration.Duration>) =>
      Effect.flatMap(limit, (limit) =>
        Effect.zipRight(
          Queue.takeAll(pings),
          Effect.zipRight(
            sql.unsafe(`SELECT pg_notify(${literal(channel)}, ${literal(ping)})`),
            Queue.take(pings).pipe(Effect.timeoutOption(PING_WAIT))
          ).pipe(Effect.repeat({ until: Option.isSome }))
        ).pipe(storage("listen"), sockets.within(limit, "listen")))

    const session = Effect.scoped(Effect.gen(function*() {
      const context = opened ?? (yield* open)
      if (opened !== undefined) {
        opened = undefined
        yield* Effect.addFinalizer(() => Scope.close(firstPool, Exit.void))
      }
      const pg = Context.get(context, PgClient.PgClient)
      const sql = Context.get(context, SqlClient.SqlClient)
      const listening = yield* Effect.forkScoped(pg.listen(channel).pipe(
        Stream.runForEach((payload) => (payload === ping ? Queue.offer(pings, undefined) : deliver(payload))),
        storage("listen")
      ))
      const check = (limit: Effect.Effect<Duration.Duration>) =>
        heard(sql, limit).pipe(
          Effect.zipRight(lines.worked("LISTEN is back: notifications wake this process again")),
          Effect.zipRight(Effect.sleep(LISTEN_CHECK))
        )
      const firstCheck = Effect.map(Effect.all([setup, answer]), ([setup, answer]) => Duration.sum(setup, answer))
      const checking = Effect.zipRight(check(firstCheck), Effect.forever(check(answer)))
      // The stream does not end by itself; if it ever did, the listener would be as lost. The
      // sockets are cut before the scope closes: the library's UNLISTEN, on a connection
      // that hangs, would keep it from closing.
      yield* Effect.raceFirst(checking, Effect.zipRight(
        Fiber.join(listening),
        Effect.fail(new StorageError({ operation: "listen", detail: "the LISTEN stream ended" }))
      )).pipe(Effect.onError(() => sockets.cut()))
    }))

    yield* Effect.forkScoped(Effect.forever(session.pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.zipRight(
          lines.failed("LISTEN lost: this process waits for the polls until it is back", failureOnly(cause)),
          Effect.sleep(LISTEN_RETRY)
        ))
    )))
  })
