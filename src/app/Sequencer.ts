// The single writer of the log (issue "Signed writes", service.md "Log entry request").
// Submissions that passed the stateless checks queue here and go through a two-stage
// pipeline, so that the two fsync rounds of one batch overlap with the work on the next:
//
//   decide + bodies   takes whatever is queued (up to MAX_BATCH), decides each submission
//                     in order with the pure `decide` against the *tentative* state (the
//                     state after every batch decided so far, durable or not), then makes
//                     the batch's bodies durable and hands the batch on.
//   leaves + answers  takes every batch handed on so far, in order, appends their leaves
//                     in one durable LogWriter.append, and only then answers every
//                     submission of those batches, accepted or refused, in log order.
//
// While batch N's leaves are being appended, batch N+1 is decided and its bodies written.
// Why each ordering is safe:
//   - A body is durable before the leaf that names it: a batch reaches the second stage
//     only after its own bodies.put succeeded, and its leaves are appended after that.
//     Bodies of N+1 never depend on N's leaves: a leaf names a body, never the reverse.
//   - Leaves are appended in decision order, N+1 only after N succeeded: one fiber appends,
//     batches in the order they were decided, and a batch is appended only if nothing
//     decided before it failed (below).
//   - No answer before durability: 202s and refusals alike are sent by the second stage
//     after the batch's leaves (and those of every batch before it) are durable. A refusal
//     is decided against the tentative state too (a claim refused because a batch not yet
//     durable took the name), so it waits like an acceptance, and answers stay in log
//     order per key.
//   - A failure undoes everything decided on top of it: every decided batch carries the
//     `generation` it was decided in. When a batch fails (its bodies or its leaves), the
//     generation moves on and the tentative state is reset to the durable one; every batch
//     still in the pipeline with an older generation was decided on top of the failed one
//     and is answered log_unavailable without being appended. The reset and each batch's
//     decisions run synchronously (no fiber switch in between), so a batch is decided
//     either wholly before a reset or wholly after it.
//
// Bodies of a batch that fails later (its own leaves, or an earlier batch) stay in the
// body store without a leaf naming them, as they would if the process died between the two
// fsync rounds; a retried write stores the same digest again, which put treats as done.
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

/** A batch decided against the tentative state, on its way to durability. */
interface DecidedBatch {
  /** The generation it was decided in: stale once any batch before it failed. */
  readonly generation: number
  /** The clock reading its decisions used. */
  readonly at: number
  /** Every submission of the batch, in decision order. */
  readonly decided: ReadonlyArray<Decided>
  /** The index of its first leaf (the tentative size it was decided on). */
  readonly start: number
  /** Entry bytes of the accepted submissions, in order (indexes start, start+1, ...). */
  readonly entries: ReadonlyArray<Uint8Array>
  /** The tentative state after the batch. */
  readonly after: LogState
  /** How writing its bodies ended. */
  readonly bodies: Exit.Exit<void, StorageError>
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

    // Only the pipeline's two fibers touch these, each change within one synchronous step.
    /** The state after the last durable leaf. */
    let durable: LogState = yield* foldLog(store, crypto.sha256)
    /** The state after every batch decided so far; equals `durable` when none is in flight. */
    let tentative: LogState = durable
    /** Moves on at every failure; batches decided in an older generation are void. */
    let generation = 0

    const queue = yield* Queue.dropping<Job>(QUEUE_CAPACITY)
    const decidedBatches = yield* Queue.unbounded<DecidedBatch>()

    /** Decides the jobs in order on the tentative state and advances it (synchronous). */
    const decideBatch = (jobs: ReadonlyArray<Job>, at: number) => {
      const start = tentative.size
      let next = tentative
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
      tentative = next
      return { generation, at, decided, start, entries, after: next, toStore }
    }

