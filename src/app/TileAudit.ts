// The background check behind /healthz (issue: "503 when a background check finds stored
// tiles that disagree with the log"). Every AICS_TILE_CHECK_SECONDS it compares what the
// tile sink holds with what the log says:
//   - the checkpoint on disk must be the one the publisher last wrote, or at least a
//     checkpoint of this log (judgeCheckpoint);
//   - every partial tile of that size, and a rotating share of the full tiles (so a large
//     log is covered over several rounds at a bounded cost per round), must be byte for
//     byte what tileContents computes from the log store.
// The first disagreement marks the log diverged: health answers 503 and the writer refuses
// new leaves, because publishing more on top of tiles that lie would spread the damage.

import { Cause, Duration, Effect, Either, Layer, LogLevel, Option, Ref } from "effect"
import { equal } from "../domain/bytes.js"
import type { Tile } from "../domain/tlog/tile.js"
import { fullTilesForSize, partialTilesForSize } from "../domain/tlog/tiles.js"
import { Clock } from "../ports/Clock.js"
import { LogStore } from "../ports/LogStore.js"
import { TileSink } from "../ports/TileSink.js"
import { failureLines } from "./failureLines.js"
import { LogHealth } from "./LogHealth.js"
import { Publisher } from "./Publisher.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { judgeCheckpoint } from "./publishedCheckpoint.js"
import { tileContents } from "./tileContents.js"

/** Full tiles compared per round; partial tiles are always compared. */
export const FULL_TILES_PER_ROUND = 256

export const makeTileAudit = Effect.gen(function*() {
  const store = yield* LogStore
  const sink = yield* TileSink
  const publisher = yield* Publisher
  const health = yield* LogHealth
  const cursor = yield* Ref.make(0)

  const compare = (tiles: ReadonlyArray<Tile>) =>
    Effect.gen(function*() {
      for (const expected of yield* tileContents(store, tiles)) {
        const stored = yield* sink.readTile(expected.path)
        if (Option.isNone(stored)) return Option.some(`tile ${expected.path} is missing`)
        if (!equal(stored.value, expected.bytes)) return Option.some(`tile ${expected.path} differs from the log`)
      }
      return Option.none<string>()
    })

  /** One round; returns the disagreement found, if any (and marks the log diverged). */
  const auditOnce = Effect.gen(function*() {
    if ((yield* health.diverged) !== undefined) return Option.none<string>()
    const stored = yield* sink.readCheckpoint
    const latest = yield* publisher.latest
    if (Option.isNone(stored)) {
      return latest === undefined ? Option.none<string>() : Option.some("the published checkpoint is missing")
    }
    const judged = yield* judgeCheckpoint(publisher.judge, stored.value)
    if (Either.isLeft(judged)) return Option.some(judged.left)
    // The full tiles by position, not as a list: a log of a billion entries has some 7.8
    // million of them, which a round would otherwise make and filter every time.
    const size = judged.right.size
    const full = fullTilesForSize(size)
    const start = (yield* Ref.get(cursor)) % Math.max(1, full.count)
    const share = Array.from({ length: Math.min(FULL_TILES_PER_ROUND, full.count - start) }, (_, i) => full.at(start + i))
    yield* Ref.set(cursor, start + share.length)
    return yield* compare([...partialTilesForSize(size), ...share])
  }).pipe(
    Effect.tap(Option.match({ onNone: () => Effect.void, onSome: (reason) => health.markDiverged(reason) }))
  )
  return { auditOnce }
})

/** Runs the audit forever in the background of the layer's scope. */
export const TileAuditLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { tileCheckSeconds } = yield* ServiceConfig
  const { auditOnce } = yield* makeTileAudit
  // A storage down for long fails every round: one line, a reminder a minute (failureLines.ts).
  const reads = failureLines(LogLevel.Warning, (yield* Clock).nowMillis)
  const round = auditOnce.pipe(
    Effect.zipRight(reads.worked("tile audit reads storage again")),
    Effect.catchAll((error) => reads.failed("tile audit could not read storage", Cause.fail(error))),
    Effect.zipRight(Effect.sleep(Duration.seconds(tileCheckSeconds)))
  )
  yield* Effect.forkScoped(Effect.forever(round))
}))
