// The views that read the projection store (issue 12, "Projections in an indexed store"),
// kept in step with the log: the directory, the name view and the ANS lookup. HTTP handlers read these views through this service
// (Projection.directory ...), not through the store or the sequencer's in-memory state:
// where a view's data lives is this service's business.
//
// When the store folds (projectionFold.ts says how): at start, up to the log's size before
// the service listens: the tail after what state.db had folded, or the whole log when
// state.db is new or was damaged (a rebuild, with progress lines in the log output); then,
// so that this view is never behind the state the other views read, each read first folds
// what the sequencer committed since (usually nothing: a fiber also folds every half second).
//
// A store that is not a fold of this log is reported loudly and rebuilt from the log: one
// that has folded more leaves than the log holds (a log restored from an older copy), or
// whose last folded leaf, which it records, is not the log's leaf at that index (a
// state.db of another log). Checking one leaf hash costs the same at any size.
// A leaf the fold cannot apply (the projection lacks a name the log says exists) is an
// error the reads surface (503), never a silent answer.

import { Context, Duration, Effect, type Either, Layer, Schedule } from "effect"
import { ansLookupOf, type AnsProblem, type AnsView } from "../domain/views/ansLookup.js"
import { directoryPart, directoryViewOfPage, type DirectoryQuery, type DirectoryView } from "../domain/views/directory.js"
import { nameOfHandle } from "../domain/views/handles.js"
import { nameViewOfLookup, type NameView, type NameViewProblem } from "../domain/views/nameView.js"
import { Clock } from "../ports/Clock.js"
import { equal } from "../domain/bytes.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"
import { foldProjectionTo } from "./projectionFold.js"
import { Sequencer } from "./Sequencer.js"

/** A progress line at least this often while a fold at start is long (a rebuild). */
const PROGRESS_EVERY_MS = 5_000

export class Projection extends Context.Tag("aics/Projection")<Projection, {
  /** GET /v2/directory and /directory: names in claim order, `q` answered from the index. */
  readonly directory: (query: DirectoryQuery) => Effect.Effect<DirectoryView, StorageError>
  /** GET /v2/names/{name}: the name a handle designates, its keys and key events. */
  readonly name: (handle: string) => Effect.Effect<Either.Either<NameView, NameViewProblem>, StorageError>
  /** GET /v2/ans/lookup/{handle}: the current keys of the name a handle designates. */
  readonly ans: (handle: string) => Effect.Effect<Either.Either<AnsView, AnsProblem>, StorageError>
  /** Leaves the projection has folded (at least what the sequencer committed when it was asked). */
  readonly folded: Effect.Effect<number, StorageError>
}>() {
  static readonly layer = Layer.scoped(Projection, Effect.gen(function*() {
    const store = yield* ProjectionStore
    const sequencer = yield* Sequencer
    const clock = yield* Clock
    const context = yield* Effect.context<ProjectionStore | LogStore | Crypto>()
    const hasher = makeTreeHasher(Context.get(context, Crypto).sha256)
    const leafHashAt = (index: number) =>
      Effect.map(Context.get(context, LogStore).readEntries(index, index + 1), ([leaf]) => hasher.leafHash(leaf!))
    const lock = yield* Effect.makeSemaphore(1)
    /** What this process last saw folded: a lower bound of the store's `folded`. */
    let known = 0

    const foldTo = (size: number, progress?: (folded: number) => Effect.Effect<void>) =>
      known >= size ? Effect.void : lock.withPermits(1)(Effect.suspend(() =>
        known >= size ? Effect.void : Effect.map(foldProjectionTo(size, progress), (folded) => void (known = folded))
      )).pipe(Effect.provide(context))

    const committedSize = Effect.map(sequencer.state, (state) => state.size)
    const current = Effect.flatMap(committedSize, (size) => foldTo(size))

    // The start: a store ahead of the log is rebuilt; then the tail (or all) is folded.
    const size = yield* committedSize
    let folded = yield* store.folded
    const foreign = folded > size
      ? `it has folded ${folded} leaves but the log holds ${size}`
      : folded > 0 && !equal((yield* store.lastLeaf) ?? new Uint8Array(0), yield* leafHashAt(folded - 1))
      ? `its leaf ${folded - 1} is not the log's`
      : undefined
    if (foreign !== undefined) {
      yield* Effect.logError(`state.db is not a projection of this log (${foreign}); rebuilding it from the log`)
      yield* store.reset
      folded = 0
    }
    const from = folded
    // A fold that fails (a full disk: issue 13 item 13) does not stop the start: the other
    // views and every read of the log go on, and these views answer 503 until a fold
    // succeeds, which the fiber below tries every half second.
    let failing: string | undefined
    const noteFailure = (error: StorageError) =>
      Effect.suspend(() => {
        const what = `${error.operation}: ${error.detail}`
        if (what === failing) return Effect.void
        failing = what
        return Effect.logError("the projection could not fold the log; the directory and name views answer 503 until it can", error)
      })
    if (from < size) {
      yield* Effect.logInfo(`projection: folding leaves ${from} to ${size} of the log${from === 0 ? " (a new or rebuilt projection)" : ""}`)
      let lastLine = yield* clock.nowMillis
      yield* foldTo(size, (done) => Effect.flatMap(clock.nowMillis, (now) => {
        if (now - lastLine < PROGRESS_EVERY_MS) return Effect.void
        lastLine = now
        return Effect.logInfo(`projection: folded ${done} of ${size} leaves`)
      })).pipe(
        Effect.zipRight(Effect.logInfo(`projection: folded all ${size} leaves`)),
        Effect.catchAll(noteFailure)
      )
    }

    // One line when folding starts failing (or fails anew), one when it folds again: a
    // full disk must not also fill the log output.
    yield* Effect.forkScoped(current.pipe(
      Effect.zipRight(Effect.suspend(() => {
        if (failing === undefined) return Effect.void
        failing = undefined
        return Effect.logInfo("the projection folds the log again")
      })),
      Effect.catchAll(noteFailure),
      Effect.repeat(Schedule.spaced(Duration.millis(500)))
    ))

    /** The name a handle designates (leaf 0 says the instance's domain), and its record if claimed. */
    const lookup = (handle: string) => Effect.gen(function*() {
      yield* current
      const name = nameOfHandle(yield* sequencer.state, handle)
      const record = name === undefined ? undefined : (yield* store.names([name])).get(name)
      return { name, record }
    })

    return {
      name: (handle) => Effect.map(lookup(handle), ({ name, record }) => nameViewOfLookup(name, record)),
      ans: (handle) => Effect.map(lookup(handle), ({ name, record }) => ansLookupOf(handle, name, record)),
      directory: (query) =>
        Effect.zipRight(current, store.directory({ part: directoryPart(query.q), limit: query.limit })).pipe(
          Effect.map((page) => directoryViewOfPage(query, page))
        ),
      folded: Effect.zipRight(current, store.folded)
    }
  }))
}
