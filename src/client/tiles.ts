// Reading stored hashes of the log from its C2SP tiles under /tiles/, each tile fetched at
// most once per reader. Tiles are not authenticated by themselves: whatever is computed from
// them is only trusted once it matches the signed checkpoint's root (verify.ts).

import type { Hash } from "../domain/tlog/hasher.js"
import type { HashTile } from "../domain/tlog/tile.js"
import { TILE_HEIGHT, TILE_WIDTH, tilePath } from "../domain/tlog/tile.js"
import { rootFromTiles, storedHashesFromTiles, tileHashesNeededForRoot, tilesForStoredHashes } from "../domain/tlog/tileHashes.js"
import { hasher } from "./crypto.js"
import { protocolError } from "./errors.js"
import { getBytes, send, type Service } from "./http.js"

export interface TileReader {
  /** The root of the log of this size, rebuilt from tiles. */
  readonly root: (size: number) => Promise<Hash>
  /** The stored hashes at these positions in the log of this size. */
  readonly storedHashes: (size: number, indexes: ReadonlyArray<number>) => Promise<ReadonlyArray<Hash>>
  /** How many distinct tiles were fetched so far. */
  readonly fetched: () => number
}

/** The size of the log's latest checkpoint, read without its signature: it only picks tiles. */
const publishedSize = async (service: Service): Promise<number | undefined> => {
  const response = await send(service, "/checkpoint")
  if (response.status !== 200) return undefined
  const size = Number((await response.text()).split("\n")[1])
  return Number.isSafeInteger(size) && size > 0 ? size : undefined
}

/** Width of the hash tile (level, index) in the log of this size (0 when the size does not reach it). */
const widthAt = (tile: HashTile, size: number): number =>
  Math.max(0, Math.min(TILE_WIDTH, Math.floor(size / 2 ** (TILE_HEIGHT * tile.level)) - tile.index * TILE_WIDTH))

export const tileReader = (service: Service): TileReader => {
  const cache = new Map<string, Promise<Uint8Array>>()
  const get = (tile: HashTile): Promise<Uint8Array> => {
    const path = `/tiles/${tilePath(tile)}`
    let bytes = cache.get(path)
    if (bytes === undefined) {
      bytes = getBytes(service, path)
      cache.set(path, bytes)
    }
    return bytes
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
    fetched: () => cache.size
  }
}
