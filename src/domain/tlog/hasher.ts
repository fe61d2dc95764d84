// RFC 6962 / RFC 9162 section 2.1.1: the Merkle tree hash of a log.
//   leaf hash     = SHA-256(0x00 || entry)
//   interior node = SHA-256(0x01 || left || right)
//   empty tree    = SHA-256("")

import type { Sha256 } from "../crypto.js"

/** A Merkle hash: always 32 bytes. */
export type Hash = Uint8Array

export const HASH_SIZE = 32

export interface TreeHasher {
  readonly leafHash: (entry: Uint8Array) => Hash
  readonly nodeHash: (left: Hash, right: Hash) => Hash
  readonly emptyRoot: Hash
}

export const makeTreeHasher = (sha256: Sha256): TreeHasher => {
  // Scratch buffers for leaves and interior nodes: hashing is the hot path when a tree is
  // built, an allocation per hash doubled its cost, and SHA-256 reads its input before it
  // returns, so reusing the buffers is safe.
  const node = new Uint8Array(1 + 2 * HASH_SIZE)
  node[0] = 0x01
  let leaf = new Uint8Array(1 + 1024)
  return {
    leafHash: (entry) => {
      if (leaf.length < 1 + entry.length) leaf = new Uint8Array(1 + entry.length)
      leaf.set(entry, 1)
      return sha256(leaf.subarray(0, 1 + entry.length))
    },
    nodeHash: (left, right) => {
      node.set(left, 1)
      node.set(right, 1 + HASH_SIZE)
      return sha256(node)
    },
    emptyRoot: sha256(new Uint8Array(0))
  }
}
