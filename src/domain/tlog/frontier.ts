// The right edge of the tree: the roots of the complete subtrees that make up a log of
// size n, one per set bit of n, largest first. It is all a writer needs to append leaves
// and to know the root, so the sequencer keeps it in memory and never reads the store to
// append. Appending produces exactly the stored hashes of storedHash.ts, in order.

import type { Hash, TreeHasher } from "./hasher.js"
import { storedHashIndex } from "./storedHash.js"

export interface Frontier {
  readonly size: number
  /** Complete subtrees, leftmost (largest) first. */
  readonly subtrees: ReadonlyArray<{ readonly level: number; readonly hash: Hash }>
}

export const emptyFrontier: Frontier = { size: 0, subtrees: [] }

/** Levels of the complete subtrees of a log of size n, largest first (the set bits of n). */
const subtreeLevels = (n: number): Array<number> => {
  const levels: Array<number> = []
  for (let level = 0; n > 0; level++, n = Math.floor(n / 2)) if (n % 2 === 1) levels.unshift(level)
  return levels
}

/** Stored-hash positions of the frontier of a log of size n, in frontier order. */
export const frontierIndexes = (n: number): ReadonlyArray<number> => {
  const indexes: Array<number> = []
  let lo = 0
  for (const level of subtreeLevels(n)) {
    indexes.push(storedHashIndex(level, lo / 2 ** level))
    lo += 2 ** level
  }
  return indexes
}

/** Rebuilds the frontier of a log of size n from the stored hashes at frontierIndexes(n). */
export const frontierFromHashes = (n: number, hashes: ReadonlyArray<Hash>): Frontier => {
  const levels = subtreeLevels(n)
  if (hashes.length !== levels.length) {
    throw new RangeError(`frontier of size ${n} needs ${levels.length} hashes, got ${hashes.length}`)
  }
  return { size: n, subtrees: levels.map((level, i) => ({ level, hash: hashes[i]! })) }
}

/**
 * Appends one leaf. Returns the new frontier and the hashes to store for it: the leaf hash
 * first, then the root of every subtree the leaf completes (storedHashIndex order).
 */
export const appendLeaf = (
  hasher: TreeHasher,
  frontier: Frontier,
  leafHash: Hash
): { readonly frontier: Frontier; readonly stored: ReadonlyArray<Hash> } => {
  const subtrees = frontier.subtrees.slice()
  const stored: Array<Hash> = [leafHash]
  let hash = leafHash
  let level = 0
  while (subtrees.length > 0 && subtrees[subtrees.length - 1]!.level === level) {
    hash = hasher.nodeHash(subtrees.pop()!.hash, hash)
    level++
    stored.push(hash)
  }
  subtrees.push({ level, hash })
  return { frontier: { size: frontier.size + 1, subtrees }, stored }
}

/** RFC 9162 root of the log the frontier describes. */
export const frontierRoot = (hasher: TreeHasher, frontier: Frontier): Hash => {
  const { subtrees } = frontier
  if (subtrees.length === 0) return hasher.emptyRoot
  let root = subtrees[subtrees.length - 1]!.hash
  for (let i = subtrees.length - 2; i >= 0; i--) root = hasher.nodeHash(subtrees[i]!.hash, root)
  return root
}
