// The notice register's pure rules (governance/notice.ts): open -> closed, never reopened,
// text and contact deleted 12 calendar months after closing, never before.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { closeNotice, deletionDueAt, NOTICE_OUTCOMES, openNotice, purgeNotice } from "../../../src/domain/governance/notice.js"

const request = { location: "leaf 12", explanation: "this post shows my address", email: "a@example.org", accurate: true }

describe("notice register", () => {
  it("takes a valid notice as open, refuses an invalid one", () => {
    const open = Either.getOrThrow(openNotice(request, "r1", 1_000))
    expect(open.status).toBe("open")
    expect(open.kind).toBe("notice")
    expect(openNotice({ ...request, explanation: "short" }, "r2", 0)).toEqual(Either.left("notice_invalid"))
    expect(openNotice({ ...request, accurate: false }, "r2", 0)).toEqual(Either.left("notice_invalid"))
    expect(openNotice({ ...request, extra: 1 }, "r2", 0)).toEqual(Either.left("notice_invalid"))
  })

  it("never revives a closed notice, and deletes text and contact exactly 12 months after closing", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
      fc.array(fc.oneof(fc.constantFrom(...NOTICE_OUTCOMES), fc.integer({ min: 0, max: 400 * 86_400_000 })), { maxLength: 12 }),
      (start, steps) => {
        let record = Either.getOrThrow(openNotice(request, "r", start))
        let now = start
        let closedAt: number | null = null
        for (const step of steps) {
          if (typeof step === "number") now += step
          else {
            const next = closeNotice(record, step, now, 7)
            expect(Either.isRight(next)).toBe(closedAt === null)
            if (Either.isRight(next)) {
              record = next.right
              closedAt = now
            }
          }
          record = purgeNotice(record, now)
          if (closedAt !== null) expect(record.status).toBe("closed")
          const due = closedAt !== null && now >= deletionDueAt(closedAt)
          expect(record.text === null).toBe(due)
          expect(record.contact === null).toBe(due)
        }
      }
    ))
  })

  it("12 calendar months, never fewer (29 February rolls to 1 March)", () => {
    expect(new Date(deletionDueAt(Date.UTC(2027, 4, 31))).toISOString()).toBe("2028-05-31T00:00:00.000Z")
    expect(new Date(deletionDueAt(Date.UTC(2028, 1, 29))).toISOString()).toBe("2029-03-01T00:00:00.000Z")
  })
})
