// RFC 9162 section 2.1.4: consistency proofs between a tree of size m and a later tree of
// size n >= m (RFC 6962's "Merkle consistency proof").
//
// The prover is Go's golang.org/x/mod/sumdb/tlog ProveTree (treeProofIndex / treeProof), split
// into a plan of stored-hash positions and a computation over the hashes read there. The
// verifier is written from the algorithm of RFC 9162 section 2.1.4.2.
//
// Edge cases, which RFC 9162 leaves to the implementation (its verifier rejects every empty
// proof, and it defines no proof from the empty tree):
//   - m = n: the proof is empty, and it verifies exactly when oldRoot equals newRoot
//     (as Go's CheckTree, and RFC 9162's SUBPROOF(m, D[m], true) = {}).
//   - m = 0: the proof is empty, and it verifies against any newRoot provided oldRoot is the
//     empty root, SHA-256(""): every tree extends the empty one, and a client that saw no
//     checkpoint yet has nothing to check. A non-empty proof for either case fails.
//
// Arguments: the prover throws a RangeError unless 0 <= m <= n <= MAX_TREE_SIZE (the HTTP
// layer validates first). The verifier never throws; malformed input does not verify.

import { equal } from "../bytes.js"
import { HASH_SIZE } from "./hasher.js"
import type { Hash, TreeHasher } from "./hasher.js"
import { isTreeSize } from "./storedHash.js"
import type { HashCursor } from "./treeHash.js"
import { hashCursor, pushRangeIndexes, rangeHash, requireHashCount, splitPoint } from "./treeHash.js"

const requireConsistencyArgs = (m: number, n: number): void => {
  if (!isTreeSize(m) || !isTreeSize(n) || m > n) {
    throw new RangeError(`no consistency proof from size ${m} to size ${n}`)
  }
}

/** Positions for SUBPROOF(m, D[lo:hi], lo === 0), in the order treeProof reads them. */
const pushTreeProofIndexes = (lo: number, hi: number, m: number, need: Array<number>): void => {
  if (m === hi) {
    // The old tree's root (lo = 0) is known to the verifier; any other subtree is sent.
    if (lo !== 0) pushRangeIndexes(lo, hi, need)
    return
  }
  const k = splitPoint(hi - lo)
  if (m <= lo + k) {
    pushTreeProofIndexes(lo, lo + k, m, need)
    pushRangeIndexes(lo + k, hi, need)
  } else {
    pushRangeIndexes(lo, lo + k, need)
    pushTreeProofIndexes(lo + k, hi, m, need)
  }
}

/** RFC 9162 SUBPROOF(m, D[lo:hi], lo === 0), from the hashes pushTreeProofIndexes planned. */
const treeProof = (hasher: TreeHasher, lo: number, hi: number, m: number, hashes: HashCursor): Array<Hash> => {
  if (m === hi) return lo === 0 ? [] : [rangeHash(hasher, lo, hi, hashes)]
  const k = splitPoint(hi - lo)
  if (m <= lo + k) {
    const proof = treeProof(hasher, lo, lo + k, m, hashes)
    proof.push(rangeHash(hasher, lo + k, hi, hashes))
    return proof
  }
  const left = rangeHash(hasher, lo, lo + k, hashes)
  const proof = treeProof(hasher, lo + k, hi, m, hashes)
  proof.push(left)
  return proof
}

/** Stored-hash positions the consistency proof from size m to size n needs. */
export const consistencyProofIndexes = (m: number, n: number): ReadonlyArray<number> => {
  requireConsistencyArgs(m, n)
  const need: Array<number> = []
  if (m > 0 && m < n) pushTreeProofIndexes(0, n, m, need)
  return need
}

/** The consistency proof from size m to size n, from the hashes read at consistencyProofIndexes(m, n). */
export const consistencyProofFromHashes = (
  hasher: TreeHasher,
  m: number,
  n: number,
  hashes: ReadonlyArray<Hash>
): ReadonlyArray<Hash> => {
  requireHashCount(`consistency proof from ${m} to ${n}`, consistencyProofIndexes(m, n).length, hashes)
  if (m === 0 || m === n) return []
  return treeProof(hasher, 0, n, m, hashCursor(hashes))
}

const isPowerOfTwo = (n: number): boolean => {
  while (n > 1 && n % 2 === 0) n /= 2
  return n === 1
}

/**
 * RFC 9162 section 2.1.4.2: whether proof shows that the tree of size n with newRoot extends
 * the tree of size m with oldRoot. See the header for m = 0 and m = n.
 */
export const verifyConsistency = (
  hasher: TreeHasher,
  m: number,
  n: number,
  oldRoot: Hash,
  newRoot: Hash,
  proof: ReadonlyArray<Hash>
): boolean => {
  if (!isTreeSize(m) || !isTreeSize(n) || m > n) return false
  if (oldRoot.length !== HASH_SIZE || newRoot.length !== HASH_SIZE) return false
  if (proof.some((hash) => hash.length !== HASH_SIZE)) return false
  if (m === 0) return proof.length === 0 && equal(oldRoot, hasher.emptyRoot)
  if (m === n) return proof.length === 0 && equal(oldRoot, newRoot)

  // Step 1.
  if (proof.length === 0) return false
  // Step 2: when the old tree is a complete subtree its root is not sent; start from it.
  const path = isPowerOfTwo(m) ? [oldRoot, ...proof] : proof
  // Step 3. fn and sn are the positions of the old and new trees' last leaves.
  let fn = m - 1
  let sn = n - 1
  // Step 4: skip the levels where the old tree's last node is a right child whose whole
  // left part is shared; path[0] is the root of the subtree those levels end at.
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2
    sn = Math.floor(sn / 2)
  }
  // Step 5.
  let fr = path[0]!
  let sr = path[0]!
  // Step 6.
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!
    if (sn === 0) return false // more hashes than the tree is tall
    if (fn % 2 === 1 || fn === sn) {
      fr = hasher.nodeHash(c, fr)
      sr = hasher.nodeHash(c, sr)
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2
        sn = Math.floor(sn / 2)
      }
    } else {
      // Right of the old tree's edge: only the new tree grows.
      sr = hasher.nodeHash(sr, c)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  // Step 7.
  return sn === 0 && equal(fr, oldRoot) && equal(sr, newRoot)
}
