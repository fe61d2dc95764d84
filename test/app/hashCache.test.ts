// The bounded cache of stored hashes (src/app/hashCache.ts): the same answers as the store,
// only the missing hashes read, never more than its capacity kept.

import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeHashCache } from "../../src/app/hashCache.js"

const hashAt = (index: number): Uint8Array => new Uint8Array(32).fill(index % 256)

describe("hashCache", () => {
  it("answers what the store holds, reads only what it lacks, and keeps at most its capacity", () => {
    const reads: Array<ReadonlyArray<number>> = []
    let kept = 0
    const read = (indexes: ReadonlyArray<number>) =>
      Effect.sync(() => {
        reads.push(indexes)
        return indexes.map(hashAt)
      })
    const cached = makeHashCache(read, 4)
    const run = (indexes: ReadonlyArray<number>) => Effect.runSync(cached(indexes))

    expect(run([1, 2, 3])).toEqual([1, 2, 3].map(hashAt))
    expect(run([3, 2, 1])).toEqual([3, 2, 1].map(hashAt))
    expect(reads).toEqual([[1, 2, 3]])
    // 4 and 5 fill the cache and push out the least recently used hash, 3.
    expect(run([4, 5])).toEqual([4, 5].map(hashAt))
    expect(run([1, 4, 5])).toEqual([1, 4, 5].map(hashAt))
    expect(reads).toEqual([[1, 2, 3], [4, 5]])
    expect(run([3])).toEqual([hashAt(3)])
    expect(reads.at(-1)).toEqual([3])
    // A request larger than the capacity is still answered in full.
    expect(run([10, 11, 12, 13, 14, 15])).toEqual([10, 11, 12, 13, 14, 15].map(hashAt))
    for (const index of [12, 13, 14, 15]) {
      kept = reads.length
      run([index])
      expect(reads.length).toBe(kept)
    }
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
