// The single writer of the log (issue "Signed writes", service.md "Log entry request").
// Submissions that passed the stateless checks queue here; one fiber takes whatever is
// queued (up to MAX_BATCH), decides each in order with the pure `decide`, makes the whole
// batch durable (bodies first, then the leaves, one fsync round each), and only then
// answers every submission of the batch. Batching is natural group commit: while one batch
// is being made durable, the next one gathers in the queue.
//
// Refusals leave no trace: the state used for the next decision is the one after the last
// accepted entry, and nothing of a refused submission is written. If the batch cannot be
// made durable, none of it is answered 202 and the state is not advanced.
//
// The queue is bounded: when it is full a submission is refused at once with queue_full
// (503 and Retry-After), so the service degrades by saying no rather than by growing.

import { Context, Deferred, Effect, Either, Layer, Queue, Ref } from "effect"
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

    const state = yield* Ref.make(yield* foldLog(store, crypto.sha256))
    const queue = yield* Queue.dropping<Job>(QUEUE_CAPACITY)

    const commitBatch = (jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        const now = yield* clock.nowMillis
        const before = yield* Ref.get(state)
        let next = before
        const accepted: Array<{ job: Job; index: number; logged: number; entryBytes: Uint8Array }> = []
        const toStore: Array<StoredBody> = []
        for (const job of jobs) {
          const decision = decide(next, job.submission, now)
          if (Either.isLeft(decision)) {
            yield* Deferred.succeed(job.done, { _tag: "Refused", refusal: decision.left, at: now })
            continue
          }
          next = decision.right.state
          accepted.push({ job, index: decision.right.index, logged: decision.right.logged, entryBytes: decision.right.entryBytes })
          if (job.submission.body !== null) toStore.push(job.submission.body)
        }
        if (accepted.length === 0) return
        // Bodies before leaves: a durable leaf must never name a body that is not.
        const committed = yield* Effect.either(
          Effect.zipRight(
            toStore.length > 0 ? bodies.put(toStore) : Effect.void,
            writer.append(before.size, accepted.map((a) => a.entryBytes))
          )
        )
        if (Either.isLeft(committed)) {
          const failure = refuse("log_unavailable", committed.left.detail)
          yield* Effect.logError("a batch could not be made durable", committed.left)
          for (const a of accepted) yield* Deferred.succeed(a.job.done, { _tag: "Refused", refusal: failure, at: now })
          return
        }
        yield* Ref.set(state, next)
        const { leafHashes } = committed.right
        for (let i = 0; i < accepted.length; i++) {
          const a = accepted[i]!
          yield* Deferred.succeed(a.job.done, {
            _tag: "Accepted",
            index: a.index,
            logged: a.logged,
            leafHash: leafHashes[i]!,
            entryBytes: a.entryBytes
          })
        }
      })

    // Nothing may interrupt a batch between its decisions and its answers.
    const worker = Queue.takeBetween(queue, 1, MAX_BATCH).pipe(
      Effect.flatMap((jobs) => Effect.uninterruptible(commitBatch(Array.from(jobs)))),
      Effect.forever
    )
    yield* Effect.forkScoped(worker)

    const submit = (submission: Submission) =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<WriteOutcome>()
        const offered = yield* Queue.offer(queue, { submission, done })
        if (!offered) {
          return { _tag: "Refused", refusal: refuse("queue_full", "the sequencer is busy"), at: yield* clock.nowMillis } as const
        }
        return yield* Deferred.await(done)
      })

    return { submit, state: Ref.get(state), queued: Queue.size(queue) }
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
