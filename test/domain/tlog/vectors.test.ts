// The Go reference vectors (test/vectors/tlog): for every published size, the same tiles
// and bundles byte for byte, the same root, and the same inclusion and consistency proofs.

import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { consistencyProofFromHashes, consistencyProofIndexes, verifyConsistency } from "../../../src/domain/tlog/consistency.js"
import { frontierRoot } from "../../../src/domain/tlog/frontier.js"
import { inclusionProofFromHashes, inclusionProofIndexes, verifyInclusion } from "../../../src/domain/tlog/inclusion.js"
import { tilePath } from "../../../src/domain/tlog/tile.js"
import { rootFromTiles, storedHashesFromTiles, tileHashesNeededForRoot, tilesForStoredHashes } from "../../../src/domain/tlog/tileHashes.js"
import { tilesForSize } from "../../../src/domain/tlog/tiles.js"
import { treeHashFromHashes, treeHashIndexes } from "../../../src/domain/tlog/treeHash.js"
import type { Log } from "./support.js"
import { fromBase64, hasher, readStored, referenceLog, sha256, tileBytes, toBase64, toHex, vectorsDir } from "./support.js"

const sizes = readdirSync(vectorsDir)
  .filter((name) => /^n[0-9]+$/.test(name))
  .map((name) => Number(name.slice(1)))
  .sort((a, b) => a - b)

const largest = sizes[sizes.length - 1]!

let log: Log
beforeAll(() => {
  log = referenceLog(largest)
})

const listFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? listFiles(path) : [path]
  })

const rootOfCheckpoint = (size: number): Uint8Array => {
  const lines = readFileSync(join(vectorsDir, `n${size}`, "checkpoint"), "utf8").split("\n")
  expect(lines[1]).toBe(String(size))
  return fromBase64(lines[2]!)
}

const treeHash = (size: number): Uint8Array =>
  treeHashFromHashes(hasher, size, readStored(log, size, treeHashIndexes(size)))

/** Fetches tiles "from the server": only the ones a log of this size publishes. */
const fetchTiles = (size: number, tiles: ReadonlyArray<{ kind: "hash"; level: number; index: number; width: number }>) => {
  const published = new Set(tilesForSize(size).map(tilePath))
  return tiles.map((tile) => {
    expect(published.has(tilePath(tile))).toBe(true)
    return tileBytes(log, tile)
  })
}

it("has the vectors", () => {
  expect(sizes).toEqual([1, 2, 3, 255, 256, 257, 1000, 65793])
})

describe.each(sizes)("log of size %i", (size) => {
  it("publishes exactly the tiles of tiles.sha256, byte for byte", () => {
    const expected = readFileSync(join(vectorsDir, `n${size}`, "tiles.sha256"), "utf8").trim().split("\n").sort()
    const actual = tilesForSize(size)
      .map((tile) => `${toHex(sha256(tileBytes(log, tile)))}  ${tilePath(tile)}`)
      .sort()
    expect(actual).toEqual(expected)
  })

  it("has the checkpoint's root, from stored hashes, from tiles and from the frontier", () => {
    const root = rootOfCheckpoint(size)
    expect(toBase64(treeHash(size))).toBe(toBase64(root))
    const fromTiles = rootFromTiles(hasher, size, fetchTiles(size, tileHashesNeededForRoot(size)))
    expect(toBase64(fromTiles!)).toBe(toBase64(root))
    if (size === largest) expect(toBase64(frontierRoot(hasher, log.frontier))).toBe(toBase64(root))
  })
})

// Tile files are checked in for the sizes up to 1000.
describe.each(sizes.filter((size) => size <= 1000))("tile files of size %i", (size) => {
  it("writes the same tile files", () => {
    const dir = join(vectorsDir, `n${size}`)
    const files = listFiles(join(dir, "tile")).map((path) => relative(dir, path).split("\\").join("/"))
    const tiles = tilesForSize(size)
    expect(files.sort()).toEqual(tiles.map(tilePath).sort())
    for (const tile of tiles) {
      expect(toHex(tileBytes(log, tile)), tilePath(tile)).toBe(toHex(readFileSync(join(dir, tilePath(tile)))))
    }
  })
})

interface InclusionVector {
  readonly index: number
  readonly size: number
  readonly leaf_hash: string
  readonly root: string
  readonly hashes: ReadonlyArray<string>
}

interface ConsistencyVector {
  readonly from: number
  readonly to: number
  readonly from_root: string
  readonly to_root: string
  readonly hashes: ReadonlyArray<string>
}

describe.each([1000, 65793])("proofs.json of size %i", (size) => {
  const vectors = (): { inclusion: Array<InclusionVector>; consistency: Array<ConsistencyVector> } =>
    JSON.parse(readFileSync(join(vectorsDir, `n${size}`, "proofs.json"), "utf8"))

  it("reproduces and verifies every inclusion proof", () => {
    const { inclusion } = vectors()
    expect(inclusion.length).toBeGreaterThan(10)
    for (const v of inclusion) {
      const label = `inclusion ${v.index} in ${v.size}`
      expect(toBase64(log.leafHashes[v.index]!), label).toBe(v.leaf_hash)
      expect(toBase64(treeHash(v.size)), label).toBe(v.root)
      const indexes = inclusionProofIndexes(v.index, v.size)
      const proof = inclusionProofFromHashes(hasher, v.index, v.size, readStored(log, v.size, indexes))
      expect(proof.map(toBase64), label).toEqual(v.hashes)
      // The same proof from the tiles of that size, as a verifier builds it.
      const tiles = tilesForStoredHashes(v.size, indexes)
      const fromTiles = storedHashesFromTiles(hasher, v.size, indexes, fetchTiles(v.size, tiles))
      expect(inclusionProofFromHashes(hasher, v.index, v.size, fromTiles!).map(toBase64), label).toEqual(v.hashes)
      const ok = verifyInclusion(hasher, v.index, v.size, fromBase64(v.leaf_hash), v.hashes.map(fromBase64), fromBase64(v.root))
      expect(ok, label).toBe(true)
    }
  })

  it("reproduces and verifies every consistency proof", () => {
    const { consistency } = vectors()
    expect(consistency.length).toBeGreaterThan(10)
    for (const v of consistency) {
      const label = `consistency ${v.from} to ${v.to}`
      expect(toBase64(treeHash(v.from)), label).toBe(v.from_root)
      expect(toBase64(treeHash(v.to)), label).toBe(v.to_root)
      const indexes = consistencyProofIndexes(v.from, v.to)
      const proof = consistencyProofFromHashes(hasher, v.from, v.to, readStored(log, v.to, indexes))
      expect(proof.map(toBase64), label).toEqual(v.hashes)
      const tiles = tilesForStoredHashes(v.to, indexes)
      const fromTiles = storedHashesFromTiles(hasher, v.to, indexes, fetchTiles(v.to, tiles))
      expect(consistencyProofFromHashes(hasher, v.from, v.to, fromTiles!).map(toBase64), label).toEqual(v.hashes)
      const ok = verifyConsistency(hasher, v.from, v.to, fromBase64(v.from_root), fromBase64(v.to_root), v.hashes.map(fromBase64))
      expect(ok, label).toBe(true)
    }
  })
})
