// Coordination on PostgreSQL (docs/protocol.md section 14): several API processes on one
// database, one of them sequencing.
//
// The lease is a session-level advisory lock, pg_try_advisory_lock(hashtext(<schema> ||
// '.aics_sequencer')), taken on a connection of its own (a pool of one, apart from the
// storage pool, so it is never handed to another query nor returned to a pool with the lock
// on it). The database holds it for the life of that session: a process killed with
// SIGKILL loses its socket, the server ends the session and frees the lock, and the next
// process polling for it (every LEASE_POLL) takes it. The holder checks its session every
// HEARTBEAT; if a check fails the lease is reported lost and the holder stops sequencing.
// Every statement on the lease's session is bounded in time (HEARTBEAT_TIMEOUT,
// LEASE_ANSWER_LIMIT): unanswered, it fails and the session is dropped (ownSockets.ts), so
// a database the network stopped reaching is reported as storage failing within seconds,
// not read as another holder for the kernel's TCP timeout. Those are floors, for a database
// nearby: a distant one gets as many round trips as it needs (databaseDistance.ts), and a
// connection's set-up is bounded apart from its statements, which are counted once it is
// ready (set-up takes several round trips, a statement one). Each bound is the one of the
// database's distance when it is used, which the storage watch keeps current: each wait for
// the lease opens its own connection (a pool's connect timeout is fixed when the pool is
// made), so a database that got farther after the start (a failover to another region) is
// given the longer set-up at the next wait, not refused for good.
// The head row of the log (PgLogStore.ts) stays the guard against a fork: even a holder
// that has not noticed its loss yet cannot append at a position another has taken.
//
// A wait is told when a try finds the lease held (`lease`, Coordination.ts): the try
// answered false. A try that fails, or is not answered within its bound, ends the wait with
// a StorageError: the process then says storage_unavailable, never that another process
// sequences, however far the database and however long its bounds.
//
// The lease is bounded in time as well: a session whose holder is alive but stuck (paused
// by SIGSTOP, a frozen VM, a half-open network) would keep the lock, and the service would
// answer 503 as long as it stays stuck. The lease session sets idle_session_timeout
// (LEASE_IDLE_LIMIT), so the database ends a session that missed its heartbeats and frees
// the lock; the heartbeat is the renewal. A stuck holder's transaction that holds the
// epoch row (an append, a removal) would block its successor's raise, so those
// transactions bound their own idle time too (holdLeaseEpoch, leaseEpoch.ts). When the
// stuck holder resumes, its heartbeat fails on the ended session, it reports the lease
// lost, and the fence refuses whatever it still tries to write.
//
// Right after taking the lock, on the same session, the new holder raises the lease epoch
// (leaseEpoch.ts) and the lease carries it as its fence: the log's appends, the body
// store's deletes and the relay below check it, so a holder that has not noticed its loss
// writes nothing its successor does not see, and deletes nothing it may need.
//
// Relayed submissions are rows of aics_relay (migrations.ts): inserted waiting (claimed_at
// null), claimed by the holder with FOR UPDATE SKIP LOCKED, answered with an outcome
// (jsonb), deleted by the process that relayed them once it has read the answer. Each step
// NOTIFYs a channel named after the schema, so nobody polls in the common case; polls at
// a slow pace cover a lost notification. One fiber per process reads the answers of all
// its waiting submissions, one query per notification, whatever their number.
//
// Each claimed row records the epoch it was claimed under (claimed_epoch, migration
// 0011_relay_claimed_epoch; the contract is in Coordination.ts). A claim, and the orphans'
// re-stamp, run in a transaction that first share-locks the epoch row where it is the
// caller's (holdLeaseEpoch, as an append does): the next holder's raise waits for them to
// commit, and its orphans, read after the raise, see every row claimed before; a claim
// after the raise finds no epoch row and takes nothing. A release or an answer needs no
// such lock: it matches claimed_epoch in its WHERE, and a re-stamp of the same row by the
// next holder's orphans is ordered against it by the row lock (READ COMMITTED rechecks the
// WHERE on the row the other committed), so the earlier holder's statement either came
// first, while the row was still its own, or finds it no longer is.

