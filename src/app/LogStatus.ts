// The log's state as /healthz and /v2/tlog/checkpoint report it, from memory only, so
// health answers in constant time with no I/O and no scan.

import type { TilesState } from "../domain/stats/serviceStatsDocument.js"
import { withoutServerPaths } from "../domain/http/serverPaths.js"
import { Context, Effect, Layer, Ref, SubscriptionRef } from "effect"
import { Clock } from "../ports/Clock.js"
import { LogHealth } from "./LogHealth.js"
import { LogWriter } from "./LogWriter.js"
import { ServiceConfig } from "./ServiceConfig.js"

export interface LogState {
  readonly size: number
  readonly publishedSize: number
  readonly lagEntries: number
  /** Seconds since the last checkpoint while leaves wait for one; 0 when none wait. */
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
  static readonly layer = Layer.effect(LogStatus, Effect.gen(function*() {
    const writer = yield* LogWriter
    const health = yield* LogHealth
    const clock = yield* Clock
    const { mmdSeconds } = yield* ServiceConfig
    const startedAt = yield* clock.nowMillis
    return {
      current: Effect.gen(function*() {
        const size = yield* SubscriptionRef.get(writer.size)
        const publish = yield* Ref.get(health.publish)
        const diverged = yield* health.diverged
        const now = yield* clock.nowMillis
        const lagEntries = Math.max(0, size - publish.publishedSize)
        const lagSeconds = lagEntries === 0 ? 0 : Math.max(0, now - (publish.publishedAt ?? startedAt)) / 1000
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
