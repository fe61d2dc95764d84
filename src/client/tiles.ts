// Reading stored hashes of the log from its C2SP tiles under /tiles/, and single entries from
// the entry bundles beside them, each kept in a bounded cache (TILES_KEPT, BUNDLES_KEPT:
// an audit reads every tile of the log once, so a reader that kept them all would hold 32
// bytes a leaf, 32 GB for a log of a billion entries); one evicted and needed again is
// fetched again. Tiles and bundles are not authenticated by themselves: whatever
// is computed from them is only trusted once it matches the signed checkpoint's root, and
// an entry once its leaf hash is the one the root authenticates (verify.ts).

import { equal } from "../domain/bytes.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { consistencyProofFromHashes, consistencyProofIndexes, verifyConsistency } from "../domain/tlog/consistency.js"
import { decodeEntryBundle } from "../domain/tlog/entryBundle.js"
import type { Hash } from "../domain/tlog/hasher.js"
import type { HashTile } from "../domain/tlog/tile.js"
import { TILE_HEIGHT, TILE_WIDTH, tilePath } from "../domain/tlog/tile.js"
import { rootFromTiles, storedHashesFromTiles, tileHashesNeededForRoot, tilesForStoredHashes } from "../domain/tlog/tileHashes.js"
import { treeHashFromHashes, treeHashIndexes } from "../domain/tlog/treeHash.js"
import { hasher } from "./crypto.js"
import { protocolError } from "./errors.js"
import { bodyBytes, getBytes, send, type Service } from "./http.js"

export interface TileReader {
  /** The root of the log of this size, rebuilt from tiles. */
  readonly root: (size: number) => Promise<Hash>
  /** The stored hashes at these positions in the log of this size. */
  readonly storedHashes: (size: number, indexes: ReadonlyArray<number>) => Promise<ReadonlyArray<Hash>>
  /** How many tiles were fetched so far (one fetched again after its eviction counts again). */
  readonly fetched: () => number
  /** The bytes of entry `index` in the log of this size, from its entry bundle (unchecked: hash them). */
  readonly entry: (size: number, index: number) => Promise<Uint8Array>
  /** How many entry bundles were fetched so far (as `fetched`). */
  readonly bundlesFetched: () => number
}

/** The size of the log's latest checkpoint, read without its signature: it only picks tiles. */
const publishedSize = async (service: Service): Promise<number | undefined> => {
  const response = await send(service, "/checkpoint")
  if (response.status !== 200) return undefined
  // Read leniently: the size only picks tiles, whatever is computed from them is checked.
  const size = Number(new TextDecoder().decode(await bodyBytes(service, "/checkpoint", response)).split("\n")[1])
  return Number.isSafeInteger(size) && size > 0 ? size : undefined
}

/** Width of the hash tile (level, index) in the log of this size (0 when the size does not reach it). */
const widthAt = (tile: HashTile, size: number): number =>
  Math.max(0, Math.min(TILE_WIDTH, Math.floor(size / 2 ** (TILE_HEIGHT * tile.level)) - tile.index * TILE_WIDTH))

/** Hash tiles a reader keeps (8 KiB each: 16 MiB), and entry bundles (up to 16 MiB each at the largest entries, usually some 160 KiB). */
export const TILES_KEPT = 2048
export const BUNDLES_KEPT = 16

/**
 * A cache of at most `capacity` keys, in two generations as app/hashCache.ts: values go into
 * the young map, which becomes the old one when it holds half the capacity (the previous
 * old one dropped whole); a value found in the old map is copied into the young one, so
 * what is in use survives each turn.
 */
export const boundedCache = <V>(capacity: number) => {
  const generation = Math.max(1, Math.floor(capacity / 2))
  let young = new Map<string, V>()
  let old = new Map<string, V>()
  const remember = (key: string, value: V): V => {
    young.set(key, value)
    if (young.size >= generation) {
      old = young
      young = new Map()
    }
    return value
  }
  return {
    /** The value kept for `key`, else `make`'s, kept. */
    get: (key: string, make: () => V): V => {
      const kept = young.get(key)
      if (kept !== undefined) return kept
      const aging = old.get(key)
      return remember(key, aging ?? make())
    },
    /** How many keys are kept. */
    size: () => young.size + old.size
  }
}

