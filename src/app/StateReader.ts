// How the views read the log's state (issue 12, "Projections in an indexed store"): from
// the projection store, never from a whole state in process memory. A view asks for the
// slice it reads (the resident parts whole, and the rows it names: domain/write/stateReads.ts
// RowKey) and for pages of the lists it shows, then computes its answer with the pure view
// functions of src/domain/views on plain data.
//
// Freshness: every read first folds what the sequencer committed since the store last
// folded (Projection.folded), so a view never answers from a state older than a write this
// process acknowledged.

import { Context, Effect, Layer } from "effect"
import type { RecoveryClaim } from "../domain/identity/bindings.js"
import type { RecentActivity } from "../domain/telemetry/activity.js"
import type { LogState } from "../domain/write/logState.js"
import type { ListAreaName } from "../domain/write/stateAreas.js"
import type { RowKey } from "../domain/write/stateReads.js"
import type { ResidentState } from "../domain/write/stateSlice.js"
import { type ListPage, type ListQuery, ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"
import { Projection } from "./Projection.js"
import { sliceReading } from "./sliceReads.js"


export class StateReader extends Context.Tag("aics/StateReader")<StateReader, {
  /**
   * The resident parts: service keys, governance, tasks, counters.
   * Answered even while the store cannot fold (a full disk): they are in memory.
   */
  readonly resident: Effect.Effect<ResidentState, StorageError>
  /** A slice holding the resident parts and the listed rows (those that exist). */
  readonly slice: (keys: ReadonlyArray<RowKey>) => Effect.Effect<LogState, StorageError>
  /**
   * A slice holding what `reads` asks for, asked again on the slice with what was found
   * until it asks for nothing new (a post's author, then the name the author is bound to).
   */
  readonly sliceFor: (reads: (slice: LogState) => ReadonlyArray<RowKey>) => Effect.Effect<LogState, StorageError>
  /** A page of one list, newest first, with the list's length. */
  readonly list: (area: ListAreaName, key: string, query: ListQuery) => Effect.Effect<ListPage, StorageError>
  /** The agents whose latest public leaf was logged at or after `since`, newest first (ProjectionStore.recentActivity). */
  readonly recentActivity: (since: number, limit: number) => Effect.Effect<RecentActivity, StorageError>
  /** The names whose claim named `kid` as their recovery key, from a claim index, claim order (ProjectionStore.recoveryNames). */
  readonly recoveryNames: (kid: string, query: { readonly from: number; readonly limit: number }) => Effect.Effect<ReadonlyArray<RecoveryClaim>, StorageError>
  /** The keys of an area's non-empty lists after `after`, at most `limit` (ProjectionStore.listKeys). */
  readonly listKeys: (area: ListAreaName, query: { readonly after?: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<string>, StorageError>
}>() {
  static readonly layer = Layer.effect(StateReader, Effect.gen(function*() {
    const store = yield* ProjectionStore
    const projection = yield* Projection

    const sliceFor = (reads: (slice: LogState) => ReadonlyArray<RowKey>) => sliceReading(store, projection.resident, reads)

    return {
      resident: projection.latestResident,
      slice: (keys) => sliceFor(() => keys),
      sliceFor,
      list: (area, key, query) => Effect.zipRight(projection.folded, store.list(area, key, query)),
      recentActivity: (since, limit) => Effect.zipRight(projection.folded, store.recentActivity(since, limit)),
      recoveryNames: (kid, query) => Effect.zipRight(projection.folded, store.recoveryNames(kid, query)),
      listKeys: (area, query) => Effect.zipRight(projection.folded, store.listKeys(area, query))
    }
  }))
}
