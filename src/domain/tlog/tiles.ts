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
  // A loop, not push(...): a span of a few hundred thousand tiles overflows the stack.
  for (const { itemsAt, make } of tileKinds(newSize)) {
    for (const tile of newTilesOfLevel(itemsAt(oldSize), itemsAt(newSize), make)) tiles.push(tile)
  }
  return tiles
}

/** Every tile and bundle a log of the given size publishes. */
export const tilesForSize = (size: number): ReadonlyArray<Tile> => newTiles(0, size)

interface TileKind {
  /** How many items (hashes of the tile level, or entries) a log of a size tiles. */
  readonly itemsAt: (size: number) => number
  readonly make: (index: number, width: number) => Tile
}

/** The kinds of tile a log of this size publishes, in tilesForSize's order: each tile level's hashes, then the entries. */
const tileKinds = (size: number): Array<TileKind> => {
  const kinds: Array<TileKind> = []
  for (let level = 0; hashesAtTileLevel(size, level) > 0; level++) {
    kinds.push({ itemsAt: (at) => hashesAtTileLevel(at, level), make: (index, width) => ({ kind: "hash", level, index, width }) })
  }
  kinds.push({ itemsAt: (at) => at, make: (index, width) => ({ kind: "entries", index, width }) })
  return kinds
}

/**
 * The partial tiles newTiles(oldSize, newSize) lists, without listing the full tiles in
 * between: those of newSize (at most one a level) whose level holds more items than at
 * oldSize. A publication written in steps writes them with its last step, though a level's
 * partial tile may have appeared in an earlier one.
 */
export const newPartialTiles = (oldSize: number, newSize: number): ReadonlyArray<Tile> =>
  tileKinds(newSize).flatMap(({ itemsAt, make }) => {
    const items = itemsAt(newSize)
    return items % TILE_WIDTH > 0 && items !== itemsAt(oldSize) ? [make(Math.floor(items / TILE_WIDTH), items % TILE_WIDTH)] : []
  })

/** The partial tiles and bundle of a log of this size (at most one a level), in tilesForSize's order. */
export const partialTilesForSize = (size: number): ReadonlyArray<Tile> => newPartialTiles(0, size)

/**
 * How many full tiles and bundles a log of this size publishes, and the one at a position
 * of tilesForSize's order of them: a walk over the full tiles of a log of a billion entries
 * (some 7.8 million) without a list of them all.
 */
export const fullTilesForSize = (size: number): { readonly count: number; readonly at: (position: number) => Tile } => {
  const kinds = tileKinds(size).map(({ itemsAt, make }) => ({ full: Math.floor(itemsAt(size) / TILE_WIDTH), make }))
  return {
    count: kinds.reduce((sum, { full }) => sum + full, 0),
    at: (position) => {
      let rest = position
      for (const { full, make } of kinds) {
        if (rest < full) return make(rest, TILE_WIDTH)
        rest -= full
      }
      throw new RangeError(`no full tile at position ${position} of a log of ${size} entries`)
    }
  }
}

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
