// A bounded cache of stored Merkle hashes (issue 12, "Bounded memory"): the roots and proofs
// the service answers read O(log n) stored hashes each (LogReader.ts), and the upper levels
// of the tree are the same for nearly every proof, so they are kept, up to a fixed number
// of hashes, whatever the log's size. A stored hash never changes once written (the log
// only appends), so a cached one is never stale. Least recently used goes first.

import { Effect } from "effect"
import type { Hash } from "../domain/tlog/hasher.js"
import type { StorageError } from "../ports/StorageError.js"

/** Hashes kept: 2 MiB of hash bytes, a few MiB with the map's own cost. */
export const HASH_CACHE_ENTRIES = 65_536

export const makeHashCache = (
  read: (indexes: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<Hash>, StorageError>,
  capacity = HASH_CACHE_ENTRIES
) => {
  const cache = new Map<number, Hash>()
  const remember = (index: number, hash: Hash) => {
    cache.delete(index)
    cache.set(index, hash)
    if (cache.size > capacity) cache.delete(cache.keys().next().value!)
  }
  /** The stored hashes at these indexes, in order, reading only those not cached. */
  return (indexes: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Hash>, StorageError> =>
    Effect.suspend(() => {
      // The hashes cached now are taken now: while the missing ones are read, concurrent
      // requests may push them out of the cache (with a log larger than the cache, they do).
      const known = new Map<number, Hash>()
      const missing: Array<number> = []
      for (const index of indexes) {
        const hash = cache.get(index)
        if (hash !== undefined) known.set(index, hash)
        else missing.push(index)
      }
      const answer = () =>
        indexes.map((index) => {
          const hash = known.get(index)!
          remember(index, hash)
          return hash
        })
      if (missing.length === 0) return Effect.sync(answer)
      return Effect.map(read(missing), (hashes) => {
        missing.forEach((index, i) => known.set(index, hashes[i]!))
        return answer()
      })
    })
}