import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Layer, LogLevel, Option, Queue, Redacted, Schedule, Scope, Stream } from "effect"
import { failureLines } from "../../app/failureLines.js"
import { fromHex, toHex } from "../../domain/bytes.js"
import { Coordination, type ClaimedSubmission, type RelayedOutcome, type RelayedSubmission } from "../../ports/Coordination.js"
import { StorageError } from "../../ports/StorageError.js"
import type { LeaseFence } from "../../ports/LeaseFence.js"
import { DatabaseDistance, tellDistance } from "./databaseDistance.js"
import { advanceLeaseEpoch, HELD_EPOCH_IDLE_LIMIT_MS, holdLeaseEpoch } from "./leaseEpoch.js"
import { ownSockets } from "./ownSockets.js"
import { keepListening } from "./pgListener.js"
import { storage, toBytes, transact, unreachable } from "./pgValues.js"

/** How often a process that does not hold the lease tries to take it. */
const LEASE_POLL = Duration.millis(250)
/** How often the holder checks its lease session, and how long a check may take. */
const HEARTBEAT = Duration.millis(500)
const HEARTBEAT_TIMEOUT = Duration.seconds(2)
/**
 * How long the lease's other statements (trying for the lock, its unlock), and connecting
 * its session, may take before the database counts as not answering: the try fails with a
 * StorageError and the session is dropped (ownSockets.ts). A network that drops packets
 * silently would otherwise hang the try for the kernel's TCP timeout (minutes), and the
 * process would neither sequence nor say why. Each of these statements takes milliseconds
 * on a database that answers. The floor of both bounds: a database far away gets
 * SETUP_ROUND_TRIPS round trips to connect and ANSWER_ROUND_TRIPS to answer when those are
 * longer (databaseDistance.ts). However long, a try left unanswered is a StorageError, never
 * a lease held elsewhere (see the header).
 */
export const LEASE_ANSWER_LIMIT = Duration.millis(1_500)
/**
 * How long the lease session may sit idle before the database ends it, and frees the lock
 * with it (PostgreSQL's idle_session_timeout, set on that session alone). The heartbeat
 * keeps a live holder's session busy every HEARTBEAT; a holder that stops running (SIGSTOP,
 * a frozen VM, a long GC pause, a half-open network) sends nothing, and loses the lease
 * this long after its last heartbeat, however long it stays stuck. With LEASE_POLL, the
 * next holder takes over within LEASE_IDLE_LIMIT + LEASE_POLL of the holder's last
 * heartbeat, inside the 5 s failover bound (docs/operations.md, "A stuck sequencer").
 */
export const LEASE_IDLE_LIMIT = Duration.seconds(3)
/** How long handing claimed submissions back may take (release). */
const RELEASE_LIMIT = Duration.seconds(5)
/** How often the waiting answers are read when no notification came. */
const ANSWER_POLL = Duration.millis(250)
/** How often the holder looks for waiting submissions when no notification came. */
const SUBMITTED_POLL = Duration.millis(250)
/** How often a process reads the log size when no notification came. */
const APPENDED_POLL = Duration.seconds(1)

export interface PgCoordinationOptions {
  /** How long a relayed submission waits to be claimed before it is withdrawn (default 10 s). */
  readonly unclaimedTimeout?: Duration.DurationInput
}

interface OutcomeJson {
  readonly t: "a" | "r"
  readonly index?: number
  readonly logged?: number
  readonly leafHash?: string
  readonly code?: string
  readonly detail?: string
  readonly at?: number
}

const toJson = (outcome: RelayedOutcome): OutcomeJson =>
  outcome._tag === "Accepted"
    ? { t: "a", index: outcome.index, logged: outcome.logged, leafHash: toHex(outcome.leafHash) }
    : { t: "r", code: outcome.code, detail: outcome.detail, at: outcome.at }

