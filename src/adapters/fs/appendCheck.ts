// What every LogStore adapter checks before it writes a batch (the filesystem and memory
// stores share it, so they refuse exactly the same batches). The store cannot recompute
// interior hashes without the frontier, which the writer owns, but it can catch the
// mistakes that would make the files disagree with themselves: a leaf hash that is not the
// hash of the entry, a leaf that brings the wrong number of stored hashes, a hash that is
// not 32 bytes, an entry too long for an entry bundle, an append somewhere else than at
// the end.

import { equal } from "../../domain/bytes.js"
import { HASH_SIZE, type TreeHasher } from "../../domain/tlog/hasher.js"
import { storedHashCount } from "../../domain/tlog/storedHash.js"
import type { AppendedLeaf } from "../../ports/LogStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { MAX_ENTRY_SIZE } from "./logLayout.js"

const refuse = (detail: string) => new StorageError({ operation: "append", detail })

/** Undefined when the batch may be appended to a log of `size` leaves at `start`. */
export const checkAppend = (
  hasher: TreeHasher,
  size: number,
  start: number,
  leaves: ReadonlyArray<AppendedLeaf>
): StorageError | undefined => {
  if (start !== size) return refuse(`append at ${start} but the log has ${size} leaves`)
  for (let i = 0; i < leaves.length; i++) {
    const leaf = leaves[i]!
    const index = start + i
    if (leaf.bytes.length > MAX_ENTRY_SIZE) {
      return refuse(`leaf ${index} is ${leaf.bytes.length} bytes, more than ${MAX_ENTRY_SIZE}`)
    }
    const expected = storedHashCount(index + 1) - storedHashCount(index)
    if (leaf.hashes.length !== expected) {
      return refuse(`leaf ${index} brings ${leaf.hashes.length} stored hashes, expected ${expected}`)
    }
    for (const hash of leaf.hashes) {
      if (hash.length !== HASH_SIZE) return refuse(`leaf ${index} has a stored hash of ${hash.length} bytes`)
    }
    if (!equal(leaf.hashes[0]!, hasher.leafHash(leaf.bytes))) {
      return refuse(`leaf ${index}: its first stored hash is not the leaf hash of its bytes`)
    }
  }
  return undefined
}
