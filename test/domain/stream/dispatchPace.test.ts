// The live stream's dispatcher rests in proportion to how long its last dispatch kept the
// event loop busy, within its bounds (domain/stream/dispatchPace.ts).

import { describe, expect, it } from "vitest"
import { DISPATCH_SHARE, MAX_REST_MS, MIN_REST_MS, restAfter } from "../../../src/domain/stream/dispatchPace.js"

describe("the dispatcher's rest", () => {
  it("is the least rest for a quick dispatch, so a burst still goes out in one write", () => {
    expect(restAfter(0)).toBe(MIN_REST_MS)
    expect(restAfter(1)).toBe(MIN_REST_MS)
  })

  it("keeps dispatching to its share of the loop in between", () => {
    const busy = 10
    const rest = restAfter(busy)
    expect(rest).toBeGreaterThan(MIN_REST_MS)
    expect(busy / (busy + rest)).toBeCloseTo(DISPATCH_SHARE, 10)
  })

  it("never delays a live event past the most rest", () => {
    expect(restAfter(1_000)).toBe(MAX_REST_MS)
    expect(restAfter(Number.POSITIVE_INFINITY)).toBe(MAX_REST_MS)
  })
})
