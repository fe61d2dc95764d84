// RFC 9162 section 2.1.3: inclusion proofs (RFC 6962's "Merkle audit path").
//
// The prover is Go's golang.org/x/mod/sumdb/tlog ProveRecord (leafProofIndex / leafProof),
// split into a plan of stored-hash positions and a computation over the hashes read there.
// The verifier is written from the algorithm of RFC 9162 section 2.1.3.2 instead, so that it
// checks the prover rather than mirroring it.
//
// Arguments: the prover throws a RangeError unless 0 <= index < size <= MAX_TREE_SIZE (the
// HTTP layer validates first, so this is a caller bug). The verifier never throws: anything
// malformed, from arguments to hash lengths, is simply a proof that does not verify.

import { equal } from "../bytes.js"
import { HASH_SIZE } from "./hasher.js"
import type { Hash, TreeHasher } from "./hasher.js"
import { isTreeSize } from "./storedHash.js"
import type { HashCursor } from "./treeHash.js"
import { hashCursor, pushRangeIndexes, rangeHash, requireHashCount, splitPoint } from "./treeHash.js"

const requireInclusionArgs = (index: number, size: number): void => {
  if (!isTreeSize(size) || !Number.isInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`no inclusion proof for index ${index} in a tree of size ${size}`)
  }
}

/** Positions for the proof that leaf index is in D[lo:hi], in the order leafProof reads them. */
const pushLeafProofIndexes = (lo: number, hi: number, index: number, need: Array<number>): void => {
  if (lo + 1 === hi) return // the leaf itself: the verifier already has its hash
  const k = splitPoint(hi - lo)
  if (index < lo + k) {
    pushLeafProofIndexes(lo, lo + k, index, need)
    pushRangeIndexes(lo + k, hi, need)
  } else {
    pushRangeIndexes(lo, lo + k, need)
    pushLeafProofIndexes(lo + k, hi, index, need)
  }
}

/** RFC 9162 PATH(index, D[lo:hi]): sibling hashes from the leaf up to the root of [lo, hi). */
const leafProof = (
  hasher: TreeHasher,
  lo: number,
  hi: number,
  index: number,
  hashes: HashCursor
): Array<Hash> => {
  if (lo + 1 === hi) return []
  const k = splitPoint(hi - lo)
  if (index < lo + k) {
    const path = leafProof(hasher, lo, lo + k, index, hashes)
    path.push(rangeHash(hasher, lo + k, hi, hashes))
    return path
  }
  const sibling = rangeHash(hasher, lo, lo + k, hashes)
  const path = leafProof(hasher, lo + k, hi, index, hashes)
  path.push(sibling)
  return path
}

/** Stored-hash positions the inclusion proof of leaf index in a tree of size needs. */
export const inclusionProofIndexes = (index: number, size: number): ReadonlyArray<number> => {
  requireInclusionArgs(index, size)
  const need: Array<number> = []
  pushLeafProofIndexes(0, size, index, need)
  return need
}

/** The inclusion proof, from the hashes read at inclusionProofIndexes(index, size). */
export const inclusionProofFromHashes = (
  hasher: TreeHasher,
  index: number,
  size: number,
  hashes: ReadonlyArray<Hash>
): ReadonlyArray<Hash> => {
  requireHashCount(`inclusion proof of ${index} in ${size}`, inclusionProofIndexes(index, size).length, hashes)
  return leafProof(hasher, 0, size, index, hashCursor(hashes))
}

/** RFC 9162 section 2.1.3.2: whether proof shows leafHash at index in the tree of size with root. */
export const verifyInclusion = (
  hasher: TreeHasher,
  index: number,
  size: number,
  leafHash: Hash,
  proof: ReadonlyArray<Hash>,
  root: Hash
): boolean => {
  // Step 1, plus the checks that keep the arithmetic exact and nodeHash's inputs well formed.
  if (!isTreeSize(size) || !Number.isInteger(index) || index < 0 || index >= size) return false
  if (leafHash.length !== HASH_SIZE || root.length !== HASH_SIZE) return false
  if (proof.some((hash) => hash.length !== HASH_SIZE)) return false

  // Steps 2-3. fn walks the leaf's position up the tree, sn the last leaf's position.
  let fn = index
  let sn = size - 1
  let r = leafHash
  // Step 4.
  for (const p of proof) {
    if (sn === 0) return false // more hashes than the tree is tall
    if (fn % 2 === 1 || fn === sn) {
      r = hasher.nodeHash(p, r)
      // If fn was a left child it was the last node of its level, with no right sibling:
      // p came from higher up, so skip the levels the right edge rose through unpaired.
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2
        sn = Math.floor(sn / 2)
      }
    } else {
      r = hasher.nodeHash(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  // Step 5.
  return sn === 0 && equal(r, root)
}
