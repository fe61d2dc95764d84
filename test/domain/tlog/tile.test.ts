// C2SP tlog-tiles paths: one canonical path per tile, and parsing accepts nothing else.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Tile } from "../../../src/domain/tlog/tile.js"
import { parseTilePath, tilePath } from "../../../src/domain/tlog/tile.js"

const tileArb: fc.Arbitrary<Tile> = fc.oneof(
  fc.record({
    kind: fc.constant("hash" as const),
    level: fc.integer({ min: 0, max: 63 }),
    index: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.maxSafeNat()),
    width: fc.oneof(fc.constant(256), fc.integer({ min: 1, max: 256 }))
  }),
  fc.record({
    kind: fc.constant("entries" as const),
    index: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.maxSafeNat()),
    width: fc.oneof(fc.constant(256), fc.integer({ min: 1, max: 256 }))
  })
)

describe("tile paths", () => {
  it("are written as in the spec", () => {
    expect(tilePath({ kind: "hash", level: 4, index: 1234067, width: 256 })).toBe("tile/4/x001/x234/067")
    expect(tilePath({ kind: "hash", level: 0, index: 3, width: 232 })).toBe("tile/0/003.p/232")
    expect(tilePath({ kind: "hash", level: 63, index: 1000, width: 1 })).toBe("tile/63/x001/000.p/1")
    expect(tilePath({ kind: "entries", index: 999, width: 256 })).toBe("tile/entries/999")
    expect(tilePath({ kind: "entries", index: 0, width: 5 })).toBe("tile/entries/000.p/5")
  })

  it("throw for tiles that cannot exist", () => {
    for (const tile of [
      { kind: "hash", level: 64, index: 0, width: 1 },
      { kind: "hash", level: -1, index: 0, width: 1 },
      { kind: "hash", level: 0, index: -1, width: 1 },
      { kind: "hash", level: 0, index: 0, width: 0 },
      { kind: "entries", index: 0, width: 257 },
      { kind: "entries", index: 2 ** 53, width: 1 },
      { kind: "entries", index: 0.5, width: 1 }
    ] as const) {
      expect(() => tilePath(tile)).toThrow(RangeError)
    }
  })

  it("round-trip through parseTilePath", () => {
    fc.assert(
      fc.property(tileArb, (tile) => {
        expect(parseTilePath(tilePath(tile))).toEqual(tile)
      })
    )
  })

  it("parse only when canonical: every mutation either fails or is another tile's own path", () => {
    const mutation = fc.oneof(
      fc.tuple(fc.constant("insert" as const), fc.nat(), fc.constantFrom(..."0123456789x/.pentries-+ ")),
      fc.tuple(fc.constant("delete" as const), fc.nat(), fc.constant("")),
      fc.tuple(fc.constant("replace" as const), fc.nat(), fc.constantFrom(..."0123456789x/.p"))
    )
    fc.assert(
      fc.property(tileArb, fc.array(mutation, { minLength: 1, maxLength: 3 }), (tile, mutations) => {
        let path = tilePath(tile)
        for (const [op, at, char] of mutations) {
          const i = at % (path.length + 1)
          if (op === "insert") path = path.slice(0, i) + char + path.slice(i)
          else if (op === "delete") path = path.slice(0, i) + path.slice(i + 1)
          else path = path.slice(0, i) + char + path.slice(i + 1)
        }
        const parsed = parseTilePath(path)
        if (parsed !== undefined) expect(tilePath(parsed)).toBe(path)
      }),
      { numRuns: 2000 }
    )
  })

  it("reject non-canonical and malformed paths", () => {
    for (const path of [
      "",
      "tile",
      "tile/0",
      "tile/0/",
      "tile/0/1",
      "tile/0/01",
      "tile/0/0001",
      "tile/0/x000/001",
      "tile/0/x001",
      "tile/0/001/002",
      "tile/0/x1/001",
      "tile/0/x001/x2/003",
      "tile/00/001",
      "tile/01/001",
      "tile/64/000",
      "tile/-1/000",
      "tile/+1/000",
      "tile/0/-01",
      "tile/0/000.p/0",
      "tile/0/000.p/00",
      "tile/0/000.p/01",
      "tile/0/000.p/256",
      "tile/0/000.p/1000",
      "tile/0/000.p/",
      "tile/0/000.p",
      "tile/0/000.p/1/",
      "tile/0/000/",
      "/tile/0/000",
      "tile//000",
      "tile/0/000.p/1/extra",
      "tile/entries/x000/000",
      "tile/data/000",
      "tile/8/0/000",
      "tile/entries",
      "tile/entries/1",
      "tile/entries/000.p/256",
      "tile/Entries/000",
      "tile/0/x009/x007/x199/x254/x740/x993/000",
      "tile/0/x009/x007/x199/x254/x740/992",
      "TILE/0/000",
      "tile/0/000 ",
      "tile/0/00a",
      "tile/0/٠٠٠"
    ]) {
      expect(parseTilePath(path), path).toBeUndefined()
    }
  })

  it("accept the spec's examples", () => {
    expect(parseTilePath("tile/0/x001/x234/067")).toEqual({ kind: "hash", level: 0, index: 1234067, width: 256 })
    expect(parseTilePath("tile/63/000.p/255")).toEqual({ kind: "hash", level: 63, index: 0, width: 255 })
    expect(parseTilePath("tile/entries/x001/000.p/1")).toEqual({ kind: "entries", index: 1000, width: 1 })
    expect(parseTilePath("tile/0/x009/x007/x199/x254/x740/991")).toEqual({
      kind: "hash",
      level: 0,
      index: Number.MAX_SAFE_INTEGER,
      width: 256
    })
  })
})