const fromJson = (json: OutcomeJson): RelayedOutcome =>
  json.t === "a"
    ? { _tag: "Accepted", index: json.index!, logged: json.logged!, leafHash: fromHex(json.leafHash!)! }
    : { _tag: "Refused", code: json.code as Extract<RelayedOutcome, { _tag: "Refused" }>["code"], detail: json.detail!, at: json.at! }

const parseJson = (value: unknown): OutcomeJson => (typeof value === "string" ? JSON.parse(value) : value) as OutcomeJson

export const PgCoordinationLive = (
  url: string | Redacted.Redacted<string>,
  options: PgCoordinationOptions = {}
): Layer.Layer<Coordination, StorageError, SqlClient.SqlClient | DatabaseDistance> =>
  Layer.scoped(Coordination, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const unclaimedTimeout = options.unclaimedTimeout ?? Duration.seconds(10)

    // One channel (NOTIFY is database-wide, and each schema is a deployment of its own), its
    // payload "<kind> <detail>": one LISTEN, on a listening connection of its own. A
    // channel a kind, three LISTENs issued at once, had node-postgres warn at every start
    // that a query was sent while another ran (deprecated, an error from pg 9).
    const [{ schema }] = (yield* sql<{ schema: string }>`SELECT current_schema() AS schema`.pipe(storage("open"))) as [{ schema: string }]
    const CHANNEL = `aics_coordination_${schema}`.slice(0, 63)
    type Kind = "submitted" | "answered" | "appended"
    const notify = (kind: Kind, detail: string) => Effect.asVoid(sql`SELECT pg_notify(${CHANNEL}, ${`${kind} ${detail}`})`)
    // The bounds of the lease's and the listener's connections follow this database's distance.
    const distance = yield* DatabaseDistance
    const leaseSetup = distance.setup(LEASE_ANSWER_LIMIT)
    const leaseAnswer = distance.answer(LEASE_ANSWER_LIMIT)
    yield* tellDistance(distance, LEASE_ANSWER_LIMIT)

    // Wakes fed by LISTEN, one a kind; a lost listener only slows things to the polls, and
    // comes back by itself (pgListener.ts).
    const wakes = {
      submitted: yield* Queue.sliding<void>(1),
      answered: yield* Queue.sliding<void>(1),
      appended: yield* Queue.sliding<void>(1)
    }
    const redacted = typeof url === "string" ? Redacted.make(url) : url
    yield* keepListening(redacted, CHANNEL, distance, (payload) => {
      const kind = payload.split(" ", 1)[0]
      return kind === "submitted" || kind === "answered" || kind === "appended" ? Queue.offer(wakes[kind], undefined) : Effect.void
    })
    const waking = (kind: Kind) => (poll: Duration.Duration) => Effect.asVoid(Queue.take(wakes[kind]).pipe(Effect.timeoutOption(poll)))
    const submittedWake = waking("submitted")
    const answeredWake = waking("answered")
    const appendedWake = waking("appended")

    const LOCK = `hashtext(current_schema() || '.aics_sequencer')`

    // One wait at a time in this process: a second waits for the first's lease to end, and is
    // told the lease is held while the first holds it. A session of its own would do on a
    // server (the lock excludes the process's own sessions too), but not on a single-session
    // embedded one (PGlite, the tests'), where every connection shares the lock.
    const turn = yield* Effect.makeSemaphore(1)
    let holding = false

    const seekLease = (heldElsewhere: Effect.Effect<void> = Effect.void) => Effect.gen(function*() {
      // Held elsewhere once a try answers false, or this process's own lease holds it; told once a wait.
      let told = false
      const tell = Effect.suspend(() => (told ? Effect.void : Effect.zipRight(Effect.sync(() => void (told = true)), heldElsewhere)))
      if (holding) yield* tell
      yield* Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(turn.take(1)), Effect.addFinalizer(() => turn.release(1))))
      // The lease's own connection, a pool of one for this wait and its lease, on sockets of
      // its own: a statement the database does not answer in time fails, and its connection
      // is dropped (ownSockets.ts, LEASE_ANSWER_LIMIT). Connecting is bounded by the pool, for
      // the database's distance now (opening it runs a first statement, within the set-up's
      // bound, whose connection `reserve` then takes), each statement on the connection from
      // when it is sent. The pool is ended apart once the wait or its lease is over, not
      // waited for: after a statement given up on, the driver's cancel of it may be
      // connecting, and the pool's end waits for that (up to a second) while the process
      // could be trying again.
      const leaseSockets = ownSockets()
      const setup = yield* leaseSetup
      const poolScope = yield* Scope.make()
      // Its sockets are cut once the pool's end is done or given up (sql-pg waits a second
      // for it): a connection the pool never got back, taken by a `reserve` whose wait was
      // interrupted as it was answered (sql-pg's reserve has no canceller), would otherwise
      // stay open, and its session with it, for the life of the process.
      yield* Effect.addFinalizer(() => Effect.asVoid(Effect.forkDaemon(Effect.ensuring(Scope.close(poolScope, Exit.void), leaseSockets.cut()))))
      const leaseSql = yield* Scope.extend(Layer.build(PgClient.layer({
        url: redacted, maxConnections: 1, applicationName: "aics-lease", connectTimeout: setup, stream: leaseSockets.stream
      })), poolScope).pipe(
        Effect.mapError(unreachable("lease", redacted)),
        leaseSockets.within(setup, "lease"),
        Effect.flatMap((context) => Effect.provide(SqlClient.SqlClient, context))
      )
      const answered = <A, R>(statement: Effect.Effect<A, StorageError, R>) =>
        Effect.flatMap(leaseAnswer, (limit) => leaseSockets.within(limit, "lease")(statement))
      const connection = yield* leaseSql.reserve
      // Bounds the lease in time (LEASE_IDLE_LIMIT): a session that stops talking is ended.
      // A server before PostgreSQL 14 has no such setting: the lease then lasts as long as
      // its session, as before, and the operator is told.
      yield* connection.execute(`SET idle_session_timeout = ${Duration.toMillis(LEASE_IDLE_LIMIT)}`, [], undefined).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("the lease cannot be bounded in time (idle_session_timeout needs PostgreSQL 14): a stuck holder keeps it until its session ends")
            .pipe(Effect.annotateLogs({ error: error.message }))),
        answered
      )
      const tryLock = connection.execute(`SELECT pg_try_advisory_lock(${LOCK}) AS held`, [], undefined).pipe(
        Effect.map((rows) => rows[0]?.held === true),
        storage("lease"),
        answered,
        Effect.tap((held) => (held ? Effect.void : tell))
      )
      // The unlock is registered before the first try: a wait for the lease that is
      // interrupted (Charter races it against leaf 0 being written) as a try takes the lock
      // still gives the lock up. Unlocking a lock not held does nothing.
      yield* Effect.addFinalizer(() => Effect.ignore(connection.execute(`SELECT pg_advisory_unlock(${LOCK})`, [], undefined).pipe(storage("lease"), answered)))
      yield* tryLock.pipe(
        Effect.repeat({ until: (held) => held, schedule: Schedule.spaced(LEASE_POLL) })
      )
      yield* Effect.acquireRelease(Effect.sync(() => void (holding = true)), () => Effect.sync(() => void (holding = false)))
      // Before the first batch: from here on the predecessor's deletes find no matching epoch.
      // It may wait for a predecessor's transaction that holds the epoch row, bounded by
      // HELD_EPOCH_IDLE_LIMIT when that one is stuck.
      const fence = yield* advanceLeaseEpoch(connection).pipe(
        leaseSockets.within(Duration.sum(yield* leaseAnswer, Duration.millis(HELD_EPOCH_IDLE_LIMIT_MS)), "lease"))
      const lost = yield* Deferred.make<void>()
      // A failed check means the session, and the lock with it, may be gone.
      const heartbeatLimit = distance.answer(HEARTBEAT_TIMEOUT)
      yield* Effect.forkScoped(connection.execute("SELECT 1", [], undefined).pipe(
        storage("heartbeat"),
        (heartbeat) => Effect.flatMap(heartbeatLimit, (limit) => leaseSockets.within(limit, "heartbeat")(heartbeat)),
        Effect.zipRight(Effect.sleep(HEARTBEAT)),
        Effect.forever,
        Effect.catchAll((error) =>
          Effect.zipRight(
            Effect.logError("the sequencing lease is lost").pipe(Effect.annotateLogs({ error: error.message })),
            Deferred.succeed(lost, undefined)
          ))
      ))
      return { lost: Deferred.await(lost), fence }
    }).pipe(storage("lease"))

    // Every submission this process relayed and waits for, by id.
    const waiting = new Map<string, Deferred.Deferred<RelayedOutcome>>()
    const readAnswers = Effect.gen(function*() {
      if (waiting.size === 0) return
      const ids = [...waiting.keys()]
      const rows = yield* sql<{ id: string; outcome: unknown }>`SELECT id, outcome FROM aics_relay
        WHERE id = ANY(${ids}::bigint[]) AND outcome IS NOT NULL`
      if (rows.length === 0) return
      yield* sql`DELETE FROM aics_relay WHERE id = ANY(${rows.map((r) => String(r.id))}::bigint[])`
      for (const row of rows) {
        const done = waiting.get(String(row.id))
        waiting.delete(String(row.id))
        if (done !== undefined) yield* Deferred.succeed(done, fromJson(parseJson(row.outcome)))
      }
    })
    // Tried every ANSWER_POLL while submissions wait: one line when it starts failing (the
    // database down), not four a second (app/failureLines.ts).
    const answerReads = failureLines(LogLevel.Warning, Clock.currentTimeMillis)
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      answeredWake(ANSWER_POLL),
      readAnswers.pipe(
        storage("answers"),
        Effect.zipRight(answerReads.worked("reading relayed answers works again")),
        Effect.catchAll((error) => answerReads.failed("reading relayed answers failed", Cause.fail(error)))
      )
    )))

    const relay = (submission: RelayedSubmission) =>
      Effect.gen(function*() {
        // Stored and announced in one statement (the NOTIFY is sent at its commit).
        const done = yield* Deferred.make<RelayedOutcome>()
        const [row] = yield* sql<{ id: string }>`WITH stored AS (
            INSERT INTO aics_relay (envelope_jcs, body)
            VALUES (${submission.envelopeJcs}, ${submission.body === null ? null : Buffer.from(submission.body)}) RETURNING id
          ) SELECT id, pg_notify(${CHANNEL}, 'submitted ' || id::text) FROM stored`
        const id = String(row!.id)
        waiting.set(id, done)
        const answered = yield* Deferred.await(done).pipe(Effect.timeoutOption(unclaimedTimeout))
        if (Option.isSome(answered)) return answered.value
        // Not answered in time: withdrawn if no sequencer claimed it, else it waits on.
        const withdrawn = yield* sql`DELETE FROM aics_relay WHERE id = ${id} AND claimed_at IS NULL RETURNING id`
        if (withdrawn.length === 1) {
          waiting.delete(id)
          return yield* new StorageError({ operation: "relay", detail: "no sequencer took the submission" })
        }
        return yield* Deferred.await(done)
      }).pipe(storage("relay"))

    const claimedOf = (row: { id: unknown; envelope_jcs: string; body: unknown; claimed_at: unknown }): ClaimedSubmission => ({
      id: String(row.id),
      submission: { envelopeJcs: row.envelope_jcs, body: row.body === null ? null : toBytes(row.body) },
      claimedAt: Number(row.claimed_at)
    })

    type ClaimedRow = { id: string; envelope_jcs: string; body: Uint8Array | null; claimed_at: string }
    /** Runs `take` only while `fence` is the latest, the epoch row share-locked until it commits. */
    const whileLatest = (operation: string, fence: LeaseFence, take: Effect.Effect<ReadonlyArray<ClaimedRow>, SqlError>) =>
      transact(sql, operation, Effect.flatMap(holdLeaseEpoch(sql, fence), (latest) => (latest ? take : Effect.succeed([]))))

    // Tried every SUBMITTED_POLL while this process sequences, so one is often under way when
    // the lease is lost: the holder stops at once, without waiting for its interruption (the
    // ROLLBACK, on a connection the network dropped silently, would wait for the kernel's TCP
    // timeout). A claim that commits after all is the next holder's orphan (see the header).
    const claim = (max: number, logSize: number, fence: LeaseFence) =>
      whileLatest("claim", fence, sql<ClaimedRow>`UPDATE aics_relay SET claimed_at = ${logSize}, claimed_epoch = ${fence.epoch}
        WHERE id IN (SELECT id FROM aics_relay WHERE claimed_at IS NULL ORDER BY id LIMIT ${max} FOR UPDATE SKIP LOCKED)
        RETURNING id, envelope_jcs, body, claimed_at`).pipe(
        Effect.map((rows) => rows.map(claimedOf).sort((a, b) => Number(a.id) - Number(b.id))),
        Effect.disconnect
      )

    // `outcome IS NULL` too: the first answer of a fence stands.
    const answer = (answers: ReadonlyArray<{ readonly id: string; readonly outcome: RelayedOutcome }>, fence: LeaseFence) =>
      answers.length === 0 ? Effect.void : Effect.zipRight(
        sql`UPDATE aics_relay SET outcome = t.outcome, answered_at = now()
          FROM unnest(${answers.map((a) => a.id)}::bigint[], ${answers.map((a) => JSON.stringify(toJson(a.outcome)))}::jsonb[]) AS t(id, outcome)
          WHERE aics_relay.id = t.id AND aics_relay.claimed_epoch = ${fence.epoch} AND aics_relay.outcome IS NULL`,
        notify("answered", String(answers.length))
      ).pipe(storage("answer"))

    // Answers nobody read (the relaying process died) are dropped after a while. The
    // unanswered claims become the caller's, whoever made them (see the header).
    const orphans = (fence: LeaseFence) =>
      Effect.zipRight(
        sql`DELETE FROM aics_relay WHERE answered_at < now() - interval '10 minutes'`.pipe(storage("orphans")),
        whileLatest("orphans", fence, sql<ClaimedRow>`UPDATE aics_relay SET claimed_epoch = ${fence.epoch}
          WHERE claimed_at IS NOT NULL AND outcome IS NULL RETURNING id, envelope_jcs, body, claimed_at`)
      ).pipe(Effect.map((rows) => rows.map(claimedOf).sort((a, b) => Number(a.id) - Number(b.id))))

    // The hand-over when a lease ends, which the holder waits for before it tries for the
    // lease again: bounded, so a database that stopped answering is reported as such
    // (RELEASE_LIMIT). Rows not handed back stay claimed: the next holder's orphans.
    const release = (ids: ReadonlyArray<string>, fence: LeaseFence) =>
      ids.length === 0 ? Effect.void : Effect.zipRight(
        sql`UPDATE aics_relay SET claimed_at = NULL, claimed_epoch = NULL
          WHERE id = ANY(${ids}::bigint[]) AND claimed_epoch = ${fence.epoch} AND outcome IS NULL`,
        notify("submitted", "released")
      ).pipe(
        storage("release"),
        Effect.disconnect,
        Effect.timeoutFail({
          duration: RELEASE_LIMIT,
          onTimeout: () => new StorageError({ operation: "release", detail: `the database did not answer within ${Duration.format(RELEASE_LIMIT)}` })
        })
      )

    return Coordination.of({
      lease: seekLease,
      relay,
      submitted: submittedWake(SUBMITTED_POLL),
      claim,
      answer,
      orphans,
      release,
      announce: (size) => notify("appended", String(size)).pipe(storage("announce")),
      appended: Stream.repeatEffect(appendedWake(APPENDED_POLL))
    })
  }))
