// C2SP tlog-tiles: which tiles a log publishes and when, what goes in them (hash tiles and
// entry bundles), and a verifier rebuilding roots and proofs from those tiles alone.

import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { decodeEntryBundle, encodeEntryBundle } from "../../../src/domain/tlog/entryBundle.js"
import { inclusionProofFromHashes, inclusionProofIndexes } from "../../../src/domain/tlog/inclusion.js"
import { consistencyProofFromHashes, consistencyProofIndexes } from "../../../src/domain/tlog/consistency.js"
import { MAX_TREE_SIZE } from "../../../src/domain/tlog/storedHash.js"
import type { HashTile } from "../../../src/domain/tlog/tile.js"
import { tilePath } from "../../../src/domain/tlog/tile.js"
import {
  rootFromTiles,
  storedHashesFromTiles,
  tileHashesNeededForRoot,
  tilesForStoredHashes,
  tileSlotsForStoredHash
} from "../../../src/domain/tlog/tileHashes.js"
import { bundleEntryRange, fullTilesForSize, newPartialTiles, newTiles, partialTilesForSize, tileHashIndexes, tilesForSize } from "../../../src/domain/tlog/tiles.js"
import { treeHashFromHashes, treeHashIndexes } from "../../../src/domain/tlog/treeHash.js"
import type { Log } from "./support.js"
import { flipBit, hasher, naiveMth, readStored, referenceLog, tileBytes, toHex } from "./support.js"

const LOG_SIZE = 70_000
let log: Log
beforeAll(() => {
  log = referenceLog(LOG_SIZE)
})

const root = (size: number) => treeHashFromHashes(hasher, size, readStored(log, size, treeHashIndexes(size)))
const paths = (tiles: ReadonlyArray<Parameters<typeof tilePath>[0]>) => tiles.map(tilePath)

/** Serves only what a log of this size publishes, as the tile server would. */
const fetchTiles = (size: number, tiles: ReadonlyArray<HashTile>): Array<Uint8Array> => {
  const published = new Set(paths(tilesForSize(size)))
  return tiles.map((tile) => {
    if (!published.has(tilePath(tile))) throw new Error(`${tilePath(tile)} is not published at size ${size}`)
    return tileBytes(log, tile)
  })
}

describe("tilesForSize", () => {
  it("matches the spec's example of a tree of size 70,000", () => {
    const tiles = tilesForSize(70_000)
    const hashTiles = tiles.filter((t) => t.kind === "hash")
    const count = (level: number, full: boolean) =>
      hashTiles.filter((t) => t.level === level && (t.width === 256) === full).length
    expect([count(0, true), count(0, false), count(1, true), count(1, false), count(2, true), count(2, false)]).toEqual([
      273, 1, 1, 1, 0, 1
    ])
    expect(paths(hashTiles.filter((t) => t.width < 256))).toEqual(["tile/0/273.p/112", "tile/1/001.p/17", "tile/2/000.p/1"])
    expect(tiles.filter((t) => t.kind === "entries").length).toBe(274)
    expect(paths(tilesForSize(256))).toEqual(["tile/0/000", "tile/1/000.p/1", "tile/entries/000"])
    expect(tilesForSize(0)).toEqual([])
  })

  it("throws for sizes out of range", () => {
    expect(() => tilesForSize(-1)).toThrow(RangeError)
    expect(() => newTiles(5, 4)).toThrow(RangeError)
    expect(() => newTiles(0, MAX_TREE_SIZE + 1)).toThrow(RangeError)
  })
})

describe("partialTilesForSize and fullTilesForSize", () => {
  it("are tilesForSize's partial tiles, and its full tiles by position, in its order", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 300_000 }), fc.constantFrom(0, 1, 255, 256, 65_535, 65_536, 65_537, 16_777_216)), (size) => {
        const all = tilesForSize(size)
        expect(partialTilesForSize(size)).toEqual(all.filter((tile) => tile.width < 256))
        const full = fullTilesForSize(size)
        const listed = all.filter((tile) => tile.width === 256)
        expect(full.count).toBe(listed.length)
        // Every position for small logs; for large ones the ends of each kind and a spread.
        const positions = listed.length <= 2_000 ? listed.map((_, i) => i) : [0, 1, listed.length - 1, ...Array.from({ length: 500 }, (_, i) => Math.floor((i * listed.length) / 500))]
        for (const position of positions) expect(full.at(position)).toEqual(listed[position])
        expect(() => full.at(listed.length)).toThrow(RangeError)
      }),
      { numRuns: 60 }
    )
  })

  it("newPartialTiles are newTiles' partial tiles, in its order", () => {
    const pairs = fc.tuple(fc.integer({ min: 0, max: 300_000 }), fc.integer({ min: 0, max: 300_000 })).map(([a, b]) => (a <= b ? [a, b] : [b, a]))
    fc.assert(
      fc.property(fc.oneof(pairs, fc.constantFrom([65_536, 65_600], [1, 66_000], [2_048, 2_148], [256, 300], [0, 0])), ([oldSize, newSize]) => {
        expect(newPartialTiles(oldSize!, newSize!)).toEqual(newTiles(oldSize!, newSize!).filter((tile) => tile.width < 256))
      }),
      { numRuns: 200 }
    )
  })

  it("count a log of a billion entries' full tiles without listing them", () => {
    const full = fullTilesForSize(1_000_000_000)
    // 3,906,250 bundles and level-0 tiles, 15,258 at level 1 (3,906,250 hashes), 59 at level 2 (15,258).
    expect(full.count).toBe(3_906_250 * 2 + 15_258 + 59)
    expect(paths([full.at(0), full.at(3_906_249), full.at(3_906_250), full.at(full.count - 1)])).toEqual([
      "tile/0/000", "tile/0/x003/x906/249", "tile/1/000", "tile/entries/x003/x906/249"
    ])
    expect(paths(partialTilesForSize(1_000_000_000))).toEqual([
      "tile/1/x015/258.p/202", "tile/2/059.p/154", "tile/3/000.p/59"
    ])
  })
})

