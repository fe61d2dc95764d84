// RFC 9162 section 2.1.1: the Merkle Tree Hash MTH(D[lo:hi]) of a run of leaves, computed
// from stored hashes (storedHash.ts) instead of from the leaves. Ported from Go's
// golang.org/x/mod/sumdb/tlog (subTreeIndex / subTreeHash).
//
// The store is asynchronous and the domain is not, so every computation here comes in two
// halves: a plan that lists the stored-hash positions it needs, and a function that computes
// the result from the hashes read at those positions, in plan order. The caller does the I/O
// in between, in a single batched read.

import type { Hash, TreeHasher } from "./hasher.js"
import { frontierFromHashes, frontierIndexes, frontierRoot } from "./frontier.js"
import { isTreeSize, storedHashIndex } from "./storedHash.js"

/** floor(log2 r) for r >= 1: the level of the largest complete subtree that fits in r leaves. */
const floorLog2 = (r: number): number => {
  let level = 0
  for (let size = 2; size <= r; size *= 2) level++
  return level
}

/**
 * RFC 9162's k for a tree of n >= 2 leaves: the largest power of two strictly below n.
 * The left subtree holds the first k leaves, the right subtree the rest.
 */
export const splitPoint = (n: number): number => 2 ** floorLog2(n - 1)

/**
 * Appends the positions needed for MTH(D[lo:hi]): the complete subtrees that tile [lo, hi),
 * largest first. lo must be a multiple of the first subtree's size, which holds wherever
 * the RFC 9162 recursion asks for a range.
 */
export const pushRangeIndexes = (lo: number, hi: number, need: Array<number>): void => {
  while (lo < hi) {
    const level = floorLog2(hi - lo)
    need.push(storedHashIndex(level, lo / 2 ** level))
    lo += 2 ** level
  }
}

/** Hands out planned hashes in plan order. The *FromHashes functions check the count up front. */
export interface HashCursor {
  readonly next: () => Hash
}

export const hashCursor = (hashes: ReadonlyArray<Hash>): HashCursor => {
  let i = 0
  return {
    next: () => {
      const hash = hashes[i++]
      if (hash === undefined) throw new RangeError("plan and hashes disagree: ran out of hashes")
      return hash
    }
  }
}

/** MTH(D[lo:hi]) from the hashes pushRangeIndexes(lo, hi) planned, read from the cursor. */
export const rangeHash = (hasher: TreeHasher, lo: number, hi: number, hashes: HashCursor): Hash => {
  const subtrees: Array<Hash> = []
  while (lo < hi) {
    subtrees.push(hashes.next())
    lo += 2 ** floorLog2(hi - lo)
  }
  // The right edge is the smallest subtree; fold leftwards, as RFC 9162 nests to the right.
  let hash = subtrees[subtrees.length - 1]!
  for (let i = subtrees.length - 2; i >= 0; i--) hash = hasher.nodeHash(subtrees[i]!, hash)
  return hash
}

/** Throws unless the hashes read match the plan's length: a store bug, not a data error. */
export const requireHashCount = (what: string, planned: number, hashes: ReadonlyArray<Hash>): void => {
  if (hashes.length !== planned) {
    throw new RangeError(`${what} needs ${planned} stored hashes, got ${hashes.length}`)
  }
}

/**
 * Positions needed for the root of the first n leaves. These are exactly the roots of the
 * complete subtrees on the right edge, i.e. the frontier, so the frontier's plan is reused.
 */
export const treeHashIndexes = (n: number): ReadonlyArray<number> => {
  if (!isTreeSize(n)) throw new RangeError(`invalid tree size ${n}`)
  return frontierIndexes(n)
}

/** RFC 9162 root of the first n leaves; n = 0 is the hash of the empty string (section 2.1.1). */
export const treeHashFromHashes = (hasher: TreeHasher, n: number, hashes: ReadonlyArray<Hash>): Hash => {
  requireHashCount(`tree hash of size ${n}`, treeHashIndexes(n).length, hashes)
  return frontierRoot(hasher, frontierFromHashes(n, hashes))
}
