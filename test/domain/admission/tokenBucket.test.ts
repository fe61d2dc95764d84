import { describe, expect, it } from "vitest"
import { isFull, take } from "../../../src/domain/admission/tokenBucket.js"

const rule = { capacity: 60, windowSeconds: 60 }

describe("token bucket", () => {
  it("allows a burst of its capacity, then one a second", () => {
    let bucket = undefined
    for (let i = 0; i < 60; i++) {
      const taken = take(bucket, rule, 1_000)
      expect(taken.admitted).toBe(true)
      bucket = taken.bucket
    }
    const refused = take(bucket, rule, 1_000)
    expect(refused).toMatchObject({ admitted: false, remaining: 0, retryAfterSeconds: 1 })
    expect(take(refused.bucket, rule, 1_999).admitted).toBe(false)
    const later = take(refused.bucket, rule, 2_000)
    expect(later.admitted).toBe(true)
    expect(later.resetSeconds).toBe(60)
  })

  it("never holds more than its capacity, and a full bucket may be forgotten", () => {
    const taken = take(undefined, rule, 0)
    expect(take(taken.bucket, rule, 10_000_000).remaining).toBe(59)
    expect(isFull(taken.bucket, rule, 500)).toBe(false)
    expect(isFull(taken.bucket, rule, 1_000)).toBe(true)
  })

  it("says how long until a larger cost fits", () => {
    const empty = { tokens: 0, at: 0 }
    expect(take(empty, { capacity: 10, windowSeconds: 3600 }, 0).retryAfterSeconds).toBe(360)
    expect(take(empty, rule, 0, 5).retryAfterSeconds).toBe(5)
  })
})
