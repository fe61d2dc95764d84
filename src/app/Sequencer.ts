// The single writer of the log (issue "Signed writes", docs/spec/service.md "Log entry request").
// Submissions that passed the stateless checks queue here; one fiber takes whatever is
// queued (up to MAX_BATCH; under load it lets a few milliseconds' more gather first,
// BATCH_LINGER_MS), loads the slice of state they read from the projection store
// (stateSlices.ts: the resident parts, held in memory, and the rows their rules read;
// issue 12), decides each in order with the pure `decide` on it, makes the whole batch
// durable (bodies first, then the leaves, one fsync round each), writes what the batch
// changed to the projection store, and only then answers every submission of the batch,
// accepted and refused alike, in decision order. Batching is natural group commit: while
// one batch is being made durable, the next one gathers in the queue. Nothing of the state
// that grows with the log is held here: a start folds into the store only the leaves it
// lacks (projectionStart.ts).
//
// Why refusals wait for the commit too: a refusal can depend on an earlier acceptance of
// the same batch (a claim refused because the batch already took the name, a seq refused
// because the batch advanced the key's chain). If the batch then fails, the log does not
// hold what that refusal rests on, and its signed receipt would contradict the log. So a
// batch that cannot be made durable answers every submission log_unavailable, and the
// state is not advanced: the state after a failed commit is the state before it. Waiting
// also keeps the answers to one key in log order.
//
// An envelope the batch would log at or after its expires is refused signature_expired
// (domain/write/decisionDeadline.ts), however long it waited here or in a relay: so a writer
// whose answer was lost knows when the log can no longer take it.
//
// Refusals leave no trace: nothing of a refused submission is written, and the state used
// for the next decision is the one after the last committed leaf (a failed batch's slice
// is dropped; the next one is loaded anew).
//
// Not pipelined: deciding batch N+1 and writing its bodies while batch N's leaves are
// appended was built and measured with bench/write. It was no faster (0.9x to 1.0x of
// this) and its checkpoint coverage p99 was worse (about 1.1 s against 0.8 s): the write
// path is bound by the event loop's CPU, not by fsync waits, and overlapping the stages
// makes the batches smaller, so each entry pays for more fsync rounds. What a commit waits
// for is mostly the event loop's turns between its I/O calls (a few ms each under load,
// against ~0.3 ms for the syscall), which is why the stores make a batch durable in as few
// calls as they can (O_DSYNC files: one write per file).
//
// The queue is bounded: when it is full a submission is refused at once with queue_full
// (503 and Retry-After), so the service degrades by saying no rather than by growing.
//
// Once leaf 0 is written, only a batch writes to the body store, and a batch that names
// bytes already stored writes nothing there. So whatever deletes bodies (retention, in
// BodyLedger) does it between batches (betweenBatches): then, between its decision and its
// deletion, no leaf of this process can come to name them. betweenBatches hands it the fence
// of the lease this process holds, for the body store to check against a successor's leaves
// (BodyStore.remove; docs/operations.md, "Retention").
//
// Several processes (docs/protocol.md section 14): only the process holding the lease
// (Coordination) decides and commits. While it leads, it also claims the submissions other
// processes relayed, decides them in the same batches, and answers them through
// Coordination once the batch is durable. Every other process relays its submissions and
// answers its client with the outcome the sequencer sent back (the same receipt: receipts
// are deterministic signatures of the outcome), after reading the new leaves, so its own
// views already show the entry. All processes fold every new leaf into their state
// (catchUp), whoever wrote it. On taking the lease a process first catches up, then
// settles the submissions a dead predecessor claimed but never answered: those the log
// holds are answered from the log, the others go back to waiting and are decided anew.
// A batch that cannot be made durable ends the leadership: the lease is given up and taken
// again, so the next batch starts from what the store holds (another process may have
// appended), and submissions still queued are relayed rather than dropped. A batch whose
// append finds a later lease (LeaseSuperseded: this process was deposed without noticing
// yet, and the store wrote nothing, docs/operations.md "The log's appends") ends the
// leadership too, at once; since nothing of it is in the log and nothing of it was
// answered, its submissions are handed on first, ahead of those still queued, to be decided
// by the new holder: none is answered by this process, accepted or refused. On the
// filesystem, Coordination is one process's own (MemoryCoordination): the lease is taken at
// once and never lost, so this is the single-node path, at the same speed. A process that
// takes the lease first looks again at the shared evidence that the log went back
// (LogHealth.recheck: a witness's stored alarm, the checkpoint this node kept), so it never
// writes on a log another node found diverged a moment before.
//
// Whether this process can take writes, for /healthz (`health`, app/ServiceHealth.ts): the
// work above that retries by itself (trying for the lease, reading new leaves) and the
// batches say when the log's storage fails them, and stop saying so when it works again;
// a process that does not sequence says when it has seen no process sequence (its tries to
// lead fail) for longer than a takeover takes, and that another process sequences only when
// its try found the lease held (Coordination.lease), never when the try failed. All of it is held in memory, set by the work as it runs:
// /healthz reads it and touches no storage. Each work logs one line when it starts failing,
// a reminder a minute while it goes on, and one when it works again (failureLines.ts): a
// database outage used to log two stack traces a second on every node. A batch whose
// write does not end (a disk that stalls, a database that stops answering mid-statement)
// fails nothing until it ends, perhaps minutes later: so a write in flight longer than
// BATCH_WRITE_STALLED_MILLIS is said too, with the time it began, while it lasts.
//
// While its witnesses have not all been heard since this process began sequencing
// (LogHealth.awaited, CosignatureCollector's first round), the log may be behind what they
// cosigned without knowing it yet: each batch is then refused log_unavailable, nothing of
// it decided or written, and /healthz says awaiting_witnesses.

