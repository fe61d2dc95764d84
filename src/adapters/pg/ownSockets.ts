// The sockets of a pool of the coordination's own (the lease's, the listener's), so that a
// database that stops answering is given up on after a bound, not after the kernel's TCP
// timeouts.
//
// A network that drops packets without a reset (a firewall, a half-open path, a frozen VM
// on the other side) leaves node-postgres waiting: a statement sent is retransmitted for
// as long as the kernel's tcp_retries2 allows (about 15 minutes on Linux), a LISTEN
// connection hears nothing and does not know it, and TCP keepalive cannot help (Node 20
// sets only its idle time, its probes go 75 s apart). Interrupting the statement does not
// free the connection either: @effect/sql-pg then cancels it with a query on the same
// pool (up to 5 s, on a pool of one waiting for the connection that hangs), and the pool
// gets the hung connection back for the next statement.
//
// So the pool's sockets are made here (@effect/sql-pg's `stream` option), and `within`
// bounds a statement: unanswered after the limit (and one more turn of the event loop, so
// an answer that arrived while the loop was stalled is read first), it fails with a StorageError and every
// socket of the pool is destroyed. Their clients fail at once, the pool drops them, and the
// next statement opens a new connection (bounded by the pool's connectTimeout). Only for
// pools whose statements are all short: the shared storage pool runs migrations and large
// reads, which must not be cut. Its sockets are made here too, but only cut when a check on
// a connection of its own finds the database silent (storageWatch.ts, `onSilence`): a long
// statement is cut only if the database stops answering a trivial one.

import { Socket } from "node:net"
import { Duration, Effect, Fiber, Option } from "effect"
import { StorageError } from "../../ports/StorageError.js"

export interface OwnSockets {
  /** The pool's `stream` option: a new socket, kept here until it closes. */
  readonly stream: () => Socket
  /**
   * Destroys every socket still open; with `why`, as the error their statements under way
   * fail with (without it node-postgres says only "Connection terminated unexpectedly").
   */
  readonly cut: (why?: string) => Effect.Effect<void>
  /**
   * How many of the pool's sockets are open now (made, and not closed by either side): 0
   * once the server closed the pool's connections (a restart, pg_terminate_backend, a proxy
   * recycling its connections), so that its next statement must connect first.
   */
  readonly openCount: Effect.Effect<number>
  /**
   * `effect`, or a StorageError of `operation` once the database has not answered it within
   * `limit` (the sockets then cut). The statement's own interruption goes on apart, so the
   * bound holds whatever its cancel takes.
   */
  readonly within: (limit: Duration.DurationInput, operation: string) => <A, R>(effect: Effect.Effect<A, StorageError, R>) => Effect.Effect<A, StorageError, R>
}

/** `onSilence` runs whenever `within` gives a statement up as unanswered (after the sockets are cut), told what went unanswered. */
export const ownSockets = (onSilence: (detail: string) => Effect.Effect<void> = () => Effect.void): OwnSockets => {
  const open = new Set<Socket>()
  const cut = (why?: string) => Effect.sync(() => {
    for (const socket of open) socket.destroy(why === undefined ? undefined : new Error(why))
  })
  return {
    stream: () => {
      const socket = new Socket()
      open.add(socket)
      socket.once("close", () => open.delete(socket))
      return socket
    },
    cut,
    openCount: Effect.sync(() => open.size),
    within: (limit, operation) => (effect) =>
      Effect.gen(function*() {
        // A fiber of its own (a daemon: an interruption of the caller does not wait for the
        // statement's cancel), interrupted without waiting whenever it is given up on.
        const statement = yield* Effect.forkDaemon(effect)
        const answered = yield* Fiber.join(statement).pipe(Effect.timeoutOption(limit), Effect.onInterrupt(() => Fiber.interruptFork(statement)))
        if (Option.isSome(answered)) return answered.value
        // Timers run before the sockets are read: after the event loop stalled (a long
        // collection, a busy batch) the answer may be in the socket's buffer as the limit
        // passes. One turn of the loop reads it before the database is said silent.
        yield* afterSocketsRead
        const late = yield* Fiber.poll(statement)
        if (Option.isSome(late)) return yield* late.value
        yield* Fiber.interruptFork(statement)
        const detail = `the database did not answer within ${Duration.format(limit)}`
        return yield* Effect.zipRight(Effect.zipRight(cut(), onSilence(detail)), Effect.fail(new StorageError({ operation, detail })))
      })
  }
}

/** Resumes after the event loop's next poll for I/O (setImmediate runs in the check phase, after it). */
const afterSocketsRead: Effect.Effect<void> = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})
