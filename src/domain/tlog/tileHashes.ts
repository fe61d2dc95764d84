// C2SP tlog-tiles, verifier side: any stored hash of a log, computed from the tiles that log
// publishes, so a client holding only tiles gets roots and proofs. Ported from Go's
// golang.org/x/mod/sumdb/tlog (tileForIndex, tileParent, HashFromTile, TileHashReader).
//
// A level-L tile holds the hashes at tree level 8L; a stored hash at tree level 8L + r
// (0 <= r < 8) is the root of 2^r consecutive hashes of one such tile, so it is rebuilt by
// hashing those. Plan then compute, as for stored hashes: tilesForStoredHashes lists the
// tiles to fetch, storedHashesFromTiles computes the hashes from their bytes.
//
// Tile bytes come from an untrusted server and are not authenticated here: rebuild the root
// and compare it with the signed checkpoint, or build a proof (inclusionProofIndexes ->
// tilesForStoredHashes -> storedHashesFromTiles -> inclusionProofFromHashes) and check it
// with verifyInclusion against that root; a wrong tile then fails the check.

import type { Hash, TreeHasher } from "./hasher.js"
import { HASH_SIZE } from "./hasher.js"
import { isTreeSize, splitStoredHashIndex } from "./storedHash.js"
import type { HashTile } from "./tile.js"
import { TILE_HEIGHT, TILE_WIDTH } from "./tile.js"
import { hashesAtTileLevel } from "./tiles.js"
import { treeHashFromHashes, treeHashIndexes } from "./treeHash.js"

/** Where a stored hash lives: the tile published at that size, and the slots [start, end) it is the root of. */
export interface TileSlots {
  readonly tile: HashTile
  readonly start: number
  readonly end: number
}

/**
 * The tile, as published for a log of the given size, whose slots [start, end) hash to the
 * stored hash at position index. Throws a RangeError if that hash is not in the log.
 */
export const tileSlotsForStoredHash = (size: number, index: number): TileSlots => {
  if (!isTreeSize(size) || !Number.isInteger(index) || index < 0) {
    throw new RangeError(`no stored hash ${index} in a tree of size ${size}`)
  }
  const { level, n } = splitStoredHashIndex(index)
  if ((n + 1) * 2 ** level > size) throw new RangeError(`stored hash ${index} is not in a tree of size ${size}`)
  const tileLevel = Math.floor(level / TILE_HEIGHT)
  const span = 2 ** (level - TILE_HEIGHT * tileLevel) // tile slots under this hash
  const first = n * span // its first slot, counted along tree level 8 * tileLevel
  const tileIndex = Math.floor(first / TILE_WIDTH)
  const start = first - tileIndex * TILE_WIDTH
  // The widest version of the tile this size publishes (Go's tileParent(t, 0, size)): the
  // full tile, or the partial one at the right edge, which then holds at least [start, end).
  const width = Math.min(TILE_WIDTH, hashesAtTileLevel(size, tileLevel) - tileIndex * TILE_WIDTH)
  return { tile: { kind: "hash", level: tileLevel, index: tileIndex, width }, start, end: start + span }
}

/** MTH of the tile's hashes in slots [start, end), a power-of-two run (Go's tileHash). */
const slotsHash = (hasher: TreeHasher, tileBytes: Uint8Array, start: number, end: number): Hash => {
  if (end - start === 1) return tileBytes.slice(start * HASH_SIZE, end * HASH_SIZE)
  const middle = (start + end) / 2
  return hasher.nodeHash(slotsHash(hasher, tileBytes, start, middle), slotsHash(hasher, tileBytes, middle, end))
}

const tileKey = (tile: HashTile): string => `${tile.level}/${tile.index}`

/** The tiles to fetch for the stored hashes at these positions in a log of the given size, each once. */
export const tilesForStoredHashes = (size: number, indexes: ReadonlyArray<number>): ReadonlyArray<HashTile> => {
  const tiles = new Map<string, HashTile>()
  for (const index of indexes) {
    const { tile } = tileSlotsForStoredHash(size, index)
    if (!tiles.has(tileKey(tile))) tiles.set(tileKey(tile), tile)
  }
  return [...tiles.values()]
}

/**
 * The stored hashes at these positions, from the bytes of the tiles tilesForStoredHashes(size,
 * indexes) listed, in that order. Undefined if a tile's bytes are not width * 32 long.
 */
export const storedHashesFromTiles = (
  hasher: TreeHasher,
  size: number,
  indexes: ReadonlyArray<number>,
  tileBytes: ReadonlyArray<Uint8Array>
): ReadonlyArray<Hash> | undefined => {
  const tiles = tilesForStoredHashes(size, indexes)
  if (tileBytes.length !== tiles.length) {
    throw new RangeError(`expected the bytes of ${tiles.length} tiles, got ${tileBytes.length}`)
  }
  const bytesByTile = new Map<string, Uint8Array>()
  for (let i = 0; i < tiles.length; i++) {
    if (tileBytes[i]!.length !== tiles[i]!.width * HASH_SIZE) return undefined
    bytesByTile.set(tileKey(tiles[i]!), tileBytes[i]!)
  }
  return indexes.map((index) => {
    const { tile, start, end } = tileSlotsForStoredHash(size, index)
    return slotsHash(hasher, bytesByTile.get(tileKey(tile))!, start, end)
  })
}

/** The tiles a verifier fetches to rebuild the root of a log of the given size. */
export const tileHashesNeededForRoot = (size: number): ReadonlyArray<HashTile> => tilesForStoredHashes(size, treeHashIndexes(size))

/** The root of a log of the given size from the bytes of the tiles tileHashesNeededForRoot(size) listed, in order. */
export const rootFromTiles = (
  hasher: TreeHasher,
  size: number,
  tileBytes: ReadonlyArray<Uint8Array>
): Hash | undefined => {
  const hashes = storedHashesFromTiles(hasher, size, treeHashIndexes(size), tileBytes)
  return hashes === undefined ? undefined : treeHashFromHashes(hasher, size, hashes)
}