import { Cause, Context, Deferred, Duration, Effect, Either, Exit, Layer, LogLevel, Option, Queue, Schedule, Stream, SubscriptionRef, type Tracer } from "effect"
import { entryBytesFromJcs } from "../domain/envelope/leaf.js"
import { makeTreeHasher, type Hash } from "../domain/tlog/hasher.js"
import { expiredBeforeDecision } from "../domain/write/decisionDeadline.js"
import { refuse, type Refusal } from "../domain/write/refusal.js"
import { envelopeOfLeaf, relayedBytes, submissionFromRelayed } from "../domain/write/relayed.js"
import type { Submission } from "../domain/write/submission.js"
import { BodyStore, type StoredBody } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import { Coordination, type RelayedOutcome } from "../ports/Coordination.js"
import { Crypto } from "../ports/Crypto.js"
import type { LeaseFence } from "../ports/LeaseFence.js"
import { LogStore, type NamedBody } from "../ports/LogStore.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import { bodyReference } from "../domain/bodyReference.js"
import { withoutServerPaths } from "../domain/http/serverPaths.js"
import { LogHealth } from "./LogHealth.js"
import { LogWriter } from "./LogWriter.js"
import { failureLines } from "./failureLines.js"
import { countBatch } from "./Metrics.js"
import { NodeRole } from "./NodeRole.js"
import { type FoldPoint, foldProjectionTo } from "./projectionFold.js"
import { projectionAtStart } from "./projectionStart.js"
import { decideOnSlice, SliceRun } from "./stateSlices.js"
import { emptyResident } from "../domain/write/stateSlice.js"
import { writeTracing } from "./Tracing.js"

export type WriteOutcome =
  | {
    readonly _tag: "Accepted"
    readonly index: number
    readonly logged: number
    readonly leafHash: Hash
    readonly entryBytes: Uint8Array
  }
  | { readonly _tag: "Refused"; readonly refusal: Refusal; readonly at: number }

interface Job {
  readonly submission: Submission
  readonly done: Deferred.Deferred<WriteOutcome>
  /**
   * Set when another process relayed it: its outcome goes back through Coordination, under
   * the fence of the lease this process claimed it under (Coordination.ts: only that fence
   * answers or releases it).
   */
  readonly relayed?: { readonly id: string; readonly fence: LeaseFence }
  /** The submitter's span, with traces on (app/Tracing.ts): its batch's span names it. */
  readonly span?: Tracer.Span
}

/** One submission of a decided batch: accepted at an index, or refused. */
type Decided =
  | { readonly job: Job; readonly accepted: true; readonly index: number; readonly logged: number; readonly entryBytes: Uint8Array }
  | { readonly job: Job; readonly accepted: false; readonly refusal: Refusal }

/**
 * How a batch ended: made durable and answered; held (refused log_unavailable before any
 * decision, while the witnesses' first answers are awaited); failed and answered
 * log_unavailable; or superseded by a later lease, written nowhere and answered never.
 */
type BatchEnd = "committed" | "held" | "failed" | "superseded"

/** At most this many submissions are decided and committed together. */
export const MAX_BATCH = 1024
/**
 * A batch under load (the last one held more than one submission) that finds fewer than
 * BATCH_LINGER_BELOW waiting waits BATCH_LINGER_MS for more; a lone writer's batch starts at
 * once. Submissions reach the queue one by one as their checks finish, so the loop started
 * a batch with whatever had arrived, and each batch's fixed costs (the state slice's reads,
 * the projection store's commit, two fsync rounds) were shared by few. bench/write.js
 * 64 150, six runs alternating: batches of 17 -> 25 on average, 766 -> 793 entries/s and
 * 1,073 -> 1,033 µs of main thread an entry (means; single runs spread by 30% on this
 * machine, bench/README.md session 10); a lone writer's 202 p50 unchanged (9.3 ms).
 */
