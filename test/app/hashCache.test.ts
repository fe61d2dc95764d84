// The bounded cache of stored hashes (src/app/hashCache.ts): the same answers as the store,
// only the missing hashes read, never more than its capacity kept.

import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeHashCache } from "../../src/app/hashCache.js"

const hashAt = (index: number): Uint8Array => new Uint8Array(32).fill(index % 256)

describe("hashCache", () => {
  const counting = () => {
    const reads: Array<ReadonlyArray<number>> = []
    const read = (indexes: ReadonlyArray<number>) =>
      Effect.sync(() => {
        reads.push(indexes)
        return indexes.map(hashAt)
      })
    return { reads, read }
  }

  it("answers what the store holds and reads only what it lacks", () => {
    const { reads, read } = counting()
    const cached = makeHashCache(read, 8)
    const run = (indexes: ReadonlyArray<number>) => Effect.runSync(cached(indexes))
    expect(run([1, 2, 3])).toEqual([1, 2, 3].map(hashAt))
    expect(run([3, 2, 1])).toEqual([3, 2, 1].map(hashAt))
    expect(run([2, 4])).toEqual([2, 4].map(hashAt))
    expect(reads).toEqual([[1, 2, 3], [4]])
  })

  it("keeps at most its capacity, and keeps what is in use", () => {
    const { reads, read } = counting()
    const cached = makeHashCache(read, 4)
    const run = (indexes: ReadonlyArray<number>) => Effect.runSync(cached(indexes))
    // Hash 1 is asked with every request (as the tree's upper levels are): read once.
    for (let index = 10; index < 40; index++) expect(run([1, index])).toEqual([1, index].map(hashAt))
    expect(reads.filter((indexes) => indexes.includes(1))).toEqual([[1, 10]])
    // The others went as new ones came: the cache holds at most 4.
    const before = reads.length
    run([10, 11, 12, 13])
    expect(reads.length).toBe(before + 1)
    // A request larger than the capacity is still answered in full.
    expect(run([50, 51, 52, 53, 54, 55])).toEqual([50, 51, 52, 53, 54, 55].map(hashAt))
  })
})

describe("hashCache under concurrent requests", () => {
  it("answers in full when other requests evict its cached hashes while it reads the missing ones", () => {
    // While the read of hash 3 is under way (a file read yields to other requests), another
    // request fills the cache of 4 and pushes out hashes 1 and 2, which were cached when the
    // first request began.
    let cached: ReturnType<typeof makeHashCache> | undefined
    const read = (indexes: ReadonlyArray<number>) =>
      Effect.sync(() => {
        if (indexes.includes(3)) Effect.runSync(cached!([5, 6, 7, 8]))
        return indexes.map(hashAt)
      })
    cached = makeHashCache(read, 4)
    Effect.runSync(cached([1, 2]))
    expect(Effect.runSync(cached([1, 2, 3]))).toEqual([1, 2, 3].map(hashAt))
  })
})
