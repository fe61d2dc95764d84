// The fiber that brings a SQLite sidecar up to its store's committed end, off the write's
// path (leafFinder.ts for the log's leaf index, bodyIndex.ts for the body index): the write
// returns once its records are durable, and wakes the indexer, which indexes them later.
//
// Woken by a write, it lets records gather for INDEX_LINGER, then catches up with
// everything committed by then, in transactions of up to INDEX_CHUNK records (the caller's
// `catchUp` does). The keys are hashes, so each row lands on a page of its own, and every
// transaction also rewrites the B-tree's inner pages and the count's page: one transaction
// per quarter second instead of one per batch writes those once for many batches. Should
// indexing fail (a full disk), it says so once, the lookups go on reading the unindexed
// tail, and the next wake-up retries. The scope's close stops it (interrupted between
// statements, its open transaction rolled back), then indexes what is left, so that the
// next open has nothing to do.

import type { Scope } from "effect"
import { Effect, Queue } from "effect"
import type { StorageError } from "../../ports/StorageError.js"

/** Records per indexing transaction and per read of the files' tail. */
export const INDEX_CHUNK = 4096

/** How long the indexer lets committed records gather (unless a whole INDEX_CHUNK is waiting). */
export const INDEX_LINGER = "250 millis"

export interface IndexerSpec {
  /** Committed records not indexed yet. */
  readonly backlog: () => number
  /** Indexes every record committed when it starts; one runs at a time. */
  readonly catchUp: Effect.Effect<void, StorageError>
  /** The log line when indexing fails, and the one when it works again. */
  readonly failing: (error: StorageError) => string
  readonly resumed: () => string
}

/** Forks the indexer in the scope; answers its wake-up, to call after each write. */
export const forkIndexer = (spec: IndexerSpec): Effect.Effect<() => void, never, Scope.Scope> =>
  Effect.gen(function*() {
    // A sliding queue of one: wake-ups while it works fold into one more round.
    const wakeUps = yield* Queue.sliding<void>(1)
    let failing = false
    const round = Effect.suspend(() => (spec.backlog() >= INDEX_CHUNK ? Effect.void : Effect.sleep(INDEX_LINGER))).pipe(
      Effect.zipRight(spec.catchUp),
      Effect.tap(() => {
        if (!failing) return Effect.void
        failing = false
        return Effect.logInfo(spec.resumed())
      }),
      Effect.catchAll((error) => {
        if (failing) return Effect.void
        failing = true
        return Effect.logError(spec.failing(error))
      })
    )
    // Finalizers run in reverse order: the indexer stops first, then the last records are
    // indexed, then (added before this) the sidecar closes.
    yield* Effect.addFinalizer(() => Effect.ignore(spec.catchUp))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(wakeUps), round)))
    return () => void Queue.unsafeOffer(wakeUps, undefined)
  })

export interface OpenCatchUpSpec {
  /** The records to index, [from, to). */
  readonly from: number
  readonly to: number
  /** Indexes up to `to`; `reached()` says how far it got. */
  readonly catchUp: Effect.Effect<void, StorageError>
  readonly reached: () => number
  /** For the log lines: "leaf index", "leaves", "leaf", "the log", and what serves the rest meanwhile. */
  readonly name: string
  readonly units: string
  readonly unit: string
  readonly store: string
  readonly meanwhile: string
}

/**
 * Indexes, at open, what the sidecar lacks: said as an info line when it is a crash's tail,
 * as warnings when it is more than a chunk (a lost sidecar rebuilt). A failure is said and
 * answered true: the store opens all the same, its lookups serving the rest meanwhile.
 */
export const catchUpAtOpen = (spec: OpenCatchUpSpec): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    if (spec.from >= spec.to) return false
    const loud = spec.to - spec.from > INDEX_CHUNK
    yield* (loud ? Effect.logWarning : Effect.logInfo)(`${spec.name}: indexing ${spec.units} [${spec.from}, ${spec.to}) of ${spec.store} at open`)
    const stopped = yield* spec.catchUp.pipe(Effect.as(false), Effect.catchAll((error) =>
      Effect.as(Effect.logError(`${spec.name}: stopped at ${spec.unit} ${spec.reached()} of ${spec.to} (${error.detail}); ${spec.meanwhile}`), true)))
    if (loud) yield* Effect.logWarning(`${spec.name}: indexed ${spec.units} [${spec.from}, ${spec.reached()}) of ${spec.store}`)
    return stopped
  })