describe("newTiles", () => {
  const sizes = fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 0, max: 200_000 })).map(([a, b]) =>
    a <= b ? ([a, b] as const) : ([b, a] as const)
  )

  it("lists what a log of newSize publishes and a log of oldSize did not", () => {
    fc.assert(
      fc.property(sizes, ([oldSize, newSize]) => {
        const before = new Set(paths(tilesForSize(oldSize)))
        const expected = paths(tilesForSize(newSize)).filter((path) => !before.has(path))
        expect(paths(newTiles(oldSize, newSize))).toEqual(expected)
      }),
      { numRuns: 100 }
    )
  })

  it("publishes, checkpoint after checkpoint, every tile the final size needs", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 30 }), (steps) => {
        const written = new Set<string>()
        let size = 0
        for (const step of steps) {
          for (const path of paths(newTiles(size, size + step))) written.add(path)
          size += step
        }
        for (const path of paths(tilesForSize(size))) expect(written.has(path)).toBe(true)
      }),
      { numRuns: 100 }
    )
  })

  it("stays small near the largest log", () => {
    // 2^52 leaves: 2^(52 - 8L) hashes at level L, so the last tile of levels 0-5 completes,
    // level 6's partial tile grows from 15 to 16 hashes, and the last bundle fills up.
    expect(paths(newTiles(MAX_TREE_SIZE - 3, MAX_TREE_SIZE))).toEqual([
      "tile/0/x017/x592/x186/x044/415",
      "tile/1/x068/x719/x476/735",
      "tile/2/x268/x435/455",
      "tile/3/x001/x048/575",
      "tile/4/x004/095",
      "tile/5/015",
      "tile/6/000.p/16",
      "tile/entries/x017/x592/x186/x044/415"
    ])
  })
})

describe("hash tiles", () => {
  it("hold at level L the MTH of each 256^L-leaf run, and level-0 tiles hash their entry bundle", () => {
    for (const tile of tilesForSize(LOG_SIZE)) {
      const bytes = tileBytes(log, tile)
      if (tile.kind === "entries") {
        const { start, end } = bundleEntryRange(tile)
        expect(decodeEntryBundle(bytes)!.map((entry) => toHex(hasher.leafHash(entry)))).toEqual(
          log.leafHashes.slice(start, end).map(toHex)
        )
        continue
      }
      expect(tileHashIndexes(tile).length).toBe(tile.width)
      expect(bytes.length).toBe(32 * tile.width)
      const span = 256 ** tile.level
      for (const slot of [0, tile.width - 1]) {
        const first = (tile.index * 256 + slot) * span
        expect(toHex(bytes.slice(32 * slot, 32 * slot + 32))).toBe(toHex(naiveMth(log.leafHashes.slice(first, first + span))))
      }
    }
  })

  it("refuse tiles beyond the largest log", () => {
    expect(() => tileHashIndexes({ kind: "hash", level: 7, index: 0, width: 1 })).toThrow(RangeError)
    expect(() => bundleEntryRange({ kind: "entries", index: 2 ** 44, width: 1 })).toThrow(RangeError)
  })
})

