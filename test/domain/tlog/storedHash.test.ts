// The stored-hash numbering, the frontier and the tree hash against a naive RFC 9162 MTH
// computed from the leaves, for random logs; and the numbering's exactness up to 2^52.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { frontierIndexes, frontierRoot } from "../../../src/domain/tlog/frontier.js"
import {
  appendNeeds,
  MAX_TREE_SIZE,
  splitStoredHashIndex,
  storedHashCount,
  storedHashIndex
} from "../../../src/domain/tlog/storedHash.js"
import { treeHashFromHashes, treeHashIndexes } from "../../../src/domain/tlog/treeHash.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { buildLog, hasher, naiveMth, rangeSymbol, readStored, symbolicHasher, symbolicStored, toHex } from "./support.js"

// Logs of up to 600 distinct entries: past two level-8 subtrees, so tile-sized subtrees count.
const entries = fc
  .tuple(fc.integer({ min: 0, max: 600 }), fc.string({ maxLength: 4 }))
  .map(([length, salt]) => Array.from({ length }, (_, i) => utf8(`${salt}#${i}`)))

describe("stored hashes of a random log", () => {
  it("are the MTH of the subtree their position names, and the count and root agree", () => {
    fc.assert(
      fc.property(entries, (data) => {
        const log = buildLog(data)
        expect(log.stored.length).toBe(storedHashCount(data.length))
        for (let index = 0; index < log.stored.length; index++) {
          const { level, n } = splitStoredHashIndex(index)
          expect(storedHashIndex(level, n)).toBe(index)
          const leaves = log.leafHashes.slice(n * 2 ** level, (n + 1) * 2 ** level)
          expect(leaves.length).toBe(2 ** level)
          expect(toHex(log.stored[index]!)).toBe(toHex(naiveMth(leaves)))
        }
        expect(toHex(frontierRoot(hasher, log.frontier))).toBe(toHex(naiveMth(log.leafHashes)))
      }),
      { numRuns: 60 }
    )
  })

  it("give the root of every prefix", () => {
    fc.assert(
      fc.property(entries, fc.nat(), (data, pick) => {
        const log = buildLog(data)
        const size = pick % (data.length + 1)
        const root = treeHashFromHashes(hasher, size, readStored(log, size, treeHashIndexes(size)))
        expect(toHex(root)).toBe(toHex(naiveMth(log.leafHashes.slice(0, size))))
      }),
      { numRuns: 60 }
    )
  })
})

describe("stored-hash positions", () => {
  const levelAndN = fc.integer({ min: 0, max: 52 }).chain((level) =>
    fc.tuple(fc.constant(level), fc.integer({ min: 0, max: 2 ** (52 - level) - 1 }))
  )

  it("round-trip exactly for every subtree of a log of 2^52 leaves", () => {
    fc.assert(
      fc.property(levelAndN, ([level, n]) => {
        const index = storedHashIndex(level, n)
        expect(Number.isSafeInteger(index)).toBe(true)
        expect(splitStoredHashIndex(index)).toEqual({ level, n })
      })
    )
  })

  it("split every position into a subtree, positions counted densely", () => {
    for (let index = 0; index < 5000; index++) {
      const { level, n } = splitStoredHashIndex(index)
      expect(storedHashIndex(level, n)).toBe(index)
    }
    expect(splitStoredHashIndex(2)).toEqual({ level: 1, n: 0 })
  })

  it("count and append at sizes near 2^52 with the right subtree shapes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_TREE_SIZE }), (size) => {
        // The hashes leaf size-1 appended end exactly at storedHashCount(size).
        const last = storedHashIndex(0, size - 1)
        expect(storedHashCount(size) - last).toBe(1 + appendNeeds(size - 1).length)
        // The tree hash plan names the complete subtrees that tile [0, size).
        const indexes = treeHashIndexes(size)
        expect(indexes).toEqual(frontierIndexes(size))
        const root = treeHashFromHashes(symbolicHasher, size, indexes.map(symbolicStored))
        expect(toHex(root)).toBe(toHex(rangeSymbol(0, size)))
      })
    )
  })

  it("reject sizes the numbering cannot hold exactly", () => {
    expect(() => treeHashIndexes(MAX_TREE_SIZE + 1)).toThrow(RangeError)
    expect(() => treeHashIndexes(-1)).toThrow(RangeError)
    expect(() => treeHashIndexes(1.5)).toThrow(RangeError)
    expect(treeHashIndexes(0)).toEqual([])
    expect(toHex(treeHashFromHashes(hasher, 0, []))).toBe(toHex(hasher.emptyRoot))
    expect(() => treeHashFromHashes(hasher, 3, [])).toThrow(RangeError)
  })
})
