// Consistency proofs (RFC 9162 section 2.1.4): the prover's proofs verify against the RFC's
// verifier, which rejects flipped bits and wrong lengths; and the edge cases m = 0, m = n.

import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { consistencyProofFromHashes, consistencyProofIndexes, verifyConsistency } from "../../../src/domain/tlog/consistency.js"
import { MAX_TREE_SIZE } from "../../../src/domain/tlog/storedHash.js"
import { treeHashFromHashes, treeHashIndexes } from "../../../src/domain/tlog/treeHash.js"
import type { Log } from "./support.js"
import { flipBit, hasher, naiveMth, rangeSymbol, readStored, referenceLog, symbolicHasher, symbolicStored } from "./support.js"

const LOG_SIZE = 70_000
let log: Log
beforeAll(() => {
  log = referenceLog(LOG_SIZE)
})

const prove = (m: number, n: number) =>
  consistencyProofFromHashes(hasher, m, n, readStored(log, n, consistencyProofIndexes(m, n)))

const root = (size: number) => treeHashFromHashes(hasher, size, readStored(log, size, treeHashIndexes(size)))

/** 1 <= m < n, small trees and trees past a level-1 tile alike. */
const properPrefix = fc
  .oneof(fc.integer({ min: 2, max: 600 }), fc.integer({ min: 2, max: LOG_SIZE }))
  .chain((n) => fc.tuple(fc.integer({ min: 1, max: n - 1 }), fc.constant(n)))

describe("consistency proofs", () => {
  it("verify for random 0 <= m <= n", () => {
    const anyPrefix = fc.oneof(
      properPrefix,
      fc.integer({ min: 0, max: LOG_SIZE }).map((n) => [n, n] as [number, number]),
      fc.integer({ min: 0, max: LOG_SIZE }).map((n) => [0, n] as [number, number])
    )
    fc.assert(
      fc.property(anyPrefix, ([m, n]) => {
        expect(verifyConsistency(hasher, m, n, root(m), root(n), prove(m, n))).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("agree with RFC 9162 SUBPROOF computed from the leaves", () => {
    const subproof = (m: number, leaves: ReadonlyArray<Uint8Array>, complete: boolean): Array<Uint8Array> => {
      if (m === leaves.length) return complete ? [] : [naiveMth(leaves)]
      let k = 1
      while (2 * k < leaves.length) k *= 2
      return m <= k
        ? [...subproof(m, leaves.slice(0, k), complete), naiveMth(leaves.slice(k))]
        : [...subproof(m - k, leaves.slice(k), false), naiveMth(leaves.slice(0, k))]
    }
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 300 }).chain((n) => fc.tuple(fc.integer({ min: 1, max: n - 1 }), fc.constant(n))), ([m, n]) => {
        expect(prove(m, n)).toEqual(subproof(m, log.leafHashes.slice(0, n), true))
      }),
      { numRuns: 100 }
    )
  })

  it("fail when any bit of the proof, the old root or the new root flips", () => {
    fc.assert(
      fc.property(properPrefix, fc.nat(), fc.nat(255), ([m, n], which, bit) => {
        const proof = prove(m, n)
        let oldRoot = root(m)
        let newRoot = root(n)
        const target = which % (proof.length + 2)
        if (target === proof.length) oldRoot = flipBit(oldRoot, bit)
        else if (target === proof.length + 1) newRoot = flipBit(newRoot, bit)
        const tampered = proof.map((hash, i) => (i === target ? flipBit(hash, bit) : hash))
        expect(verifyConsistency(hasher, m, n, oldRoot, newRoot, tampered)).toBe(false)
      }),
      { numRuns: 300 }
    )
  })

  it("fail with a hash missing or added, or with the sizes swapped", () => {
    fc.assert(
      fc.property(properPrefix, ([m, n]) => {
        const proof = prove(m, n)
        const [oldRoot, newRoot] = [root(m), root(n)]
        expect(verifyConsistency(hasher, m, n, oldRoot, newRoot, [...proof, newRoot])).toBe(false)
        expect(verifyConsistency(hasher, m, n, oldRoot, newRoot, proof.slice(1))).toBe(false)
        expect(verifyConsistency(hasher, m, n, oldRoot, newRoot, proof.slice(0, -1))).toBe(false)
        expect(verifyConsistency(hasher, n, m, newRoot, oldRoot, proof)).toBe(false)
      }),
      { numRuns: 200 }
    )
  })

  it("have the right shape at sizes up to 2^52 (symbolic hashes)", () => {
    const huge = fc
      .integer({ min: 2, max: MAX_TREE_SIZE })
      .chain((n) => fc.tuple(fc.integer({ min: 1, max: n - 1 }), fc.constant(n)))
    fc.assert(
      fc.property(fc.oneof(huge, fc.constant([MAX_TREE_SIZE - 1, MAX_TREE_SIZE] as [number, number])), ([m, n]) => {
        const proof = consistencyProofFromHashes(symbolicHasher, m, n, consistencyProofIndexes(m, n).map(symbolicStored))
        expect(verifyConsistency(symbolicHasher, m, n, rangeSymbol(0, m), rangeSymbol(0, n), proof)).toBe(true)
      }),
      { numRuns: 300 }
    )
  })

  it("from m = n are empty and verify only between equal roots", () => {
    expect(consistencyProofIndexes(7, 7)).toEqual([])
    expect(prove(7, 7)).toEqual([])
    expect(verifyConsistency(hasher, 7, 7, root(7), root(7), [])).toBe(true)
    expect(verifyConsistency(hasher, 7, 7, root(7), root(8), [])).toBe(false)
    expect(verifyConsistency(hasher, 7, 7, root(7), root(7), [root(7)])).toBe(false)
  })

  it("from m = 0 are empty and verify against any new root, from the empty root only", () => {
    expect(consistencyProofIndexes(0, 9)).toEqual([])
    expect(prove(0, 9)).toEqual([])
    expect(prove(0, 0)).toEqual([])
    expect(verifyConsistency(hasher, 0, 9, hasher.emptyRoot, root(9), [])).toBe(true)
    expect(verifyConsistency(hasher, 0, 9, hasher.emptyRoot, root(3), [])).toBe(true)
    expect(verifyConsistency(hasher, 0, 0, hasher.emptyRoot, hasher.emptyRoot, [])).toBe(true)
    expect(verifyConsistency(hasher, 0, 9, root(1), root(9), [])).toBe(false)
    expect(verifyConsistency(hasher, 0, 9, hasher.emptyRoot, root(9), [root(9)])).toBe(false)
  })

  it("reject invalid arguments: the prover throws, the verifier says no", () => {
    for (const [m, n] of [[5, 4], [-1, 4], [1.5, 4], [1, MAX_TREE_SIZE + 1], [Number.NaN, 3]] as const) {
      expect(() => consistencyProofIndexes(m, n)).toThrow(RangeError)
      expect(verifyConsistency(hasher, m, n, root(1), root(4), [root(2)])).toBe(false)
    }
    expect(() => consistencyProofFromHashes(hasher, 3, 10, [])).toThrow(RangeError)
    const proof = prove(3, 10)
    expect(verifyConsistency(hasher, 3, 10, root(3), root(10), [...proof.slice(0, -1), new Uint8Array(31)])).toBe(false)
    expect(verifyConsistency(hasher, 3, 10, new Uint8Array(0), root(10), proof)).toBe(false)
  })
})
