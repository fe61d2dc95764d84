// The notice register's pure rules (governance/notice.ts): open -> closed, never reopened,
// text and contact deleted 12 calendar months after closing, never before.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  closeNotice, deletionDueAt, NOTICE_LIMITS, NOTICE_OUTCOMES, NOTICE_RULE, noticeIssues, openNotice, purgeNotice, purgeRegister
} from "../../../src/domain/governance/notice.js"

const request = { location: "leaf 12", explanation: "this post shows my address", email: "a@example.org", accurate: true }

describe("notice register", () => {
  it("takes a valid notice as open, refuses an invalid one", () => {
    const open = Either.getOrThrow(openNotice(request, "r1", 1_000))
    expect(open.status).toBe("open")
    expect(open.kind).toBe("notice")
    const paths = (r: unknown) => Either.match(openNotice(r, "r2", 0), { onLeft: (issues) => issues.map((e) => e.path), onRight: () => [] })
    expect(paths({ ...request, explanation: "short" })).toEqual(["explanation"])
    expect(paths({ ...request, accurate: false })).toEqual(["accurate"])
    expect(paths({ ...request, extra: 1 })).toEqual(["extra"])
    expect(paths(undefined)).toEqual([""])
  })

  it("names every failing member of a notice at once, with bounds from NOTICE_LIMITS", () => {
    const issues = noticeIssues({ kind: "complaint", location: "", explanation: "x".repeat(NOTICE_LIMITS.explanation.max + 1), email: 7, accurate: "yes" })
    expect(issues.map((e) => e.path).sort()).toEqual(["accurate", "email", "explanation", "kind", "location"])
    expect(issues.find((e) => e.path === "accurate")!.message).toBe("must be true: you state that the notice is accurate and complete")
    expect(issues.find((e) => e.path === "explanation")!.message).toBe(`must be a string of ${NOTICE_LIMITS.explanation.min} to ${NOTICE_LIMITS.explanation.max} characters`)
    expect(issues.find((e) => e.path === "email")!.message).toBe(`must be null or a string of at most ${NOTICE_LIMITS.email.max} characters`)
    expect(issues.map((e) => e.message).join(" ")).not.toContain("xxx")
    expect(noticeIssues({ explanation: "long enough text", accurate: true })).toEqual([{ path: "location", message: `is missing: it must be a string of 1 to ${NOTICE_LIMITS.location.max} characters` }])
    expect(noticeIssues({ ...request, extra: 1 })).toEqual([{ path: "extra", message: "is not a member of a notice (no other members are taken)" }])
    expect(noticeIssues([request]).map((e) => e.path)).toEqual([""])
    expect(noticeIssues(request)).toEqual([])
    for (const [field, bounds] of Object.entries(NOTICE_LIMITS)) expect(NOTICE_RULE, field).toContain(`${field} (${"min" in bounds ? `${bounds.min} to ` : "at most "}${bounds.max}`)
  })

  it("never revives a closed notice, and deletes report id, text and contact exactly 12 months after closing", () => {
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
            const next = closeNotice(record, step, now, 7, "hash")
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
          expect(record.reportId === null).toBe(due)
          if (due) expect([record.outcome !== null, record.reportIndex, record.noticeHash]).toEqual([true, 7, "hash"])
        }
      }
    ))
  })

  it("a purge of the register makes counter-notices cite the deleted report id's report leaf", () => {
    const original = Either.getOrThrow(closeNotice(Either.getOrThrow(openNotice(request, "r1", 1_000)), "removed", 2_000, 9, "h1"))
    const counter = Either.getOrThrow(openNotice({ ...request, kind: "counter_notice", report_id: "r1" }, "r2", 3_000))
    const other = Either.getOrThrow(openNotice({ ...request, kind: "counter_notice", report_id: "r9" }, "r3", 3_000))
    expect(purgeRegister([original, counter, other], deletionDueAt(2_000) - 1)).toEqual({ records: [original, counter, other], purged: 0 })
    const { records, purged } = purgeRegister([original, counter, other], deletionDueAt(2_000))
    expect(purged).toBe(1)
    expect(records[0]).toMatchObject({ reportId: null, text: null, contact: null, reportIndex: 9, noticeHash: "h1" })
    expect(records[1]!.text).toMatchObject({ citedReportId: null, citedReportIndex: 9, explanation: request.explanation })
    expect(records[2]).toBe(other)
    // Once purged, nothing is due again.
    expect(purgeRegister(records, deletionDueAt(2_000) + 1).purged).toBe(0)
  })

  it("12 calendar months, never fewer (29 February rolls to 1 March)", () => {
    expect(new Date(deletionDueAt(Date.UTC(2027, 4, 31))).toISOString()).toBe("2028-05-31T00:00:00.000Z")
    expect(new Date(deletionDueAt(Date.UTC(2028, 1, 29))).toISOString()).toBe("2029-03-01T00:00:00.000Z")
  })
})
