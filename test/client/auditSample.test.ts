// The sample `aics audit log` compares past its bounds (auditSample.ts): one position in each
// stratum of the whole range, the same for the same seed, elsewhere for another (and not
// merely shifted: each stratum drawn on its own), and every position when there are no more
// than asked; itemsAt reads them in one pass.

import { Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { itemsAt, keysInOrder, spreadPositions } from "../../src/client/auditSample.js"

const seed = (first: number) => Uint8Array.from([first, 1, 2, 3, ...new Array(28).fill(0)])

describe("spreadPositions", () => {
  it("is every position when there are no more than asked", () => {
    expect(spreadPositions(0, 100, seed(0))).toEqual([])
    expect(spreadPositions(3, 100, seed(9))).toEqual([0, 1, 2])
    expect(spreadPositions(100, 100, seed(9))).toEqual(Array.from({ length: 100 }, (_, i) => i))
  })

  it("spreads `count` ascending positions over the whole range, one in each stratum, drawn by the seed", () => {
    const positions = spreadPositions(1000, 100, seed(200))
    expect(positions).toHaveLength(100)
    positions.forEach((p, i) => {
      expect(p).toBeGreaterThanOrEqual(i * 10)
      expect(p).toBeLessThan((i + 1) * 10)
    })
    expect(spreadPositions(1000, 100, seed(200))).toEqual(positions)
    expect(spreadPositions(1000, 100, seed(20))).not.toEqual(positions)
    expect(spreadPositions(1001, 100, seed(255)).every((p) => p < 1001)).toBe(true)
    // Each stratum drawn on its own: the offsets within the strata are not all one.
    expect(new Set(positions.map((p, i) => p - i * 10)).size).toBeGreaterThan(5)
    // Strata of uneven length (1.5 positions each) still give distinct ascending positions.
    const uneven = spreadPositions(150, 100, seed(7))
    expect(uneven.every((p, i) => i === 0 || p > uneven[i - 1]!)).toBe(true)
  })
})

describe("itemsAt", () => {
  it("reads the items at the positions in one pass of a stream", async () => {
    const letters = Stream.fromIterable("abcdefghij")
    expect(await Effect.runPromise(itemsAt(letters, [0, 3, 9]))).toEqual(["a", "d", "j"])
    expect(await Effect.runPromise(itemsAt(letters, []))).toEqual([])
  })
})

describe("keysInOrder", () => {
  it("walks a listing in order a page at a time, each page after the last key of the one before", async () => {
    const keys = Array.from({ length: 2500 }, (_, i) => `k${String(i).padStart(5, "0")}`)
    const asked: Array<string | undefined> = []
    const page = (query: { readonly after?: string | undefined; readonly limit: number }) => Effect.sync(() => {
      asked.push(query.after)
      return keys.filter((key) => query.after === undefined || key > query.after).slice(0, query.limit)
    })
    expect(await Effect.runPromise(Stream.runCollect(keysInOrder(page)).pipe(Effect.map((chunk) => [...chunk])))).toEqual(keys)
    expect(asked).toEqual([undefined, "k00999", "k01999"])
    // A sample within the first page reads no other.
    asked.length = 0
    expect(await Effect.runPromise(itemsAt(keysInOrder(page), [5, 900]))).toEqual(["k00005", "k00900"])
    expect(asked).toEqual([undefined])
  })
})
