// C2SP tlog-tiles, publisher side: which tiles a log of a given size publishes, which of them
// are new since an earlier size, and which stored hashes or entries go into each.
//
// At level L the tree has floor(size / 256^L) hashes at tree level 8L (the roots of the
// complete subtrees of 256^L leaves). They fill full tiles of 256, then one partial tile with
// the remainder if it is not zero; empty tiles are never published. Entry bundles follow the
// level-0 tiles. A size-256 log thus publishes tile/0/000, tile/1/000.p/1 and
// tile/entries/000.

import { concat } from "../bytes.js"
import { HASH_SIZE } from "./hasher.js"
import type { Hash } from "./hasher.js"
import { isTreeSize, MAX_TREE_SIZE, storedHashIndex } from "./storedHash.js"
import type { EntryBundle, HashTile, Tile } from "./tile.js"
import { TILE_HEIGHT, TILE_WIDTH } from "./tile.js"

/** Hashes at tree level 8 * level in a log of the given size: floor(size / 256^level). */
export const hashesAtTileLevel = (size: number, level: number): number =>
  Math.floor(size / 2 ** (TILE_HEIGHT * level))

/**
 * Tiles of one level (or bundles) that are published at newCount items but were not at
 * oldCount: the full tiles completed in between, and the partial tile at newCount if any.
 */
const newTilesOfLevel = <T extends Tile>(
  oldCount: number,
  newCount: number,
  make: (index: number, width: number) => T
): Array<T> => {
  const tiles: Array<T> = []
  if (newCount === oldCount) return tiles
  const fullBefore = Math.floor(oldCount / TILE_WIDTH)
  const fullAfter = Math.floor(newCount / TILE_WIDTH)
  for (let index = fullBefore; index < fullAfter; index++) tiles.push(make(index, TILE_WIDTH))
  const partialWidth = newCount % TILE_WIDTH
  if (partialWidth > 0) tiles.push(make(fullAfter, partialWidth))
  return tiles
}

/**
 * The tiles and bundles that appear going from a published log of oldSize to newSize: the
 * publisher writes exactly these. Hash tiles by level, then entry bundles, each in index
 * order. Throws a RangeError unless 0 <= oldSize <= newSize <= MAX_TREE_SIZE.
 *
 * Unlike Go's tlog.NewTiles, which lists a partial tile for every width in between, only the
 * partial tiles of newSize are listed: C2SP tlog-tiles requires partial tiles only for sizes
 * a checkpoint was signed for, and the publisher calls this once per checkpoint.
 */
export const newTiles = (oldSize: number, newSize: number): ReadonlyArray<Tile> => {
  if (!isTreeSize(oldSize) || !isTreeSize(newSize) || oldSize > newSize) {
    throw new RangeError(`no tiles from size ${oldSize} to size ${newSize}`)
  }
  const tiles: Array<Tile> = []
  for (let level = 0; hashesAtTileLevel(newSize, level) > 0; level++) {
    tiles.push(
      ...newTilesOfLevel(hashesAtTileLevel(oldSize, level), hashesAtTileLevel(newSize, level), (index, width) => ({
        kind: "hash" as const,
        level,
        index,
        width
      }))
    )
  }
  tiles.push(...newTilesOfLevel(oldSize, newSize, (index, width) => ({ kind: "entries" as const, index, width })))
  return tiles
}

/** Every tile and bundle a log of the given size publishes. */
export const tilesForSize = (size: number): ReadonlyArray<Tile> => newTiles(0, size)

/** Throws a RangeError for a tile no log of at most MAX_TREE_SIZE leaves publishes. */
const requireTileInRange = (tile: Tile): void => {
  const leavesPerHash = tile.kind === "entries" ? 1 : 2 ** (TILE_HEIGHT * tile.level)
  if ((tile.index * TILE_WIDTH + tile.width) * leavesPerHash > MAX_TREE_SIZE) {
    throw new RangeError(`tile ${tile.kind} ${tile.index} lies beyond the largest log`)
  }
}

/** Stored-hash positions of a hash tile's hashes, in tile order. */
export const tileHashIndexes = (tile: HashTile): ReadonlyArray<number> => {
  requireTileInRange(tile)
  const first = tile.index * TILE_WIDTH
  const indexes = new Array<number>(tile.width)
  for (let i = 0; i < tile.width; i++) indexes[i] = storedHashIndex(TILE_HEIGHT * tile.level, first + i)
  return indexes
}

/** A hash tile's bytes: its hashes, read at tileHashIndexes(tile), concatenated. */
export const encodeHashTile = (tile: HashTile, hashes: ReadonlyArray<Hash>): Uint8Array => {
  if (hashes.length !== tile.width || hashes.some((hash) => hash.length !== HASH_SIZE)) {
    throw new RangeError(`tile of width ${tile.width} needs ${tile.width} hashes of ${HASH_SIZE} bytes`)
  }
  return concat(...hashes)
}

/** The entries an entry bundle holds: [start, end) in log order. */
export const bundleEntryRange = (bundle: EntryBundle): { readonly start: number; readonly end: number } => {
  requireTileInRange(bundle)
  const start = bundle.index * TILE_WIDTH
  return { start, end: start + bundle.width }
}