export const BATCH_LINGER_MS = 3
export const BATCH_LINGER_BELOW = 32
/** Submissions waiting beyond this many are refused with queue_full. */
export const QUEUE_CAPACITY = 8192
/** Leaves folded per read when the state catches up with the log. */
const FOLD_CHUNK = 1024
/**
 * How long a process that does not sequence may see no process sequence before /healthz
 * says so (no_sequencer): the takeover time. A lease its holder stopped renewing
 * is free within PgCoordination's LEASE_IDLE_LIMIT (3 s) and taken at the next poll (250 ms),
 * inside the 5 s docs/operations.md promises ("A stuck sequencer").
 */
export const NO_SEQUENCER_AFTER_MILLIS = 5_000
/**
 * How long a batch's failure to write is reported after the last one. Trying for the lease
 * and reading new leaves retry by themselves, so their successes end their reports; batches
 * run only when clients write, and an idle log would otherwise report one failure for good.
 */
export const BATCH_FAILURE_REPORTED_MILLIS = 60_000
/**
 * A batch's write (its bodies, its leaves, then the projection's changes) still unfinished
 * after this long is reported (storage_unavailable) while it lasts: the write is a few fsync
 * rounds or one transaction, milliseconds even under load (bench/write: well under a second
 * at its p99), so 5 s is a storage that stopped answering, not a busy one; and it is the
 * takeover time (NO_SEQUENCER_AFTER_MILLIS), what a stuck node is given on the other side.
 */
export const BATCH_WRITE_STALLED_MILLIS = 5_000

const relayedOutcome = (outcome: WriteOutcome): RelayedOutcome =>
  outcome._tag === "Accepted"
    ? { _tag: "Accepted", index: outcome.index, logged: outcome.logged, leafHash: outcome.leafHash }
    : { _tag: "Refused", code: outcome.refusal.code, detail: outcome.refusal.detail, at: outcome.at }

export interface SequencedPoint extends FoldPoint {
  readonly projected: number
}

/** Whether this process can take writes, as /healthz reports it (app/ServiceHealth.ts). */
export interface SequencingHealth {
  /** Why the log's storage fails this process's sequencing work (the latest failure), while it does. */
  readonly storageFailure: string | undefined
  /**
   * Seconds this process, which does not sequence, has seen no process sequence (its tries
   * to lead fail, and no other holds the lease), once that is longer than a takeover takes
   * (NO_SEQUENCER_AFTER_MILLIS); else undefined.
   */
  readonly withoutSequencerSeconds: number | undefined
  /**
   * Why this process, which sequences, refuses writes until its witnesses have all been
   * heard (LogHealth.awaited); else undefined.
   */
  readonly awaitingWitnesses: string | undefined
}

