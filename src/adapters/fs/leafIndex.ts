// The in-memory index behind findLeaf: leaf hash -> leaf index, for every committed leaf.
//
// It has to hold one entry per leaf of a log that may reach hundreds of millions of leaves,
// so it is an open-addressing table in typed arrays (16 bytes a slot, about 23 bytes a leaf
// at the 0.7 load factor) rather than a Map of strings. The key is the first 8 bytes of the
// hash, so two leaves can share a key: every slot with the key is a candidate, and the
// caller confirms a candidate by reading the full stored hash. SHA-256 spreads keys evenly,
// and a lookup for a chosen prefix only costs the asker one extra read per matching leaf.

import type { Hash } from "../../domain/tlog/hasher.js"

const MIN_CAPACITY = 1024
const MAX_LOAD = 0.7

const keyHigh = (hash: Hash): number => ((hash[0]! << 24) >>> 0) + (hash[1]! << 16) + (hash[2]! << 8) + hash[3]!
const keyLow = (hash: Hash): number => ((hash[4]! << 24) >>> 0) + (hash[5]! << 16) + (hash[6]! << 8) + hash[7]!

export interface LeafIndex {
  /** Records that the leaf at `index` has this leaf hash. */
  readonly add: (leafHash: Hash, index: number) => void
  /** Indexes of the leaves whose hash starts like this one's, ascending. */
  readonly candidates: (leafHash: Hash) => ReadonlyArray<number>
  readonly count: () => number
}

const capacityFor = (entries: number): number => {
  let capacity = MIN_CAPACITY
  while (entries > capacity * MAX_LOAD) capacity *= 2
  return capacity
}

/** An empty index sized for `expected` entries (it grows past that as needed). */
export const makeLeafIndex = (expected = 0): LeafIndex => {
  let capacity = capacityFor(expected)
  let high = new Uint32Array(capacity)
  let low = new Uint32Array(capacity)
  // Index + 1, so that 0 marks an empty slot; a float holds every index below 2^53.
  let values = new Float64Array(capacity)
  let count = 0

  const insert = (h: number, l: number, value: number) => {
    const mask = capacity - 1
    // The low key word is as random as any other bits of a SHA-256 output.
    let slot = l & mask
    while (values[slot] !== 0) slot = (slot + 1) & mask
    high[slot] = h
    low[slot] = l
    values[slot] = value
  }

  const grow = () => {
    const [oldHigh, oldLow, oldValues] = [high, low, values]
    capacity *= 2
    high = new Uint32Array(capacity)
    low = new Uint32Array(capacity)
    values = new Float64Array(capacity)
    for (let slot = 0; slot < oldValues.length; slot++) {
      if (oldValues[slot] !== 0) insert(oldHigh[slot]!, oldLow[slot]!, oldValues[slot]!)
    }
  }

  return {
    add: (leafHash, index) => {
      if (count + 1 > capacity * MAX_LOAD) grow()
      insert(keyHigh(leafHash), keyLow(leafHash), index + 1)
      count++
    },
    candidates: (leafHash) => {
      const h = keyHigh(leafHash)
      const l = keyLow(leafHash)
      const mask = capacity - 1
      const found: Array<number> = []
      for (let slot = l & mask; values[slot] !== 0; slot = (slot + 1) & mask) {
        if (high[slot] === h && low[slot] === l) found.push(values[slot]! - 1)
      }
      return found.sort((a, b) => a - b)
    },
    count: () => count
  }
}