describe("a verifier holding only tiles", () => {
  const size = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: LOG_SIZE }))

  it("rebuilds the root at any size", () => {
    fc.assert(
      fc.property(size, (n) => {
        const tiles = tileHashesNeededForRoot(n)
        expect(tiles.length).toBeLessThanOrEqual(7)
        expect(toHex(rootFromTiles(hasher, n, fetchTiles(n, tiles))!)).toBe(toHex(root(n)))
      }),
      { numRuns: 200 }
    )
  })

  it("builds the same inclusion and consistency proofs as the store", () => {
    const pair = fc
      .integer({ min: 1, max: LOG_SIZE })
      .chain((n) => fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.constant(n)))
    fc.assert(
      fc.property(pair, ([i, n]) => {
        const inclusion = inclusionProofIndexes(i, n)
        const fromTiles = storedHashesFromTiles(hasher, n, inclusion, fetchTiles(n, tilesForStoredHashes(n, inclusion)))
        expect(inclusionProofFromHashes(hasher, i, n, fromTiles!)).toEqual(
          inclusionProofFromHashes(hasher, i, n, readStored(log, n, inclusion))
        )
        const consistency = consistencyProofIndexes(i, n)
        const hashes = storedHashesFromTiles(hasher, n, consistency, fetchTiles(n, tilesForStoredHashes(n, consistency)))
        expect(consistencyProofFromHashes(hasher, i, n, hashes!)).toEqual(
          consistencyProofFromHashes(hasher, i, n, readStored(log, n, consistency))
        )
      }),
      { numRuns: 200 }
    )
  })

  it("gets a different root from a tampered tile, and nothing from a short one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: LOG_SIZE }), fc.nat(), fc.nat(), (n, which, bit) => {
        const data = fetchTiles(n, tileHashesNeededForRoot(n))
        const i = which % data.length
        const tampered = data.map((bytes, j) => (j === i ? flipBit(bytes, bit % (8 * bytes.length)) : bytes))
        expect(toHex(rootFromTiles(hasher, n, tampered)!)).not.toBe(toHex(root(n)))
        const short = data.map((bytes, j) => (j === i ? bytes.slice(0, -1) : bytes))
        expect(rootFromTiles(hasher, n, short)).toBeUndefined()
      }),
      { numRuns: 100 }
    )
  })

  it("needs nothing for the empty log and refuses hashes outside the log", () => {
    expect(tileHashesNeededForRoot(0)).toEqual([])
    expect(toHex(rootFromTiles(hasher, 0, [])!)).toBe(toHex(hasher.emptyRoot))
    // Stored hash 2 is the root of leaves 0 and 1: not in a log of one leaf.
    expect(() => tileSlotsForStoredHash(1, 2)).toThrow(RangeError)
    expect(tileSlotsForStoredHash(2, 2)).toEqual({ tile: { kind: "hash", level: 0, index: 0, width: 2 }, start: 0, end: 2 })
    expect(() => rootFromTiles(hasher, 5, [])).toThrow(RangeError)
  })
})

describe("entry bundles", () => {
  const entries = fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 256 })

  it("round-trip", () => {
    fc.assert(
      fc.property(entries, (list) => {
        expect(decodeEntryBundle(encodeEntryBundle(list))).toEqual(list)
      }),
      { numRuns: 200 }
    )
  })

  it("reject trailing garbage and truncation", () => {
    fc.assert(
      fc.property(entries, fc.uint8Array({ minLength: 1, maxLength: 3 }), fc.nat(), (list, extra, cut) => {
        const bundle = encodeEntryBundle(list)
        const withGarbage = new Uint8Array([...bundle, ...extra])
        // Garbage of one byte, or that reads as a length past the end, cannot be an entry.
        if (extra.length < 2 || (extra[0]! << 8) + extra[1]! > extra.length - 2) {
          expect(decodeEntryBundle(withGarbage)).toBeUndefined()
        }
        const truncatedBy = 1 + (cut % bundle.length)
        const truncated = bundle.slice(0, bundle.length - truncatedBy)
        const decoded = decodeEntryBundle(truncated)
        // Cutting exactly at an entry boundary leaves a shorter, still valid bundle.
        if (decoded !== undefined) expect(decoded).toEqual(list.slice(0, decoded.length))
        if (truncatedBy < 2 + list[list.length - 1]!.length) expect(decoded?.length ?? 0).toBeLessThan(list.length)
      }),
      { numRuns: 200 }
    )
  })

  it("hold 1 to 256 entries of at most 65,535 bytes", () => {
    expect(encodeEntryBundle([new Uint8Array(0)])).toEqual(new Uint8Array([0, 0]))
    expect(encodeEntryBundle([new Uint8Array([7]), new Uint8Array(0)])).toEqual(new Uint8Array([0, 1, 7, 0, 0]))
    const largest = new Uint8Array(65_535).fill(1)
    expect(decodeEntryBundle(encodeEntryBundle([largest]))).toEqual([largest])
    expect(() => encodeEntryBundle([new Uint8Array(65_536)])).toThrow(RangeError)
    expect(() => encodeEntryBundle([])).toThrow(RangeError)
    expect(() => encodeEntryBundle(Array.from({ length: 257 }, () => new Uint8Array(0)))).toThrow(RangeError)
    expect(decodeEntryBundle(new Uint8Array(0))).toBeUndefined()
    expect(decodeEntryBundle(new Uint8Array([0]))).toBeUndefined()
    expect(decodeEntryBundle(new Uint8Array([0, 2, 1]))).toBeUndefined()
    expect(decodeEntryBundle(new Uint8Array(2 * 257))).toBeUndefined()
    expect(decodeEntryBundle(new Uint8Array(2 * 256))!.length).toBe(256)
  })
})
