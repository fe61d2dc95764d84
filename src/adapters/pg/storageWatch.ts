// The storage pool's bound: a database that stops answering cuts the pool's connections, so
// the statements under way on them fail with a StorageError within seconds, not after the
// kernel's TCP timeouts (about 15 minutes), and the pool reconnects for the next ones.
//
// The pool's statements cannot each be bounded as the coordination's are (ownSockets.ts):
// migrations and large reads may take long, and a long statement looks, from the socket, the
// same as one whose answer the network lost. TCP keepalive cannot tell them apart either:
// its probes are not sent while a request is unacknowledged (the kernel retransmits instead),
// and Node sets only their idle time (the probes then go 75 s apart, nine of them). What
// tells them apart is the database itself: a connection of its own (`aics-watch`, one per
// node) asks it a trivial statement every WATCH_EVERY, bounded as the coordination's are
// (STORAGE_SILENCE, or more round trips to a distant database, databaseDistance.ts). Each answer
// on a connection already open is a round trip timed: the watch keeps the database's distance
// current with it, so the bounds follow a database that got farther or nearer since the start
// (a failover to another region, a network path that changed). While it answers, nothing is
// cut, however long a statement on the pool runs. When it does not, the
// database, or the network to it, is silent: every socket of the pool is destroyed (their
// statements fail at once, the pool drops them), and again at every check that goes
// unanswered, so a connection opened meanwhile is not left hanging either.
//
// One unanswered check cuts, not two: its bound is already several round trips and at least
// STORAGE_SILENCE, time for TCP to retransmit a lost request or answer more than once (its
// retransmission timeout starts near the round trip, doubling), and a second check before
// cutting would double the time a statement in flight waits on a silent database.
//
// Only silence cuts: a check the database answers with an error (too many connections, a
// server starting up) proves it answers, and the pool is left as it is. A network that loses
// one connection's packets but not the others' is not seen here; lowering the hosts'
// net.ipv4.tcp_retries2 bounds that case (docs/operations.md).

import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Duration, Effect, Exit, Layer, LogLevel, type Redacted, type Scope } from "effect"
import { failureLines } from "../../app/failureLines.js"
import type { StorageError } from "../../ports/StorageError.js"
import { DatabaseDistance } from "./databaseDistance.js"
import { ownSockets, type OwnSockets } from "./ownSockets.js"
import { storage, unreachable } from "./pgValues.js"

/** How often the watch asks the database whether it answers. */
export const WATCH_EVERY = Duration.seconds(1)
/**
 * How long the database may take to answer the watch's trivial statement before it counts as
 * silent (a floor, see above): a statement under way on the pool when the database falls
 * silent fails within about WATCH_EVERY + STORAGE_SILENCE. Above the lease's bound (1.5 s),
 * as a false alarm here fails every statement under way, not one try for the lease.
 */
export const STORAGE_SILENCE = Duration.seconds(3)
/** The watch pool's own connect timeout: a backstop only, the checks' bounds come first. */
const WATCH_POOL_CONNECT_BACKSTOP = Duration.minutes(2)

/**
 * Watches the database on a connection of its own for the life of the scope, and cuts
 * `pool`'s sockets whenever it does not answer in time. Needs the database's distance, as
 * measured at the open, and keeps it current.
 */
export const cutWhenSilent = (
  url: Redacted.Redacted<string>,
  pool: OwnSockets
): Effect.Effect<void, StorageError, DatabaseDistance | Scope.Scope> =>
  Effect.gen(function*() {
    const distance = yield* DatabaseDistance
    const lines = failureLines(LogLevel.Error, Clock.currentTimeMillis)
    let cut = false
    // The statements cut fail with the watch's finding, so /healthz and the log say why.
    const sockets = ownSockets((detail) =>
      Effect.zipRight(pool.cut(`${detail} (the storage watch): the connection was cut`), Effect.sync(() => void (cut = true))))
    // A check without an open connection connects first: its bound has the set-up's too, for
    // the distance at the time. The pool's own connect timeout is only a backstop far above
    // any such bound (a pool's is fixed when it is made, the distance is not), so a set-up the
    // database does not answer is the watch's silence, not an error of the pool's.
    const reconnecting = Effect.map(Effect.all([distance.setup(STORAGE_SILENCE), distance.answer(STORAGE_SILENCE)]), ([setup, answer]) => Duration.sum(setup, answer))
    const context = yield* Layer.build(PgClient.layer({
      url, maxConnections: 1, applicationName: "aics-watch", connectTimeout: WATCH_POOL_CONNECT_BACKSTOP, stream: sockets.stream
    })).pipe(Effect.mapError(unreachable("watch", url)), sockets.within(yield* reconnecting, "watch"))
    const watchSql = Context.get(context, SqlClient.SqlClient)
    let answered = true
    const check = Effect.gen(function*() {
      cut = false
      // A check connects first when the last one failed (its connection was cut, and the
      // driver's cancel of its statement may be connecting meanwhile) and also when the
      // server has closed the connection since the last one answered (a restart,
      // pg_terminate_backend, a proxy recycling its connections): no socket of the watch is
      // open then. Held to `answer`, a distant database's set-up (TLS and SCRAM, seven round
      // trips or more) would read as silence, and every statement of the pool be cut.
      const connected = answered && (yield* sockets.openCount) > 0
      const bound = connected ? yield* distance.answer(STORAGE_SILENCE) : yield* reconnecting
      const exit = yield* watchSql`SELECT 1`.pipe(storage("watch"), Effect.timed, sockets.within(bound, "watch"), Effect.exit)
      answered = Exit.isSuccess(exit)
      yield* Exit.match(exit, {
        // Only an answer on an open connection is one round trip: a set-up takes several.
        onSuccess: ([taken]) =>
          Effect.zipRight(connected ? distance.timed(taken) : Effect.void, lines.worked("the database answers the storage watch again")),
        onFailure: (cause) =>
          lines.failed(
            cut
              ? "the database does not answer: the storage pool's connections are cut, their statements fail"
              : "the storage watch fails (the database answers: the storage pool is left as it is)",
            cause
          )
      })
    })
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(check, Effect.sleep(WATCH_EVERY))))
  })
