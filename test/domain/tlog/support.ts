// Shared helpers for the tlog tests: SHA-256 from node:crypto, the reference log of the test
// vectors (test/vectors/tlog/README.md), a naive RFC 9162 MTH to check the stored-hash
// machinery against, and a symbolic hasher that checks tree shapes at sizes up to 2^52.

import { createHash } from "node:crypto"
import { fileURLToPath } from "node:url"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeEntryBundle } from "../../../src/domain/tlog/entryBundle.js"
import { appendLeaf, emptyFrontier } from "../../../src/domain/tlog/frontier.js"
import type { Frontier } from "../../../src/domain/tlog/frontier.js"
import { HASH_SIZE, makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import type { Hash, TreeHasher } from "../../../src/domain/tlog/hasher.js"
import { splitStoredHashIndex, storedHashCount } from "../../../src/domain/tlog/storedHash.js"
import type { Tile } from "../../../src/domain/tlog/tile.js"
import { bundleEntryRange, encodeHashTile, tileHashIndexes } from "../../../src/domain/tlog/tiles.js"

export const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest())

export const hasher: TreeHasher = makeTreeHasher(sha256)

/** Directory of the shared tlog test vectors. */
export const vectorsDir = fileURLToPath(new URL("../../vectors/tlog/", import.meta.url))

export const referenceEntry = (i: number): Uint8Array => utf8(`{"index":${i},"text":"reference entry ${i}"}`)

export interface Log {
  readonly entries: ReadonlyArray<Uint8Array>
  readonly leafHashes: ReadonlyArray<Hash>
  /** Every stored hash, by stored-hash position. */
  readonly stored: ReadonlyArray<Hash>
  readonly frontier: Frontier
}

/** Builds a log the way the sequencer does: the frontier in memory, stored hashes appended. */
export const buildLog = (entries: ReadonlyArray<Uint8Array>): Log => {
  const leafHashes: Array<Hash> = []
  const stored: Array<Hash> = []
  let frontier = emptyFrontier
  for (const entry of entries) {
    const leafHash = hasher.leafHash(entry)
    leafHashes.push(leafHash)
    const appended = appendLeaf(hasher, frontier, leafHash)
    frontier = appended.frontier
    for (const hash of appended.stored) stored.push(hash)
  }
  return { entries, leafHashes, stored, frontier }
}

export const referenceLog = (size: number): Log => buildLog(Array.from({ length: size }, (_, i) => referenceEntry(i)))

/** The store's read for a log of the given size: fails if a plan reaches past that log. */
export const readStored = (log: Log, size: number, indexes: ReadonlyArray<number>): Array<Hash> => {
  const count = storedHashCount(size)
  return indexes.map((index) => {
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new Error(`read of stored hash ${index} outside a log of size ${size}`)
    }
    return log.stored[index]!
  })
}

/** The bytes the publisher serves for a tile of the log. */
export const tileBytes = (log: Log, tile: Tile): Uint8Array => {
  if (tile.kind === "entries") {
    const { start, end } = bundleEntryRange(tile)
    return encodeEntryBundle(log.entries.slice(start, end))
  }
  const indexes = tileHashIndexes(tile)
  return encodeHashTile(tile, indexes.map((index) => log.stored[index]!))
}

/** RFC 9162 section 2.1.1 MTH, straight from the definition. */
export const naiveMth = (leafHashes: ReadonlyArray<Hash>): Hash => {
  if (leafHashes.length === 0) return hasher.emptyRoot
  if (leafHashes.length === 1) return leafHashes[0]!
  let k = 1
  while (2 * k < leafHashes.length) k *= 2
  return hasher.nodeHash(naiveMth(leafHashes.slice(0, k)), naiveMth(leafHashes.slice(k)))
}

export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")
export const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"))
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

export const flipBit = (bytes: Uint8Array, bit: number): Uint8Array => {
  const copy = bytes.slice()
  copy[Math.floor(bit / 8) % copy.length]! ^= 1 << (bit % 8)
  return copy
}

// A symbolic "hash" names the leaf range [lo, hi) it covers. Its nodeHash only combines
// adjacent ranges in RFC 9162's shape (left part a complete, aligned subtree at least as
// large as the right part) and otherwise poisons the result, so a plan, prover or verifier
// that gets the tree arithmetic wrong at any size, up to 2^52, ends with a wrong root.
const POISON = new Uint8Array(HASH_SIZE).fill(0xff)

export const rangeSymbol = (lo: number, hi: number): Hash => {
  const bytes = new Uint8Array(HASH_SIZE)
  const view = new DataView(bytes.buffer)
  view.setFloat64(0, lo)
  view.setFloat64(8, hi)
  bytes[16] = 0xaa
  return bytes
}

const readSymbol = (hash: Hash): { lo: number; hi: number } | undefined => {
  if (hash.length !== HASH_SIZE || hash[16] !== 0xaa) return undefined
  const view = new DataView(hash.buffer, hash.byteOffset, hash.byteLength)
  return { lo: view.getFloat64(0), hi: view.getFloat64(8) }
}

const isPowerOfTwo = (n: number): boolean => n >= 1 && 2 ** Math.round(Math.log2(n)) === n

export const symbolicHasher: TreeHasher = {
  leafHash: () => POISON,
  emptyRoot: rangeSymbol(0, 0),
  nodeHash: (left, right) => {
    const l = readSymbol(left)
    const r = readSymbol(right)
    if (l === undefined || r === undefined || l.hi !== r.lo) return POISON
    const leftSize = l.hi - l.lo
    const rightSize = r.hi - r.lo
    if (!isPowerOfTwo(leftSize) || rightSize < 1 || rightSize > leftSize || l.lo % leftSize !== 0) return POISON
    return rangeSymbol(l.lo, r.hi)
  }
}

/** The symbolic stored hash at a position: the range of its complete subtree. */
export const symbolicStored = (index: number): Hash => {
  const { level, n } = splitStoredHashIndex(index)
  return rangeSymbol(n * 2 ** level, (n + 1) * 2 ** level)
}
