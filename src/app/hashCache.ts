// A bounded cache of stored Merkle hashes (issue 12, "Bounded memory"): the roots and proofs
// the service answers read O(log n) stored hashes each (LogReader.ts), and the upper levels
// of the tree are the same for nearly every proof, so they are kept, up to a fixed number
// of hashes, whatever the log's size. A stored hash never changes once written (the log
// only appends), so a cached one is never stale.
//
// Two generations rather than a strict least-recently-used order: hashes go into the young
// map; when it holds half the capacity it becomes the old one and the previous old one is
// dropped whole; a hash found in the old map is copied into the young one, so what is in use
// survives each turn. A strict LRU over one Map (delete and set again on every hit, evict the
// first key) was measured at 12% of the CPU of GET /v2/entries/{i} at 100,000 entries: every
// hit leaves a deleted slot in V8's ordered table, and finding the first key walks over them.

import { Effect } from "effect"
import type { Hash } from "../domain/tlog/hasher.js"
import type { StorageError } from "../ports/StorageError.js"

/** Hashes kept: 2 MiB of hash bytes, a few MiB with the map's own cost. */
export const HASH_CACHE_ENTRIES = 65_536

export const makeHashCache = (
  read: (indexes: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<Hash>, StorageError>,
  capacity = HASH_CACHE_ENTRIES
) => {
  const generation = Math.max(1, Math.floor(capacity / 2))
  let young = new Map<number, Hash>()
  let old = new Map<number, Hash>()
  const lookup = (index: number): Hash | undefined => young.get(index) ?? old.get(index)
  const remember = (index: number, hash: Hash) => {
    if (young.has(index)) return
    young.set(index, hash)
    if (young.size >= generation) {
      old = young
      young = new Map()
    }
  }
  /**
   * The stored hashes at these indexes, in order, reading only those not cached (with
   * `readMissing` when given: a read that brings something else along, LogReader's
   * entryWithProof).
   */
  return (
    indexes: ReadonlyArray<number>,
    readMissing: (indexes: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<Hash>, StorageError> = read
  ): Effect.Effect<ReadonlyArray<Hash>, StorageError> =>
    Effect.suspend(() => {
      // The hashes cached now are taken now: while the missing ones are read, concurrent
      // requests may push them out of the cache (with a log larger than the cache, they do).
      const known = new Map<number, Hash>()
      const missing: Array<number> = []
      for (const index of indexes) {
        const hash = lookup(index)
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
      return Effect.map(readMissing(missing), (hashes) => {
        missing.forEach((index, i) => known.set(index, hashes[i]!))
        return answer()
      })
    })
}