export class Sequencer extends Context.Tag("aics/Sequencer")<Sequencer, {
  /** Decides and, if accepted, durably logs the submission; answers after the commit. */
  readonly submit: (submission: Submission) => Effect.Effect<WriteOutcome>
  /**
   * Where the log stands for this process: its committed size, the resident parts of the
   * state there (stateSlice.ts), and how far this process knows the projection store has
   * folded (the size, unless writing the projection failed: then the views fold it).
   */
  readonly point: Effect.Effect<SequencedPoint>
  /** Submissions waiting. */
  readonly queued: Effect.Effect<number>
  /**
   * Runs `effect` between two batches while this process sequences the log, with the fence
   * of the lease it sequences by, and answers its result; runs nothing and answers none
   * while it does not. Meanwhile nothing is decided, nor written to the body store or the
   * log: retention (BodyLedger) deletes bytes here, so no batch of this process can name
   * bytes between the decision and the deletion, and the fence keeps a successor's batches
   * safe from it too.
   */
  readonly betweenBatches: <A, E, R>(effect: (fence: LeaseFence) => Effect.Effect<A, E, R>) => Effect.Effect<Option.Option<A>, E, R>
  /** Whether this process can take writes now: from memory, no storage read. */
  readonly health: Effect.Effect<SequencingHealth>
}>() {
  static readonly layer = Layer.scoped(Sequencer, Effect.gen(function*() {
    const store = yield* LogStore
    const bodies = yield* BodyStore
    const writer = yield* LogWriter
    const clock = yield* Clock
    const crypto = yield* Crypto
    const coordination = yield* Coordination
    const { leading } = yield* NodeRole
    const logHealth = yield* LogHealth
    const context = { sha256: crypto.sha256, ed25519: crypto.ed25519 }
    const hasher = makeTreeHasher(crypto.sha256)
    const scope = yield* Effect.scope
    const tracing = yield* writeTracing

    const projection = yield* ProjectionStore
    const projectionContext = yield* Effect.context<ProjectionStore | LogStore | Crypto | Clock>()
    /**
     * Where the log stands: decisions are taken on slices loaded from the projection store
     * (stateSlices.ts), which the start brings to the log's size (only the tail after what
     * it had folded). Changed under `stateLock` only.
     */
    let point: SequencedPoint = yield* projectionAtStart.pipe(
      Effect.map((p) => ({ ...p, projected: p.folded })),
      // A store that cannot be folded (a full disk) does not stop the start: the log's reads
      // go on; every batch first tries the fold again and is refused while it fails.
      Effect.catchAll((error) =>
        Effect.zipRight(
          Effect.logError("the projection could not be brought to the log's size; writes are refused until it can", error),
          Effect.map(store.size, (size): SequencedPoint => ({ folded: size, projected: -1, resident: emptyResident }))
        ))
    )
    /** The projection store brought to the log's size `size` (folding from the log what it lacks). */
    const projectTo = (size: number) =>
      Effect.provide(foldProjectionTo(size, undefined, point.projected === point.folded ? point : undefined), projectionContext)
    const stateLock = yield* Effect.makeSemaphore(1)
    /** The fence of the lease this process sequences by; set exactly while it leads. */
    let leadingFence: LeaseFence | undefined
    /** The jobs of a batch a later lease superseded: handed on first when leadership ends. */
    let superseded: ReadonlyArray<Job> = []
    const queue = yield* Queue.dropping<Job>(QUEUE_CAPACITY)

    // The work that reports the storage failing it (see the header), each with its lines.
    const leaseWork = failureLines(LogLevel.Error, clock.nowMillis)
    const readingWork = failureLines(LogLevel.Warning, clock.nowMillis)
    const batchWork = failureLines(LogLevel.Error, clock.nowMillis)
    /**
     * Since when this process has seen no process sequence: its tries to lead fail (taking
     * the lease, or reading the log before leading). Undefined while it sequences, or while
     * another process holds the lease.
     */
    let unseenSince: number | undefined
    /** When the batch being written began its write (bodies, leaves, projection), while one is. */
    let writingSince: number | undefined
    /** Whether this process was the last to sequence that it knows of: a failure to lead again then stops sequencing. */
    let sequencedLast = false
    /** The lease is held, by this process or another: a sequencer is in sight, and the lease's storage answers. */
    const sequencerInSight = Effect.suspend(() => {
      unseenSince = undefined
      return leaseWork.worked()
    })

    /** Reads what other processes appended: the writer's frontier, then the state. */
    const catchUp = stateLock.withPermits(1)(Effect.gen(function*() {
      const size = yield* writer.refresh
      if (point.folded < size || point.projected < size) {
        const folded = yield* projectTo(size)
        point = { ...folded, projected: folded.folded }
      }
      return point.folded
    })).pipe(Effect.tap(() => readingWork.worked("reading new leaves works again")))

    /**
     * Sends the outcomes of relayed jobs back, and tells the others the log grew. A batch's
     * relayed jobs were all claimed under its own fence: the queue is handed over whenever a
     * leadership ends.
     */
    const answerRelayed = (
      answers: ReadonlyArray<{ readonly id: string; readonly outcome: RelayedOutcome }>,
      fence: LeaseFence,
      size: number
    ) =>
      Effect.zipRight(coordination.answer(answers, fence), coordination.announce(size)).pipe(
        Effect.retry(Schedule.intersect(Schedule.spaced(Duration.millis(200)), Schedule.recurs(25))),
        Effect.catchAll((error) => Effect.logError("relayed answers could not be written; the next sequencer settles them", error)),
        Effect.forkIn(scope)
      )

    /** Answers every job of a batch with one refusal (a batch held or failed): its own, or its relaying process's. */
    const refuseEvery = (jobs: ReadonlyArray<Job>, refusal: Refusal, at: number, fence: LeaseFence) =>
      Effect.gen(function*() {
        const outcome = { _tag: "Refused", refusal, at } as const
        const relayed: Array<{ id: string; outcome: RelayedOutcome }> = []
        for (const job of jobs) {
          if (job.relayed !== undefined) relayed.push({ id: job.relayed.id, outcome: relayedOutcome(outcome) })
          else yield* Deferred.succeed(job.done, outcome)
        }
        yield* answerRelayed(relayed, fence, point.folded)
      })

    /** Decides and commits one batch under the lease of `fence`; says how it ended. */
    const commitBatch = (jobs: ReadonlyArray<Job>, fence: LeaseFence) =>
      stateLock.withPermits(1)(Effect.gen(function*(): Effect.fn.Return<BatchEnd> {
        const at = yield* clock.nowMillis
        // Held until the witnesses are heard (see the header); on a diverged log the writer's
        // refusal, which names why, is the one given.
        const awaited = (yield* logHealth.diverged) === undefined ? yield* logHealth.awaited : undefined
        if (awaited !== undefined) {
          yield* refuseEvery(jobs, refuse("log_unavailable", withoutServerPaths(awaited)), at, fence)
          return "held"
        }
        const start = point.folded
        const decided: Array<Decided> = []
        const entries: Array<Uint8Array> = []
        const toStore: Array<StoredBody> = []
        const named: Array<NamedBody | undefined> = []
        // The slice the batch reads, loaded before any decision: a store that cannot be read
        // fails the batch like one that cannot be written (log_unavailable, nothing changed).
        const run = new SliceRun(projection, point.resident)
        const decideBatch = Effect.gen(function*() {
          // Decisions need the state at `start`: a store behind it is folded first, and a
          // batch is refused while that fails.
          if (point.projected < start) {
            const folded = yield* projectTo(start)
            point = { ...folded, projected: folded.folded }
            run.restart(point.resident)
          }
          yield* run.prepare(jobs.map((job) => job.submission))
          // The deadline is judged by this node's clock as it decides, read after the slice's
          // reads (which may be slow), as the writer judges it by the service's Date: not by
          // the leaves' logged, which never goes back and would carry a clock once set ahead
          // (a node an hour fast) into every later batch, refusing every write.
          const decidedAt = yield* clock.nowMillis
          for (const job of jobs) {
            // Too late: the writer may already have been told the log can no longer take it.
            const late = expiredBeforeDecision(job.submission.envelope, decidedAt)
            if (late !== undefined) {
              decided.push({ job, accepted: false, refusal: late })
              continue
            }
            const decision = yield* decideOnSlice(run, job.submission, at)
            if (Either.isLeft(decision)) {
              decided.push({ job, accepted: false, refusal: decision.left })
              continue
            }
            const { index, logged, entryBytes } = decision.right
            decided.push({ job, accepted: true, index, logged, entryBytes })
            entries.push(entryBytes)
            named.push(bodyReference(job.submission.envelope.payload))
            if (job.submission.body !== null) toStore.push(job.submission.body)
          }
        })
        const sliced = yield* Effect.either(tracing.on
          ? decideBatch.pipe(Effect.tap(() => tracing.annotate(() => decidedAttributes(decided))), tracing.span("aics.sequencer.decide"))
          : decideBatch)
        if (Either.isLeft(sliced)) {
          yield* batchWork.failed("the state a batch reads could not be loaded", Cause.fail(sliced.left))
          yield* refuseEvery(jobs, refuse("log_unavailable", sliced.left.detail), at, fence)
          return "failed"
        }

        // Bodies before leaves: a durable leaf must never name a body that is not.
        const writeStarted = performance.now()
        if (entries.length > 0) writingSince = yield* clock.nowMillis
        const durable = entries.length === 0
          ? Exit.succeed({ leafHashes: [] as ReadonlyArray<Hash> })
          : yield* Effect.exit(Effect.zipRight(
            toStore.length > 0 ? bodies.put(toStore) : Effect.void,
            writer.append(start, entries, fence, named)
          ).pipe(tracing.span("aics.sequencer.append", () => ({
            attributes: { "aics.append.leaves": entries.length, "aics.append.bodies": toStore.length, "aics.append.from": start }
          }))))

        yield* countBatch(jobs.length, entries.length === 0 ? undefined : (performance.now() - writeStarted) / 1000)
        if (Exit.isFailure(durable)) {
          writingSince = undefined
          const error = Option.getOrUndefined(Cause.failureOption(durable.cause))
          if (error?._tag === "LeaseSuperseded") {
            yield* Effect.logWarning("this process no longer sequences; its batch goes to the new holder").pipe(Effect.annotateLogs({ reason: error.message, batch: jobs.length }))
            superseded = jobs
            return "superseded"
          }
          yield* batchWork.failed("a batch could not be made durable", durable.cause)
          yield* refuseEvery(decided.map((d) => d.job), refuse("log_unavailable", error === undefined ? "the batch could not be written" : error.detail), at, fence)
          return "failed"
        }
        const { leafHashes } = durable.value
        if (entries.length > 0) {
          yield* batchWork.worked("batches are made durable again")
          // The leaves are durable: the projection follows them. If it cannot be written, the
          // log still holds the truth; the next batch and the views fold it from the log. Any
          // failure, a defect too, ends here: the leaves' submitters must still be answered.
          const changes = run.changes()
          const upTo = start + entries.length
          const written = yield* Effect.exit(projection.commit({ from: start, upTo, lastLeaf: leafHashes.at(-1)!, changes }))
          if (Exit.isFailure(written)) yield* Effect.logError("the projection could not be written; it is folded from the log", written.cause)
          const projected = Exit.isSuccess(written) && written.value ? upTo : yield* Effect.orElseSucceed(projection.folded, () => start)
          point = { folded: upTo, resident: changes.resident, projected: Math.min(projected, upTo) }
          writingSince = undefined
        }
        let leaf = 0
        const relayed: Array<{ id: string; outcome: RelayedOutcome }> = []
        for (const d of decided) {
          const outcome: WriteOutcome = d.accepted
            ? { _tag: "Accepted", index: d.index, logged: d.logged, leafHash: leafHashes[leaf++]!, entryBytes: d.entryBytes }
            : { _tag: "Refused", refusal: d.refusal, at }
          if (d.job.relayed !== undefined) relayed.push({ id: d.job.relayed.id, outcome: relayedOutcome(outcome) })
          else yield* Deferred.succeed(d.job.done, outcome)
        }
        yield* answerRelayed(relayed, fence, point.folded)
        return "committed"
      }))

    /**
     * A batch in a span when traces are on: a child of its first submitter's span (so one
     * write's trace shows the batch that took it), linked to every other submitter's.
     */
    const tracedBatch: (jobs: ReadonlyArray<Job>, fence: LeaseFence) => Effect.Effect<BatchEnd> = tracing.on
      ? (jobs, fence) =>
        commitBatch(jobs, fence).pipe(
          Effect.tap((end) => tracing.annotate(() => ({ "aics.batch.outcome": end }))),
          tracing.span("aics.sequencer.batch", () => ({
            ...(jobs[0]!.span === undefined ? { root: true } : { parent: jobs[0]!.span }),
            links: jobs.slice(1).flatMap((job) => (job.span === undefined ? [] : [{ _tag: "SpanLink" as const, span: job.span, attributes: {} }])),
            attributes: { "aics.batch.size": jobs.length, "aics.batch.relayed": jobs.filter((job) => job.relayed !== undefined).length }
          }))
        )
      : commitBatch

    // Nothing may interrupt a batch between its decisions and its answers, nor between the
    // take of its submissions and its decisions: a batch interrupted there (the lease lost
    // while it lingers) would hold submissions that neither a batch nor the hand-over
    // answers. Only the wait for a first submission can be interrupted. A batch that fails
    // or is superseded ends the loop, and with it this leadership.
    const batchLoop = (fence: LeaseFence) => {
      let lastBatch = 0
      const nextBatch = Effect.uninterruptibleMask((restore) =>
        restore(Queue.takeBetween(queue, 1, MAX_BATCH)).pipe(
          Effect.flatMap((first) =>
            // Under load (the last batch held more than one), a batch that finds few waiting
            // lets more gather for BATCH_LINGER_MS; a lone writer's batch starts at once.
            lastBatch > 1 && first.length < BATCH_LINGER_BELOW
              ? Effect.map(
                Effect.zipRight(Effect.sleep(BATCH_LINGER_MS), Queue.takeUpTo(queue, MAX_BATCH - first.length)),
                (more) => [...first, ...more]
              )
              : Effect.succeed(Array.from(first))),
          Effect.flatMap((jobs) => {
            lastBatch = jobs.length
            return tracedBatch(jobs, fence)
          })
        )
      )
      return nextBatch.pipe(Effect.repeat({ while: (end) => end === "committed" || end === "held" }), Effect.asVoid)
    }

    /** Claims what other processes relayed into the queue under `fence`, while there is room. */
    const intake = (fence: LeaseFence) => Effect.gen(function*() {
      yield* coordination.submitted
      while (true) {
        const room = Math.min(MAX_BATCH, QUEUE_CAPACITY - (yield* Queue.size(queue)))
        if (room <= 0) return
        const claimed = yield* coordination.claim(room, point.folded, fence)
        const unreadable: Array<{ id: string; outcome: RelayedOutcome }> = []
        for (const { id, submission } of claimed) {
          const rebuilt = submissionFromRelayed(submission, context)
          if (Either.isLeft(rebuilt)) {
            unreadable.push({ id, outcome: { _tag: "Refused", code: rebuilt.left.code, detail: rebuilt.left.detail, at: yield* clock.nowMillis } })
            continue
          }
          yield* Queue.offer(queue, { submission: rebuilt.right, done: yield* Deferred.make<WriteOutcome>(), relayed: { id, fence } })
        }
        yield* coordination.answer(unreadable, fence)
        if (claimed.length < room) return
      }
    }).pipe(Effect.forever)

    /**
     * Settles what a dead sequencer claimed and never answered (see the header), after
     * making those claims its own: only then do its answers and releases apply to them, and
     * the dead (or deposed) sequencer's no longer do.
     */
    const settleOrphans = (fence: LeaseFence) => Effect.gen(function*() {
      const orphans = yield* coordination.orphans(fence)
      if (orphans.length === 0) return
      const byEnvelope = new Map(orphans.map((o) => [o.submission.envelopeJcs, o]))
      const answers: Array<{ id: string; outcome: RelayedOutcome }> = []
      const size = point.folded
      for (let from = Math.min(...orphans.map((o) => o.claimedAt)); from < size; from += FOLD_CHUNK) {
        const leaves = yield* store.readEntries(from, Math.min(size, from + FOLD_CHUNK))
        for (const [i, leaf] of leaves.entries()) {
          const { envelopeJcs, logged } = envelopeOfLeaf(leaf)
          const orphan = byEnvelope.get(envelopeJcs)
          if (orphan === undefined) continue
          byEnvelope.delete(envelopeJcs)
          answers.push({ id: orphan.id, outcome: { _tag: "Accepted", index: from + i, logged, leafHash: hasher.leafHash(leaf) } })
        }
      }
      yield* coordination.answer(answers, fence)
      yield* coordination.release([...byEnvelope.values()].map((o) => o.id), fence)
      yield* Effect.logInfo("settled the submissions of an earlier sequencer").pipe(Effect.annotateLogs({ submissions: orphans.length, from_log: answers.length, decided_again: byEnvelope.size }))
    })

    const relay = (submission: Submission) =>
      Effect.gen(function*() {
        const outcome = yield* coordination.relay(relayedBytes(submission))
        if (outcome._tag === "Refused") return { _tag: "Refused", refusal: refuse(outcome.code, outcome.detail), at: outcome.at } as const
        // Answered after the leaf is read here too, so this process's views show it.
        if (point.folded <= outcome.index) yield* catchUp
        const entryBytes = entryBytesFromJcs(submission.envelopeJcs, outcome.index, outcome.logged)
        if (Either.isLeft(entryBytes)) return yield* Effect.die(entryBytes.left)
        return { _tag: "Accepted", index: outcome.index, logged: outcome.logged, leafHash: outcome.leafHash, entryBytes: entryBytes.right } as const
      }).pipe(
        Effect.catchAll((error) =>
          Effect.map(clock.nowMillis, (at) => ({ _tag: "Refused", refusal: refuse("log_unavailable", error.detail), at }) as const))
      )

    /** Hands a superseded batch, then what is queued here, to whichever process leads next. */
    const handOver = Effect.gen(function*() {
      const left = [...superseded, ...(yield* Queue.takeAll(queue))]
      superseded = []
      // By the fence each was claimed under: a successor that took one over keeps it.
      const claims = new Map<number, { fence: LeaseFence; ids: Array<string> }>()
      for (const job of left) {
        if (job.relayed === undefined) {
          yield* Effect.forkIn(Effect.flatMap(relay(job.submission), (outcome) => Deferred.succeed(job.done, outcome)), scope)
          continue
        }
        const { id, fence } = job.relayed
        const ofFence = claims.get(fence.epoch) ?? { fence, ids: [] }
        ofFence.ids.push(id)
        claims.set(fence.epoch, ofFence)
      }
      for (const { fence, ids } of claims.values()) yield* coordination.release(ids, fence)
    }).pipe(Effect.catchAll((error) => Effect.logError("queued submissions could not be handed over", error)))

    // The lease is at once this process's on the filesystem; on PostgreSQL another node may
    // hold it, and this one says so rather than saying nothing about its role: when a try
    // finds the lease held (Coordination.lease), a sequencer is in sight. Only then: a
    // try the storage cannot answer, or not in time, fails the wait, and is said as
    // storage_unavailable below, however long it took.
    const heldElsewhere = Effect.zipRight(
      Effect.zipRight(sequencerInSight, Effect.sync(() => void (sequencedLast = false))),
      Effect.logInfo("another process sequences the log: this one hands it its writes, serves reads, and takes over if it stops")
    )

    const leadOnce = Effect.scoped(Effect.gen(function*() {
      const lease = yield* coordination.lease(heldElsewhere)
      yield* catchUp
      // The evidence that the log went back, looked at again before the first write: the
      // holder before may have found it a moment ago, before this node reloaded it. Found,
      // the log is diverged here too, and the writer refuses every batch.
      yield* logHealth.recheck
      yield* settleOrphans(lease.fence)
      leadingFence = lease.fence
      sequencedLast = true
      yield* SubscriptionRef.set(leading, true)
      yield* sequencerInSight
      yield* Effect.logInfo("this process sequences the log").pipe(Effect.annotateLogs({ size: point.folded }))
      yield* Effect.raceFirst(lease.lost, Effect.raceFirst(batchLoop(lease.fence), intake(lease.fence)))
    })).pipe(
      Effect.ensuring(Effect.zipRight(
        Effect.zipRight(Effect.sync(() => void (leadingFence = undefined)), SubscriptionRef.set(leading, false)),
        handOver
      )),
      // Tried again every second while the storage fails: one line when this starts, not one a try.
      Effect.catchAll((error) =>
        Effect.gen(function*() {
          unseenSince ??= yield* clock.nowMillis
          yield* leaseWork.failed(sequencedLast ? "sequencing stopped" : "this process cannot try for the sequencing lease", Cause.fail(error))
          yield* Effect.sleep(Duration.seconds(1))
        }))
    )
    yield* Effect.forkScoped(Effect.forever(leadOnce))

    // Leaves other processes append: read them as they are announced.
    yield* Effect.forkScoped(coordination.appended.pipe(
      Stream.runForEach(() =>
        Effect.flatMap(SubscriptionRef.get(leading), (lead) => (lead ? Effect.void : Effect.asVoid(catchUp)))),
      Effect.catchAll((error) => readingWork.failed("reading new leaves failed", Cause.fail(error))),
      Effect.forever
    ))
    // A submission queued just as leadership ended is handed over too.
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      Effect.sleep(Duration.seconds(1)),
      Effect.flatMap(SubscriptionRef.get(leading), (lead) => (lead ? Effect.void : handOver))
    )))

    const submitAs = (submission: Submission, span: Tracer.Span | undefined) =>
      Effect.gen(function*() {
        if (!(yield* SubscriptionRef.get(leading))) return yield* relay(submission)
        const done = yield* Deferred.make<WriteOutcome>()
        const offered = yield* Queue.offer(queue, span === undefined ? { submission, done } : { submission, done, span })
        if (!offered) {
          return { _tag: "Refused", refusal: refuse("queue_full", "the sequencer is busy"), at: yield* clock.nowMillis } as const
        }
        return yield* Deferred.await(done)
      })

    /** With traces on, the wait for the sequencer is a span, which the batch names. */
    const submit: (submission: Submission) => Effect.Effect<WriteOutcome> = tracing.on
      ? (submission) =>
        Effect.flatMap(tracing.current, (span) => submitAs(submission, span)).pipe(
          Effect.tap((outcome) =>
            tracing.annotate(() => (outcome._tag === "Accepted" ? { "aics.outcome": "accepted", "aics.entry.index": outcome.index } : { "aics.outcome": outcome.refusal.code }))),
          tracing.span("aics.sequencer.submit", () => ({ attributes: { "aics.entry.type": submission.envelope.type } }))
        )
      : (submission) => submitAs(submission, undefined)

    const betweenBatches = <A, E, R>(effect: (fence: LeaseFence) => Effect.Effect<A, E, R>) =>
      stateLock.withPermits(1)(Effect.suspend(() => (leadingFence === undefined ? Effect.succeedNone : Effect.asSome(effect(leadingFence)))))

    const health = Effect.gen(function*(): Effect.fn.Return<SequencingHealth> {
      const now = yield* clock.nowMillis
      const batch = batchWork.spell()
      const spells = [leaseWork.spell(), readingWork.spell(), batch !== undefined && now - batch.last <= BATCH_FAILURE_REPORTED_MILLIS ? batch : undefined]
      const latest = spells.reduce((a, b) => (b !== undefined && (a === undefined || b.last > a.last) ? b : a), undefined)
      const lead = yield* SubscriptionRef.get(leading)
      const unseenFor = unseenSince === undefined || lead ? 0 : now - unseenSince
      // A write in flight too long is what is happening now: said before any earlier failure.
      const since = writingSince
      const stalled = since !== undefined && now - since > BATCH_WRITE_STALLED_MILLIS
        ? `the batch writing since ${new Date(since).toISOString()} has not finished (${Math.floor((now - since) / 1000)} s)`
        : undefined
      // As the batches see it: a diverged log refuses writes for that reason instead.
      const awaitingWitnesses = lead && (yield* logHealth.diverged) === undefined ? yield* logHealth.awaited : undefined
      return {
        storageFailure: stalled ?? latest?.error,
        withoutSequencerSeconds: unseenFor > NO_SEQUENCER_AFTER_MILLIS ? unseenFor / 1000 : undefined,
        awaitingWitnesses
      }
    })

    return { submit, point: Effect.sync(() => point), queued: Queue.size(queue), betweenBatches, health }
  }))
}

/** A decided batch as span attributes: how many accepted and refused, of which types, why. */
const decidedAttributes = (decided: ReadonlyArray<Decided>): Record<string, unknown> => {
  const types = new Set(decided.map((d) => d.job.submission.envelope.type))
  const refusals = new Set(decided.flatMap((d) => (d.accepted ? [] : [d.refusal.code])))
  const accepted = decided.filter((d) => d.accepted).length
  return {
    "aics.decide.accepted": accepted,
    "aics.decide.refused": decided.length - accepted,
    "aics.entry.types": [...types].sort().join(","),
    ...(refusals.size === 0 ? {} : { "aics.refusal.codes": [...refusals].sort().join(",") })
  }
}
