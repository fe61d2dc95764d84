// An in-memory table: digest -> (offset, length) of a put record (bodyLayout.ts). The body
// index (bodyIndex.ts) keeps the records its SQLite sidecar has not applied yet in two of
// them (the tail's puts, and its removals by target); it was the store's whole index, one
// entry per stored body, until that moved to disk (issue 12).
//
// It was built for one entry per stored body, so it is an open-addressing table in typed arrays (20 bytes a
// slot: 8 bytes of key, the offset, the length; 29 to 57 bytes a body between the growth
// steps, measured 42 at 1M bodies: 40 MiB) rather than a Map keyed by the digest as a
// string (measured 117 bytes a body with latin1 keys, 149 with hex keys). The key is the first 8 bytes of the digest, so two bodies can share a key: every
// slot with the key is a candidate, and the caller confirms one by the full digest stored
// in front of the body in its record. Bodies are chosen by clients, who could grind digests
// whose low bits all land in one slot and make every lookup a long probe; so the home slot
// comes from the key mixed with a per-table random seed they cannot know. Grinding a full
// 8-byte key collision (2^32 work per pair) only buys the asker one extra read.
//
// Removal uses backward-shift deletion (no tombstones), so a table that sees many puts and
// removals does not fill with dead slots.

import { randomBytes } from "node:crypto"

const MIN_CAPACITY = 1024
const MAX_LOAD = 0.7

const keyHigh = (digest: Uint8Array): number =>
  ((digest[0]! << 24) >>> 0) + (digest[1]! << 16) + (digest[2]! << 8) + digest[3]!
const keyLow = (digest: Uint8Array): number =>
  ((digest[4]! << 24) >>> 0) + (digest[5]! << 16) + (digest[6]! << 8) + digest[7]!

/** The murmur3 finalizer: a bijection on 32 bits whose every output bit depends on every input bit. */
const fmix32 = (value: number): number => {
  let h = value
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2_ae35)
  return (h ^ (h >>> 16)) >>> 0
}

export interface BodyLocation {
  readonly offset: number
  readonly length: number
}

export interface BodyTable {
  /** Records that the body with this digest has its put record at `offset`. */
  readonly add: (digest: Uint8Array, offset: number, length: number) => void
  /** Locations of the bodies whose digest starts like this one's. */
  readonly candidates: (digest: Uint8Array) => ReadonlyArray<BodyLocation>
  /** Forgets the body with this digest's key at `offset`; false when there was none. */
  readonly remove: (digest: Uint8Array, offset: number) => boolean
  readonly count: () => number
  /** Bytes held by the typed arrays. */
  readonly memory: () => number
}

const capacityFor = (entries: number): number => {
  let capacity = MIN_CAPACITY
  while (entries > capacity * MAX_LOAD) capacity *= 2
  return capacity
}

/** An empty table sized for `expected` bodies (it grows past that as needed). */
export const makeBodyTable = (expected = 0): BodyTable => {
  const seed = randomBytes(8)
  const seedHigh = seed.readUInt32BE(0)
  const seedLow = seed.readUInt32BE(4)
  const home = (high: number, low: number) => fmix32((fmix32(low ^ seedLow) + Math.imul(high ^ seedHigh, 0x9e37_79b1)) >>> 0)

  let capacity = capacityFor(expected)
  let high = new Uint32Array(capacity)
  let low = new Uint32Array(capacity)
  // Offset + 1, so that 0 marks an empty slot; a float holds every offset below 2^53.
  let offsets = new Float64Array(capacity)
  let lengths = new Uint32Array(capacity)
  let count = 0

  const insert = (h: number, l: number, offsetPlusOne: number, length: number) => {
    const mask = capacity - 1
    let slot = home(h, l) & mask
    while (offsets[slot] !== 0) slot = (slot + 1) & mask
    high[slot] = h
    low[slot] = l
    offsets[slot] = offsetPlusOne
    lengths[slot] = length
  }

  const grow = () => {
    const [oldHigh, oldLow, oldOffsets, oldLengths] = [high, low, offsets, lengths]
    capacity *= 2
    high = new Uint32Array(capacity)
    low = new Uint32Array(capacity)
    offsets = new Float64Array(capacity)
    lengths = new Uint32Array(capacity)
    for (let slot = 0; slot < oldOffsets.length; slot++) {
      if (oldOffsets[slot] !== 0) insert(oldHigh[slot]!, oldLow[slot]!, oldOffsets[slot]!, oldLengths[slot]!)
    }
  }

  /** Empties `slot` and moves later entries of its probe run back, so no lookup loses them. */
  const deleteSlot = (slot: number) => {
    const mask = capacity - 1
    let hole = slot
    for (let next = (hole + 1) & mask; offsets[next] !== 0; next = (next + 1) & mask) {
      const wanted = home(high[next]!, low[next]!) & mask
      // The entry at `next` may move into the hole unless its home lies cyclically in (hole, next].
      const staysPut = hole <= next ? wanted > hole && wanted <= next : wanted > hole || wanted <= next
      if (staysPut) continue
      high[hole] = high[next]!
      low[hole] = low[next]!
      offsets[hole] = offsets[next]!
      lengths[hole] = lengths[next]!
      hole = next
    }
    offsets[hole] = 0
  }

  return {
    add: (digest, offset, length) => {
      if (count + 1 > capacity * MAX_LOAD) grow()
      insert(keyHigh(digest), keyLow(digest), offset + 1, length)
      count++
    },
    candidates: (digest) => {
      const h = keyHigh(digest)
      const l = keyLow(digest)
      const mask = capacity - 1
      const found: Array<BodyLocation> = []
      for (let slot = home(h, l) & mask; offsets[slot] !== 0; slot = (slot + 1) & mask) {
        if (high[slot] === h && low[slot] === l) found.push({ offset: offsets[slot]! - 1, length: lengths[slot]! })
      }
      return found
    },
    remove: (digest, offset) => {
      const h = keyHigh(digest)
      const l = keyLow(digest)
      const mask = capacity - 1
      for (let slot = home(h, l) & mask; offsets[slot] !== 0; slot = (slot + 1) & mask) {
        if (high[slot] === h && low[slot] === l && offsets[slot] === offset + 1) {
          deleteSlot(slot)
          count--
          return true
        }
      }
      return false
    },
    count: () => count,
    memory: () => capacity * (4 + 4 + 8 + 4)
  }
}
