// Small pieces the handlers share: turning storage failures into 503 problems, and the
// tiles state member that /v2/tlog/checkpoint and /healthz both report.

import { Effect } from "effect"
import type { LogState } from "../../../app/LogStatus.js"
import type { StorageError } from "../../../ports/StorageError.js"
import { Unavailable } from "../problem.js"

/** A storage failure answers 503: the request was fine, the service cannot serve it now. */
export const orUnavailable = <A, E, R>(effect: Effect.Effect<A, E | StorageError, R>) =>
  Effect.catchIf(effect, (e): e is StorageError => (e as { _tag?: unknown })?._tag === "StorageError",
    (error) => Effect.fail(Unavailable.of("storage_unavailable", `${error.operation} failed: ${error.detail}`)))

export const tilesState = (state: LogState, prefix: string) => ({
  prefix,
  size: state.size,
  published_size: state.publishedSize,
  lag_entries: state.lagEntries,
  lag_seconds: state.lagSeconds,
  mmd_seconds: state.mmdSeconds,
  error: state.publishError ?? null,
  diverged: state.diverged !== undefined
})