export const tileReader = (service: Service): TileReader => {
  const cache = boundedCache<Promise<Uint8Array>>(TILES_KEPT)
  let tilesFetched = 0
  const get = (tile: HashTile): Promise<Uint8Array> => {
    const path = `/tiles/${tilePath(tile)}`
    return cache.get(path, () => {
      tilesFetched++
      return getBytes(service, path)
    })
  }
  // A partial tile exists only for the sizes the log published a checkpoint at (C2SP
  // tlog-tiles), and a view may be signed at a size between two of them. Its hashes are
  // then the first ones of the same tile at the latest size (or of the full tile): fetched
  // there and cut. Whatever is computed from them is still checked against a signed root.
  const fetchTile = (tile: HashTile): Promise<Uint8Array> =>
    get(tile).catch(async (error: unknown) => {
      if (tile.width === TILE_WIDTH) throw error
      const latest = await publishedSize(service)
      const wider = latest === undefined ? 0 : widthAt(tile, latest)
      if (wider <= tile.width) throw error
      return (await get({ ...tile, width: wider })).subarray(0, tile.width * 32)
    })
  const fetchAll = (tiles: ReadonlyArray<HashTile>) => Promise.all(tiles.map(fetchTile))
  const bundles = boundedCache<Promise<ReadonlyArray<Uint8Array>>>(BUNDLES_KEPT)
  let bundlesFetched = 0
  const bundle = (index: number, width: number): Promise<ReadonlyArray<Uint8Array>> => {
    const path = `/tiles/${tilePath({ kind: "entries", index, width })}`
    return bundles.get(path, () => {
      bundlesFetched++
      return getBytes(service, path).then((bytes) => {
        const decoded = decodeEntryBundle(bytes)
        if (decoded === undefined || decoded.length !== width) throw protocolError(`${path} is not a bundle of ${width} entries`)
        return decoded
      })
    })
  }
  return {
    root: async (size) => {
      const root = rootFromTiles(hasher, size, await fetchAll(tileHashesNeededForRoot(size)))
      if (root === undefined) throw protocolError("a tile does not have the length its path names")
      return root
    },
    storedHashes: async (size, indexes) => {
      const hashes = storedHashesFromTiles(hasher, size, indexes, await fetchAll(tilesForStoredHashes(size, indexes)))
      if (hashes === undefined) throw protocolError("a tile does not have the length its path names")
      return hashes
    },
    fetched: () => tilesFetched,
    entry: async (size, index) => {
      const tile = Math.floor(index / TILE_WIDTH)
      const width = Math.min(TILE_WIDTH, size - tile * TILE_WIDTH)
      // A partial bundle of a size between two published ones is the same bundle's first
      // entries at the latest size (as fetchTile for hash tiles).
      const entries = await bundle(tile, width).catch(async (error: unknown) => {
        if (width === TILE_WIDTH) throw error
        const latest = await publishedSize(service)
        const wider = latest === undefined ? 0 : Math.min(TILE_WIDTH, latest - tile * TILE_WIDTH)
        if (wider <= width) throw error
        return bundle(tile, wider)
      })
      return entries[index - tile * TILE_WIDTH]!
    },
    bundlesFetched: () => bundlesFetched
  }
}

/** What the tiles of a newer checkpoint show of an older one (consistencyFromTiles). */
export type TileConsistency =
  /** The tiles prove the newer checkpoint extends the older one. */
  | { readonly _tag: "Extends" }
  /**
   * The tiles hash to the newer checkpoint's root and give another root at the older size:
   * the log signed two histories, and the two signed checkpoints are the evidence.
   */
  | { readonly _tag: "Forks"; readonly rootAtOlderSize: Hash }
  /** The tiles do not hash to the newer checkpoint's root: they show nothing either way. */
  | { readonly _tag: "TilesDoNotMatch" }

/**
 * The older checkpoint against the tiles of the newer one (older.size <= newer.size): the
 * root at the older size and the consistency proof (RFC 9162 section 2.1.4) from it are both
 * read from the tiles of the newer size. When that proof takes that root to the newer
 * signed root, the root is the newer tree's own at the older size (a proof cannot take two
 * roots to one without a hash collision), so it is equal to the older checkpoint's or the
 * two checkpoints cannot both be true.
 */
export const consistencyFromTiles = async (tiles: TileReader, older: Checkpoint, newer: Checkpoint): Promise<TileConsistency> => {
  // At one size the signed root is the root: no tile can say more.
  if (older.size === newer.size) return equal(older.rootHash, newer.rootHash) ? { _tag: "Extends" } : { _tag: "Forks", rootAtOlderSize: newer.rootHash }
  const [proofHashes, rootHashes] = await Promise.all([
    tiles.storedHashes(newer.size, consistencyProofIndexes(older.size, newer.size)),
    tiles.storedHashes(newer.size, treeHashIndexes(older.size))
  ])
  const proof = consistencyProofFromHashes(hasher, older.size, newer.size, proofHashes)
  const rootAtOlderSize = treeHashFromHashes(hasher, older.size, rootHashes)
  if (!verifyConsistency(hasher, older.size, newer.size, rootAtOlderSize, newer.rootHash, proof)) return { _tag: "TilesDoNotMatch" }
  return equal(rootAtOlderSize, older.rootHash) ? { _tag: "Extends" } : { _tag: "Forks", rootAtOlderSize }
}
