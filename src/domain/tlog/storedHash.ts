// The stored-hash index of golang.org/x/mod/sumdb/tlog: every hash of every complete
// subtree of the log, numbered in the order it becomes known as leaves are appended.
// Appending leaf n stores its leaf hash and then the hash of each complete subtree that
// leaf n finishes. With this numbering any hash of a complete subtree is at a fixed,
// computable position, so a proof or a root at any size reads O(log n) stored hashes.
//
// Positions are JavaScript numbers, exact up to 2^53: the log holds at most 2^52 leaves,
// and the arithmetic below avoids 32-bit bit operators for that reason.

/** Number of trailing 1 bits of n (n >= 0). */
const trailingOnes = (n: number): number => {
  let count = 0
  while (n % 2 === 1) {
    count++
    n = (n - 1) / 2
  }
  return count
}

/** Position of the hash of the n-th complete subtree at the given level (2^level leaves each). */
export const storedHashIndex = (level: number, n: number): number => {
  // Level L's n-th hash is written right after level L+1's (2n+1)-th hash, so walk down
  // to the level-0 ordering, where leaf n's hash sits at n + n/2 + n/4 + ...
  for (let l = level; l > 0; l--) n = 2 * n + 1
  let index = 0
  for (; n > 0; n = Math.floor(n / 2)) index += n
  return index + level
}

/** Inverse of storedHashIndex: the (level, n) of the hash at a stored-hash position. */
export const splitStoredHashIndex = (index: number): { readonly level: number; readonly n: number } => {
  // storedHashIndex(0, n) < 2n, so the leaf that wrote this hash is in [index/2, index/2 + log2(index)].
  let n = Math.floor(index / 2)
  let indexN = storedHashIndex(0, n)
  for (;;) {
    // Leaf n wrote 1 + trailingOnes(n) hashes (Go: 1 + TrailingZeros64(n+1)), so leaf n+1
    // starts right after them.
    const next = indexN + 1 + trailingOnes(n)
    if (next > index) break
    n++
    indexN = next
  }
  const level = index - indexN
  return { level, n: Math.floor(n / 2 ** level) }
}

/** How many hashes a log of n leaves has stored. */
export const storedHashCount = (n: number): number => {
  if (n === 0) return 0
  // Every hash up to the last leaf's, then the subtrees that leaf completed.
  return storedHashIndex(0, n - 1) + 1 + trailingOnes(n - 1)
}

/**
 * Positions of the stored hashes needed to append leaf n: the roots of the complete
 * subtrees that leaf n closes, in increasing position order.
 */
export const appendNeeds = (n: number): ReadonlyArray<number> => {
  const m = trailingOnes(n)
  const indexes = new Array<number>(m)
  for (let i = 0; i < m; i++) {
    // n >> i is odd here, so (n >> i) - 1 is the left sibling at level i.
    indexes[m - 1 - i] = storedHashIndex(i, Math.floor(n / 2 ** i) - 1)
  }
  return indexes
}

/**
 * The largest log this numbering serves. A log of n leaves stores fewer than 2n hashes, so
 * with n <= 2^52 every position, and every intermediate sum above, stays exact below 2^53.
 */
export const MAX_TREE_SIZE = 2 ** 52

/** Whether n is a usable log size (or leaf count): an integer in [0, MAX_TREE_SIZE]. */
export const isTreeSize = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= MAX_TREE_SIZE
