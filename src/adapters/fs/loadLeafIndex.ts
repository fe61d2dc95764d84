// Building findLeaf's index (leafIndex.ts) when the store opens, from the level-0 stored
// hashes: they are the leaf hashes, 32 bytes each at known positions of the hashes file,
// which is far smaller than the leaves file. The file is read sequentially in 2 MiB chunks,
// interior hashes included, since skipping them would cost more reads than it saves.

import type { FileHandle } from "node:fs/promises"
import type { Effect } from "effect"
import { HASH_SIZE } from "../../domain/tlog/hasher.js"
import { storedHashCount } from "../../domain/tlog/storedHash.js"
import type { StorageError } from "../../ports/StorageError.js"
import { attempt, readInto } from "./fileIo.js"
import { makeLeafIndex, type LeafIndex } from "./leafIndex.js"

const CHUNK_HASHES = 1 << 16

/** Stored hashes leaf n writes: its own and one per subtree it completes (trailing 1 bits of n). */
const hashesWrittenBy = (n: number): number => {
  let count = 1
  while (n % 2 === 1) {
    count++
    n = (n - 1) / 2
  }
  return count
}

export const loadLeafIndex = (hashes: FileHandle, size: number): Effect.Effect<LeafIndex, StorageError> =>
  attempt("open", "building the leaf index from the hashes file", async () => {
    const index = makeLeafIndex(size)
    const total = storedHashCount(size)
    const buffer = new Uint8Array(CHUNK_HASHES * HASH_SIZE)
    let leaf = 0
    let position = 0 // storedHashIndex(0, leaf), kept incrementally
    while (leaf < size) {
      const chunkStart = position
      const chunkLength = Math.min(CHUNK_HASHES, total - chunkStart)
      const chunk = buffer.subarray(0, chunkLength * HASH_SIZE)
      if ((await readInto(hashes, chunk, chunkStart * HASH_SIZE)) !== chunk.length) {
        throw new Error(`the hashes file ends before hash ${chunkStart + chunkLength}`)
      }
      while (leaf < size && position < chunkStart + chunkLength) {
        const at = (position - chunkStart) * HASH_SIZE
        index.add(chunk.subarray(at, at + HASH_SIZE), leaf)
        position += hashesWrittenBy(leaf)
        leaf++
      }
    }
    return index
  })
