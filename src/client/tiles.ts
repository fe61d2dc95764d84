// Reading stored hashes of the log from its C2SP tiles under /tiles/, each tile fetched at
// most once per reader. Tiles are not authenticated by themselves: whatever is computed from
// them is only trusted once it matches the signed checkpoint's root (verify.ts).

import type { Hash } from "../domain/tlog/hasher.js"
import type { HashTile } from "../domain/tlog/tile.js"
import { tilePath } from "../domain/tlog/tile.js"
import { rootFromTiles, storedHashesFromTiles, tileHashesNeededForRoot, tilesForStoredHashes } from "../domain/tlog/tileHashes.js"
import { hasher } from "./crypto.js"
import { protocolError } from "./errors.js"
import { getBytes, type Service } from "./http.js"

export interface TileReader {
  /** The root of the log of this size, rebuilt from tiles. */
  readonly root: (size: number) => Promise<Hash>
  /** The stored hashes at these positions in the log of this size. */
  readonly storedHashes: (size: number, indexes: ReadonlyArray<number>) => Promise<ReadonlyArray<Hash>>
  /** How many distinct tiles were fetched so far. */
  readonly fetched: () => number
}

export const tileReader = (service: Service): TileReader => {
  const cache = new Map<string, Promise<Uint8Array>>()
  const fetchTile = (tile: HashTile): Promise<Uint8Array> => {
    const path = `/tiles/${tilePath(tile)}`
    let bytes = cache.get(path)
    if (bytes === undefined) {
      bytes = getBytes(service, path)
      cache.set(path, bytes)
    }
    return bytes
  }
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
