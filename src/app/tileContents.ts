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

/** The tiles' paths and bytes. The hashes of all hash tiles are read in one request. */
export const tileContents = (store: Store, tiles: ReadonlyArray<Tile>) =>
  Effect.gen(function*() {
    const indexes: Array<number> = []
    for (const tile of tiles) if (tile.kind === "hash") indexes.push(...tileHashIndexes(tile))
    const hashes = yield* store.readHashes(indexes)
    let next = 0
    const out: Array<PublishedTile> = []
    for (const tile of tiles) {
      if (tile.kind === "hash") {
        out.push({ path: tilePath(tile), bytes: encodeHashTile(tile, hashes.slice(next, next + tile.width)) })
        next += tile.width
      } else {
        const { start, end } = bundleEntryRange(tile)
        out.push({ path: tilePath(tile), bytes: encodeEntryBundle(yield* store.readEntries(start, end)) })
      }
    }
    return out
  })
