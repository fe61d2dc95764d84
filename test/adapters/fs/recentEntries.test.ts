import { describe, expect, it } from "vitest"
import { makeRecentEntries } from "../../../src/adapters/fs/recentEntries.js"

const leaf = (i: number) => new Uint8Array([i & 0xff, i >> 8])
const leaves = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => leaf(from + i))

describe("makeRecentEntries", () => {
  it("answers only ranges it holds whole, and keeps the last `capacity` leaves at least", () => {
    const recent = makeRecentEntries(8)
    expect(recent.get(0, 0)).toEqual([])
    expect(recent.get(0, 1)).toBeUndefined()
    recent.add(0, leaves(0, 5))
    expect(recent.get(1, 4)).toEqual(leaves(1, 4))
    expect(recent.get(3, 6)).toBeUndefined()
    recent.add(5, leaves(5, 20))
    expect(recent.get(12, 20)).toEqual(leaves(12, 20))
    expect(recent.get(0, 3)).toBeUndefined()
    expect(recent.get(5, 4)).toBeUndefined()
  })

  it("starts again after a gap (a reopened store appends after what it did not keep)", () => {
    const recent = makeRecentEntries(8)
    recent.add(0, leaves(0, 3))
    recent.add(10, leaves(10, 12))
    expect(recent.get(0, 3)).toBeUndefined()
    expect(recent.get(10, 12)).toEqual(leaves(10, 12))
  })
})
