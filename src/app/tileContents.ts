// The bytes a tile must hold, computed from the log store. The publisher writes them and
// the background audit compares the published tiles with them, so both use this one
// function and cannot disagree about what a tile is.

import { Effect } from "effect"
import { encodeEntryBundle } from "../domain/tlog/entryBundle.js"
import { tilePath, type Tile } from "../domain/tlog/tile.js"
import { bundleEntryRange, encodeHashTile, tileHashIndexes } from "../domain/tlog/tiles.js"
import type { LogStore } from "../ports/LogStore.js"
import type { Tile as PublishedTile } from "../ports/TileSink.js"

type Store = typeof LogStore.Service

/** Entry ranges [start, end) merged where they touch, in order. */
const contiguousRuns = (ranges: ReadonlyArray<{ readonly start: number; readonly end: number }>) => {
  const runs: Array<{ start: number; end: number }> = []
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = runs[runs.length - 1]
    if (last !== undefined && range.start <= last.end) last.end = Math.max(last.end, range.end)
    else runs.push({ ...range })
  }
  return runs
}

/**
 * The tiles' paths and bytes. The hashes of all hash tiles are read in one request, and the
 * entries of entry bundles in one request per run of adjacent bundles: a publication's
 * bundles are adjacent (the partial one it extends and those after it), so it costs two
 * reads of the store however many tiles it writes. Each read is a trip through the event
 * loop, which is busy while writes pour in; fewer trips keep the checkpoint close behind.
 */
export const tileContents = (store: Store, tiles: ReadonlyArray<Tile>) =>
  Effect.gen(function*() {
    const indexes: Array<number> = []
    const bundles: Array<{ readonly start: number; readonly end: number }> = []
    for (const tile of tiles) {
      if (tile.kind === "hash") indexes.push(...tileHashIndexes(tile))
      else bundles.push(bundleEntryRange(tile))
    }
    const hashes = yield* store.readHashes(indexes)
    const entryAt = new Map<number, Uint8Array>()
    for (const run of contiguousRuns(bundles)) {
      const entries = yield* store.readEntries(run.start, run.end)
      entries.forEach((entry, i) => entryAt.set(run.start + i, entry))
    }
    let next = 0
    const out: Array<PublishedTile> = []
    for (const tile of tiles) {
      if (tile.kind === "hash") {
        out.push({ path: tilePath(tile), bytes: encodeHashTile(tile, hashes.slice(next, next + tile.width)) })
        next += tile.width
      } else {
        const { start, end } = bundleEntryRange(tile)
        const entries: Array<Uint8Array> = []
        for (let i = start; i < end; i++) entries.push(entryAt.get(i)!)
        out.push({ path: tilePath(tile), bytes: encodeEntryBundle(entries) })
      }
    }
    return out
  })
