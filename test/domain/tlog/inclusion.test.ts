// Inclusion proofs (RFC 9162 section 2.1.3): the prover's proofs verify, against the RFC's
// verifier, and the verifier rejects any flipped bit, a missing or extra hash, another index.
// (Not another size: the root, not the proof, commits to the size, and the checkpoint
// signature binds the two; a proof for (0, 77) also checks as (0, 78) against the same root.)

import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { inclusionProofFromHashes, inclusionProofIndexes, verifyInclusion } from "../../../src/domain/tlog/inclusion.js"
import { MAX_TREE_SIZE } from "../../../src/domain/tlog/storedHash.js"
import { treeHashFromHashes, treeHashIndexes } from "../../../src/domain/tlog/treeHash.js"
import type { Log } from "./support.js"
import { flipBit, hasher, naiveMth, rangeSymbol, readStored, referenceLog, symbolicHasher, symbolicStored } from "./support.js"

const LOG_SIZE = 70_000
let log: Log
beforeAll(() => {
  log = referenceLog(LOG_SIZE)
})

const prove = (index: number, size: number) =>
  inclusionProofFromHashes(hasher, index, size, readStored(log, size, inclusionProofIndexes(index, size)))

const root = (size: number) => treeHashFromHashes(hasher, size, readStored(log, size, treeHashIndexes(size)))

/** (index, size) pairs, small trees and trees past a level-1 tile alike. */
const indexInSize = fc
  .oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: LOG_SIZE }))
  .chain((size) => fc.tuple(fc.integer({ min: 0, max: size - 1 }), fc.constant(size)))

describe("inclusion proofs", () => {
  it("verify for random leaves and sizes", () => {
    fc.assert(
      fc.property(indexInSize, ([index, size]) => {
        expect(verifyInclusion(hasher, index, size, log.leafHashes[index]!, prove(index, size), root(size))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("agree with RFC 9162 PATH computed from the leaves", () => {
    const path = (m: number, leaves: ReadonlyArray<Uint8Array>): Array<Uint8Array> => {
      if (leaves.length <= 1) return []
      let k = 1
      while (2 * k < leaves.length) k *= 2
      return m < k
        ? [...path(m, leaves.slice(0, k)), naiveMth(leaves.slice(k))]
        : [...path(m - k, leaves.slice(k)), naiveMth(leaves.slice(0, k))]
    }
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }).chain((size) => fc.tuple(fc.nat(size - 1), fc.constant(size))), ([index, size]) => {
        expect(prove(index, size)).toEqual(path(index, log.leafHashes.slice(0, size)))
      }),
      { numRuns: 100 }
    )
  })

  it("fail when any bit of the proof, the leaf hash or the root flips", () => {
    fc.assert(
      fc.property(indexInSize, fc.nat(), fc.nat(255), ([index, size], which, bit) => {
        const proof = prove(index, size)
        let leafHash = log.leafHashes[index]!
        let treeRoot = root(size)
        const target = which % (proof.length + 2)
        if (target === proof.length) leafHash = flipBit(leafHash, bit)
        else if (target === proof.length + 1) treeRoot = flipBit(treeRoot, bit)
        const tampered = proof.map((hash, i) => (i === target ? flipBit(hash, bit) : hash))
        expect(verifyInclusion(hasher, index, size, leafHash, tampered, treeRoot)).toBe(false)
      }),
      { numRuns: 300 }
    )
  })

  it("fail with a hash missing or added, or for another leaf index", () => {
    fc.assert(
      fc.property(indexInSize, fc.nat(), ([index, size], pick) => {
        const proof = prove(index, size)
        const leafHash = log.leafHashes[index]!
        const treeRoot = root(size)
        expect(verifyInclusion(hasher, index, size, leafHash, [...proof, treeRoot], treeRoot)).toBe(false)
        if (proof.length > 0) {
          expect(verifyInclusion(hasher, index, size, leafHash, proof.slice(1), treeRoot)).toBe(false)
          expect(verifyInclusion(hasher, index, size, leafHash, proof.slice(0, -1), treeRoot)).toBe(false)
          const other = (index + 1 + (pick % (size - 1))) % size // any other leaf of the tree
          expect(verifyInclusion(hasher, other, size, leafHash, proof, treeRoot)).toBe(false)
        }
      }),
      { numRuns: 200 }
    )
  })

  it("have the right shape at sizes up to 2^52 (symbolic hashes)", () => {
    const huge = fc
      .integer({ min: 1, max: MAX_TREE_SIZE })
      .chain((size) => fc.tuple(fc.integer({ min: 0, max: size - 1 }), fc.constant(size)))
    fc.assert(
      fc.property(fc.oneof(huge, fc.constant([MAX_TREE_SIZE - 1, MAX_TREE_SIZE] as [number, number])), ([index, size]) => {
        const proof = inclusionProofFromHashes(symbolicHasher, index, size, inclusionProofIndexes(index, size).map(symbolicStored))
        const leaf = rangeSymbol(index, index + 1)
        expect(verifyInclusion(symbolicHasher, index, size, leaf, proof, rangeSymbol(0, size))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("are empty for a tree of one leaf, whose root is the leaf hash", () => {
    expect(prove(0, 1)).toEqual([])
    expect(verifyInclusion(hasher, 0, 1, log.leafHashes[0]!, [], log.leafHashes[0]!)).toBe(true)
  })

  it("reject invalid arguments: the prover throws, the verifier says no", () => {
    for (const [index, size] of [[0, 0], [5, 5], [6, 5], [-1, 5], [0.5, 5], [0, MAX_TREE_SIZE + 2], [0, Number.NaN]] as const) {
      expect(() => inclusionProofIndexes(index, size)).toThrow(RangeError)
      expect(verifyInclusion(hasher, index, size, log.leafHashes[0]!, [], log.leafHashes[0]!)).toBe(false)
    }
    expect(() => inclusionProofFromHashes(hasher, 1, 5, [])).toThrow(RangeError)
    // Malformed hash lengths are not an exception either.
    const proof = prove(3, 10)
    expect(verifyInclusion(hasher, 3, 10, log.leafHashes[3]!, [...proof.slice(0, -1), new Uint8Array(33)], root(10))).toBe(false)
    expect(verifyInclusion(hasher, 3, 10, new Uint8Array(0), proof, root(10))).toBe(false)
  })
})
