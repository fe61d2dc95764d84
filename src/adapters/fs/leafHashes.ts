// The leaf hashes of a run of leaves, read from FsLogStore's hashes file: the level-0 stored
// hashes, 32 bytes each at storedHashIndex(0, leaf), with the interior hashes between them.
// The run's span is read at once (interior hashes included: about twice the leaf hashes,
// and one read instead of one per leaf), for the leaf index's catch-up and for findLeaf's
// scan of the leaves the index does not hold yet (leafFinder.ts).

import type { FileHandle } from "node:fs/promises"
import { Effect } from "effect"
import { HASH_SIZE, type Hash } from "../../domain/tlog/hasher.js"
import { storedHashIndex } from "../../domain/tlog/storedHash.js"
import type { StorageError } from "../../ports/StorageError.js"
import { readExactly } from "./fileIo.js"

/** Leaf hashes of leaves [from, to), all committed; views of one buffer read for this call. */
export const readLeafHashes = (hashes: FileHandle, from: number, to: number): Effect.Effect<ReadonlyArray<Hash>, StorageError> => {
  if (from >= to) return Effect.succeed([])
  const first = storedHashIndex(0, from)
  const span = storedHashIndex(0, to - 1) + 1 - first
  return Effect.map(readExactly(hashes, HASH_SIZE * span, HASH_SIZE * first, "hashes"), (bytes) => {
    const leafHashes: Array<Hash> = []
    for (let leaf = from; leaf < to; leaf++) {
      const at = HASH_SIZE * (storedHashIndex(0, leaf) - first)
      leafHashes.push(bytes.subarray(at, at + HASH_SIZE))
    }
    return leafHashes
  })
}
