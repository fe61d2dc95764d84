// The single writer of the log (issue "Signed writes", service.md "Log entry request").
// Submissions that passed the stateless checks queue here; one fiber takes whatever is
// queued (up to MAX_BATCH), decides each in order with the pure `decide`, makes the whole
// batch durable (bodies first, then the leaves, one fsync round each), and only then
// answers every submission of the batch, accepted and refused alike, in decision order.
// Batching is natural group commit: while one batch is being made durable, the next one
// gathers in the queue.
//
// Why refusals wait for the commit too: a refusal can depend on an earlier acceptance of
// the same batch (a claim refused because the batch already took the name, a seq refused
// because the batch advanced the key's chain). If the batch then fails, the log does not
// hold what that refusal rests on, and its signed receipt would contradict the log. So a
// batch that cannot be made durable answers every submission log_unavailable, and the
// state is not advanced: the state after a failed commit is the state before it. Waiting
// also keeps the answers to one key in log order.
//
// Refusals leave no trace: nothing of a refused submission is written, and the state used
// for the next decision is the one after the last committed leaf.
//
// Not pipelined: deciding batch N+1 and writing its bodies while batch N's leaves are
// appended was built and measured with bench/write. It was no faster (0.9x to 1.0x of
// this) and its checkpoint coverage p99 was worse (about 1.1 s against 0.8 s): the write
// path is bound by CPU, not by fsync waits, and overlapping the stages makes the batches
// smaller, so each entry pays for more fsync rounds.
//
// The queue is bounded: when it is full a submission is refused at once with queue_full
// (503 and Retry-After), so the service degrades by saying no rather than by growing.

import { Context, Deferred, Effect, Either, Exit, Layer, Queue } from "effect"
import type { Hash } from "../domain/tlog/hasher.js"
import { decide } from "../domain/write/decide.js"
import { foldEntry } from "../domain/write/applyEntry.js"
import { emptyLogState, type LogState } from "../domain/write/logState.js"
import { refuse, type Refusal } from "../domain/write/refusal.js"
import type { Submission } from "../domain/write/submission.js"
import { BodyStore, type StoredBody } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { StorageError } from "../ports/StorageError.js"
import { LogWriter } from "./LogWriter.js"

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
}

/** One submission of a decided batch: accepted at an index, or refused. */
type Decided =
  | { readonly job: Job; readonly accepted: true; readonly index: number; readonly logged: number; readonly entryBytes: Uint8Array }
  | { readonly job: Job; readonly accepted: false; readonly refusal: Refusal }

/** At most this many submissions are decided and committed together. */
export const MAX_BATCH = 1024
/** Submissions waiting beyond this many are refused with queue_full. */
export const QUEUE_CAPACITY = 8192
/** Leaves folded per read when the state is rebuilt at start. */
const FOLD_CHUNK = 1024

export class Sequencer extends Context.Tag("aics/Sequencer")<Sequencer, {
  /** Decides and, if accepted, durably logs the submission; answers after the commit. */
  readonly submit: (submission: Submission) => Effect.Effect<WriteOutcome>
  /** The state after the last committed leaf. */
  readonly state: Effect.Effect<LogState>
  /** Submissions waiting. */
  readonly queued: Effect.Effect<number>
}>() {
  static readonly layer = Layer.scoped(Sequencer, Effect.gen(function*() {
    const store = yield* LogStore
    const bodies = yield* BodyStore
    const writer = yield* LogWriter
    const clock = yield* Clock
    const crypto = yield* Crypto

    /** The state after the last committed leaf; only the committing fiber changes it. */
    let committed: LogState = yield* foldLog(store, crypto.sha256)
    const queue = yield* Queue.dropping<Job>(QUEUE_CAPACITY)

    const commitBatch = (jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        const at = yield* clock.nowMillis
        const start = committed.size
        let next = committed
        const decided: Array<Decided> = []
        const entries: Array<Uint8Array> = []
        const toStore: Array<StoredBody> = []
        for (const job of jobs) {
          const decision = decide(next, job.submission, at)
          if (Either.isLeft(decision)) {
            decided.push({ job, accepted: false, refusal: decision.left })
            continue
          }
          next = decision.right.state
          const { index, logged, entryBytes } = decision.right
          decided.push({ job, accepted: true, index, logged, entryBytes })
          entries.push(entryBytes)
          if (job.submission.body !== null) toStore.push(job.submission.body)
        }

        // Bodies before leaves: a durable leaf must never name a body that is not.
        const durable = entries.length === 0
          ? Exit.succeed({ leafHashes: [] as ReadonlyArray<Hash> })
          : yield* Effect.exit(Effect.zipRight(
            toStore.length > 0 ? bodies.put(toStore) : Effect.void,
            writer.append(start, entries)
          ))

        if (Exit.isFailure(durable)) {
          yield* Effect.logError("a batch could not be made durable", durable.cause)
          const failure = refuse("log_unavailable", durable.cause._tag === "Fail" ? durable.cause.error.detail : "the batch could not be written")
          for (const { job } of decided) yield* Deferred.succeed(job.done, { _tag: "Refused", refusal: failure, at })
          return
        }
        committed = next
        const { leafHashes } = durable.value
        let leaf = 0
        for (const d of decided) {
          const outcome: WriteOutcome = d.accepted
            ? { _tag: "Accepted", index: d.index, logged: d.logged, leafHash: leafHashes[leaf++]!, entryBytes: d.entryBytes }
            : { _tag: "Refused", refusal: d.refusal, at }
          yield* Deferred.succeed(d.job.done, outcome)
        }
      })

    // Nothing may interrupt a batch between its decisions and its answers.
    yield* Effect.forkScoped(Queue.takeBetween(queue, 1, MAX_BATCH).pipe(
      Effect.flatMap((jobs) => Effect.uninterruptible(commitBatch(Array.from(jobs)))),
      Effect.forever
    ))

    const submit = (submission: Submission) =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<WriteOutcome>()
        const offered = yield* Queue.offer(queue, { submission, done })
        if (!offered) {
          return { _tag: "Refused", refusal: refuse("queue_full", "the sequencer is busy"), at: yield* clock.nowMillis } as const
        }
        return yield* Deferred.await(done)
      })

    return { submit, state: Effect.sync(() => committed), queued: Queue.size(queue) }
  }))
}

/** The state after every committed leaf, folded from the log store in chunks. */
const foldLog = (store: typeof LogStore.Service, sha256: (data: Uint8Array) => Uint8Array) =>
  Effect.gen(function*() {
    const size = yield* store.size
    let state = emptyLogState
    for (let from = 0; from < size; from += FOLD_CHUNK) {
      for (const entry of yield* store.readEntries(from, Math.min(size, from + FOLD_CHUNK))) {
        const folded = foldEntry(sha256, state, entry)
        if (Either.isLeft(folded)) {
          return yield* new StorageError({
            operation: "fold log",
            detail: `leaf ${folded.left.index} cannot be folded: ${folded.left.reason}`
          })
        }
        state = folded.right
      }
    }
    return state
  })