    /** Stage 1: decide the next jobs, make their bodies durable, hand the batch on. */
    const decideAndStoreBodies = (jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        const at = yield* clock.nowMillis
        const { toStore, ...batch } = decideBatch(jobs, at)
        const stored = toStore.length > 0 ? yield* Effect.exit(bodies.put(toStore)) : Exit.void
        yield* Queue.offer(decidedBatches, { ...batch, bodies: stored })
      })

    const answer = (job: Job, outcome: WriteOutcome) => Deferred.succeed(job.done, outcome)

    /** Answers every submission of a batch that will not be appended. */
    const fail = (batch: DecidedBatch, detail: string) =>
      Effect.forEach(batch.decided, ({ job }) =>
        answer(job, { _tag: "Refused", refusal: refuse("log_unavailable", detail), at: batch.at }), { discard: true })

    /** Voids every batch decided on top of the durable state: they will all be failed. */
    const resetToDurable = () => {
      generation++
      tentative = durable
    }

    /** Stage 2: append the leaves of the batches handed on so far, then answer them. */
    const appendAndAnswer = (batches: ReadonlyArray<DecidedBatch>) =>
      Effect.gen(function*() {
        // The batches that can be appended: a prefix of the current generation whose bodies
        // are durable. Everything after the first failed batch was decided on top of it.
        let live = 0
        while (live < batches.length && batches[live]!.generation === generation && Exit.isSuccess(batches[live]!.bodies)) live++
        const appendable = batches.slice(0, live)
        const rest = batches.slice(live)

        const entries = appendable.flatMap((batch) => batch.entries)
        const appended = entries.length === 0
          ? Exit.succeed({ leafHashes: [] as ReadonlyArray<Hash> })
          : yield* Effect.exit(writer.append(appendable[0]!.start, entries))
        if (Exit.isFailure(appended)) {
          yield* Effect.logError("a batch could not be made durable", appended.cause)
          resetToDurable()
          for (const batch of appendable) yield* fail(batch, failureDetail(appended, "the leaves could not be appended"))
        } else {
          if (appendable.length > 0) durable = appendable[appendable.length - 1]!.after
          const { leafHashes } = appended.value
          let leaf = 0
          for (const batch of appendable) {
            for (const d of batch.decided) {
              yield* answer(d.job, d.accepted
                ? { _tag: "Accepted", index: d.index, logged: d.logged, leafHash: leafHashes[leaf++]!, entryBytes: d.entryBytes }
                : { _tag: "Refused", refusal: d.refusal, at: batch.at })
            }
          }
        }

        if (rest.length === 0) return
        const first = rest[0]!
        if (first.generation === generation) {
          // Its bodies failed: it and everything decided after it are void.
          yield* Effect.logError("a batch's bodies could not be made durable", Exit.isFailure(first.bodies) ? first.bodies.cause : undefined)
          resetToDurable()
          yield* fail(first, failureDetail(first.bodies, "the bodies could not be stored"))
        } else {
          yield* fail(first, STALE)
        }
        for (const batch of rest.slice(1)) yield* fail(batch, STALE)
      })

    // Nothing may interrupt a batch between its decisions and its hand-over, nor between
    // its append and its answers.
    yield* Effect.forkScoped(Queue.takeBetween(queue, 1, MAX_BATCH).pipe(
      Effect.flatMap((jobs) => Effect.uninterruptible(decideAndStoreBodies(Array.from(jobs)))),
      Effect.forever
    ))
    yield* Effect.forkScoped(Queue.takeBetween(decidedBatches, 1, Number.MAX_SAFE_INTEGER).pipe(
      Effect.flatMap((batches) => Effect.uninterruptible(appendAndAnswer(Array.from(batches)))),
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

    return { submit, state: Effect.sync(() => durable), queued: Queue.size(queue) }
  }))
}

const STALE = "an earlier batch could not be made durable"

/** The storage error's detail, or the fallback for a defect. */
const failureDetail = (exit: Exit.Exit<unknown, StorageError>, fallback: string): string =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error.detail : fallback

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
