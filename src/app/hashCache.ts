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
  return (indexes: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Hash>, StorageError> => {
    const missing = indexes.filter((index) => !cache.has(index))
    const answer = () =>
      indexes.map((index) => {
        const hash = cache.get(index)!
        remember(index, hash)
        return hash
      })
    if (missing.length === 0) return Effect.sync(answer)
    return Effect.map(read(missing), (hashes) => {
      // Remembered first, answered after: a capacity below one proof's hashes still answers.
      const found = new Map(missing.map((index, i) => [index, hashes[i]!]))
      for (const [index, hash] of found) remember(index, hash)
      return indexes.map((index) => cache.get(index) ?? found.get(index)!)
    })
  }
}
