// The log's state as /healthz and /v2/tlog/checkpoint report it, from memory only, so
// health answers in constant time with no I/O and no scan.

import type { TilesState } from "../domain/stats/serviceStatsDocument.js"
import { withoutServerPaths } from "../domain/http/serverPaths.js"
import { Context, Effect, Layer, Ref, Stream, SubscriptionRef } from "effect"
import { Clock } from "../ports/Clock.js"
import { LogHealth } from "./LogHealth.js"
import { LogWriter } from "./LogWriter.js"
import { ServiceConfig } from "./ServiceConfig.js"

export interface LogState {
  readonly size: number
  readonly publishedSize: number
  readonly lagEntries: number
  /**
   * How long leaves have waited for a checkpoint, in seconds: since the first leaf this
   * process saw after the last checkpoint (or since that checkpoint, if later); 0 when none
   * wait. Not since the checkpoint itself: after a quiet minute, the first write would
   * otherwise read as a minute's lag, and /healthz flap DEGRADED until the next checkpoint.
   */
  readonly lagSeconds: number
  readonly mmdSeconds: number
  readonly publishError: string | undefined
  readonly diverged: string | undefined
  /** Tiles are not being written: leaves have waited beyond twice the merge delay, or publishing fails. */
  readonly tilesStalled: boolean
}

/** The `tiles` member that /v2/tlog/checkpoint, /healthz and /v2/stats report. */
export const tilesState = (state: LogState, prefix: string): TilesState => ({
  prefix,
  size: state.size,
  published_size: state.publishedSize,
  lag_entries: state.lagEntries,
  lag_seconds: state.lagSeconds,
  mmd_seconds: state.mmdSeconds,
  error: state.publishError === undefined ? null : withoutServerPaths(state.publishError),
  diverged: state.diverged !== undefined
})

export class LogStatus extends Context.Tag("aics/LogStatus")<LogStatus, {
  readonly current: Effect.Effect<LogState>
}>() {
  static readonly layer = Layer.scoped(LogStatus, Effect.gen(function*() {
    const writer = yield* LogWriter
    const health = yield* LogHealth
    const clock = yield* Clock
    const { mmdSeconds } = yield* ServiceConfig
    const startedAt = yield* clock.nowMillis
    /**
     * When the log first held leaves beyond the published size `baseline`: each growth of
     * the log past a checkpoint newer than the one recorded starts a new wait. One look a
     * batch (the writer's size changes once an append), none a request.
     */
    let waiting: { readonly baseline: number; readonly since: number } | undefined
    yield* Effect.forkScoped(writer.size.changes.pipe(Stream.runForEach((size) =>
      Effect.gen(function*() {
        const published = (yield* Ref.get(health.publish)).publishedSize
        if (size > published && (waiting === undefined || waiting.baseline < published)) {
          waiting = { baseline: published, since: yield* clock.nowMillis }
        }
      })
    )))
    return {
      current: Effect.gen(function*() {
        const size = yield* SubscriptionRef.get(writer.size)
        const publish = yield* Ref.get(health.publish)
        const diverged = yield* health.diverged
        const now = yield* clock.nowMillis
        const lagEntries = Math.max(0, size - publish.publishedSize)
        const waitedFrom = Math.max(publish.publishedAt ?? startedAt, waiting?.since ?? 0)
        const lagSeconds = lagEntries === 0 ? 0 : Math.max(0, now - waitedFrom) / 1000
        return {
          size,
          publishedSize: publish.publishedSize,
          lagEntries,
          lagSeconds,
          mmdSeconds,
          publishError: publish.error,
          diverged,
          tilesStalled: publish.error !== undefined || lagSeconds > 2 * mmdSeconds
        }
      })
    }
  }))
}
