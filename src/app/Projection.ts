// The views that read the projection store (issue 12, "Projections in an indexed store"),
// kept in step with the log: the directory, the name view and the ANS lookup, each with the
// records of the names' recovery keys (whether they still stand, domain/identity/bindings.ts).
// HTTP handlers read these views through this service (Projection.directory ...), not
// through the store or the sequencer's in-memory state: where a view's data lives is this
// service's business.
//
// When the store folds: at start, the sequencer brings it to the log's size
// (projectionStart.ts); then the sequencer writes each batch's changes to it once the batch
// is durable. So that a view is never behind a write this process acknowledged, each read
// first checks that the store holds what the sequencer committed, and folds it from the
// log when it does not (a projection write failed, or another node appended: a fiber also
// folds every half second). A leaf the fold cannot apply is an error the reads surface
// (503), never a silent answer.

import { Context, Duration, Effect, type Either, Layer, Schedule } from "effect"
import { ansLookup, type AnsProblem, type AnsView } from "../domain/views/ansLookup.js"
import type { DirectoryQuery, DirectoryView } from "../domain/views/directory.js"
import { nameReads, type NameView, type NameViewProblem } from "../domain/views/nameView.js"
import type { LogState } from "../domain/write/logState.js"
import type { RowKey } from "../domain/write/stateReads.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"
import type { ResidentState } from "../domain/write/stateSlice.js"
import { directoryFrom, nameViewFrom } from "./identityViews.js"
import { type FoldPoint, foldProjectionTo } from "./projectionFold.js"
import { Sequencer } from "./Sequencer.js"
import { sliceReading } from "./sliceReads.js"

export class Projection extends Context.Tag("aics/Projection")<Projection, {
  /** GET /v2/directory and /directory: names in claim order, `q` answered from the index. */
  readonly directory: (query: DirectoryQuery) => Effect.Effect<DirectoryView, StorageError>
  /** GET /v2/names/{name}: the name a handle designates, its keys and key events. */
  readonly name: (handle: string) => Effect.Effect<Either.Either<NameView, NameViewProblem>, StorageError>
  /** GET /v2/ans/lookup/{handle}: the current keys of the name a handle designates. */
  readonly ans: (handle: string) => Effect.Effect<Either.Either<AnsView, AnsProblem>, StorageError>
  /** Leaves the projection has folded (at least what the sequencer committed when it was asked). */
  readonly folded: Effect.Effect<number, StorageError>
  /** Why the last fold (every half second while the store is behind) failed; undefined when it did not. */
  readonly foldError: Effect.Effect<StorageError | undefined>
  /** The resident parts at `folded`, the store holding that state (for slices of it). */
  readonly resident: Effect.Effect<ResidentState, StorageError>
  /**
   * The resident parts at what this process committed, without waiting for the store: what
   * a view that reads nothing else (body statuses, governance, stats) answers from.
   */
  readonly latestResident: Effect.Effect<ResidentState, StorageError>
}>() {
  static readonly layer = Layer.scoped(Projection, Effect.gen(function*() {
    const store = yield* ProjectionStore
    const sequencer = yield* Sequencer
    const context = yield* Effect.context<ProjectionStore | LogStore | Crypto>()
    const lock = yield* Effect.makeSemaphore(1)
    /** What this service last folded the store to itself, with the resident parts there. */
    let latest: FoldPoint | undefined

    /**
     * Where the log stands for this process, with the store holding it. The sequencer writes
     * the projection with every batch (the store then holds it already); when that failed,
     * or on a node that does not sequence, the store is folded from the log here. The
     * sequencer's resident parts are the state at its point unless its start could not fold
     * (projected -1): then those of this service's own fold are.
     */
    const current: Effect.Effect<FoldPoint, StorageError> = Effect.flatMap(sequencer.point, (point) => {
      if (point.projected >= point.folded) return Effect.succeed(point)
      const known = (): FoldPoint | undefined =>
        latest !== undefined && latest.folded >= point.folded ? (point.projected >= 0 ? point : latest) : undefined
      return lock.withPermits(1)(Effect.suspend(() => {
        const held = known()
        return held !== undefined
          ? Effect.succeed(held)
          : Effect.map(foldProjectionTo(point.folded), (folded) => {
            latest = folded
            return known() ?? folded
          })
      })).pipe(Effect.provide(context))
    })

    // A fold that fails (a full disk: issue 13 item 13) does not stop the service: every
    // read of the log goes on, and the views of the store answer 503 until a fold succeeds,
    // which this fiber tries every half second. One line when folding starts failing (or
    // fails anew), one when it folds again: a full disk must not also fill the log output.
    let failing: StorageError | undefined
    yield* Effect.forkScoped(current.pipe(
      Effect.zipRight(Effect.suspend(() => {
        if (failing === undefined) return Effect.void
        failing = undefined
        return Effect.logInfo("the projection folds the log again")
      })),
      Effect.catchAll((error) => Effect.suspend(() => {
        const anew = failing === undefined || failing.message !== error.message
        failing = error
        if (!anew) return Effect.void
        return Effect.logError("the projection could not fold the log; the views of the store answer 503 until it can", error)
      })),
      Effect.repeat(Schedule.spaced(Duration.millis(500)))
    ))

    /** A slice of the store as folded for this process (leaf 0 says the instance's domain). */
    const sliceFor = (reads: (slice: LogState) => ReadonlyArray<RowKey>) => sliceReading(store, Effect.map(current, (point) => point.resident), reads)

    return {
      name: (handle) => nameViewFrom(sliceFor, handle),
      ans: (handle) => Effect.map(sliceFor(nameReads(handle)), (slice) => ansLookup(slice, handle)),
      directory: (query) => Effect.zipRight(current, directoryFrom(store, sliceFor, query)),
      folded: Effect.map(current, (point) => point.folded),
      resident: Effect.map(current, (point) => point.resident),
      foldError: Effect.sync(() => failing),
      // A write's durable leaves change the sequencer's resident parts even when the store
      // could not take them (a full disk): reads of those parts alone go on from there.
      latestResident: Effect.flatMap(sequencer.point, (point) =>
        point.projected >= 0 ? Effect.succeed(point.resident) : Effect.map(current, (p) => p.resident))
    }
  }))
}
