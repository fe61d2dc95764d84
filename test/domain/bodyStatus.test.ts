// Ciphertext retention (service.md "Body status", docs/protocol.md section 9): a dm or
// capsule body is expired exactly from logged + retention_days * 86,400,000 ms, never
// before, with policy_index the charter leaf; other bodies never expire.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bodyExpiresAt, bodyStatus, bodyStatusHeader, DAY_MS } from "../../src/domain/bodyStatus.js"
import { emptyLogState } from "../../src/domain/write/logState.js"
import { inboxView } from "../../src/domain/views/inboxView.js"
import { capsuleSlot } from "../../src/domain/views/capsuleSlot.js"
import { Either } from "effect"
import { capsulePayload, ciphertext, claimPayload, dmPayload, makeAgent, PureLog, slotOf } from "../support/identityAgents.js"

describe("body status", () => {
  it("expires dm and capsule ciphertext exactly at the retention boundary, never before", () => {
    fc.assert(fc.property(
      fc.integer({ min: 90, max: 3650 }),
      fc.constantFrom("dm", "capsule"),
      fc.integer({ min: 0, max: 4_000_000_000_000 }),
      fc.integer({ min: -5 * DAY_MS, max: 5 * DAY_MS }),
      (days, type, logged, offset) => {
        const state = new PureLog({ retentionDays: days, label: "retention" }).state
        const boundary = logged + days * DAY_MS
        const now = boundary + offset
        const status = bodyStatus(state, { index: 5, type, logged }, now)
        expect(bodyExpiresAt(state, { index: 5, type, logged })).toBe(boundary)
        if (offset >= 0) expect(status).toEqual({ state: "expired", tombstone_index: null, reason_code: null, policy_index: 0 })
        else expect(status.state).toBe("available")
        expect(bodyStatus(state, { index: 5, type, logged }, boundary - 1).state).toBe("available")
        expect(bodyStatus(state, { index: 5, type, logged }, boundary).state).toBe("expired")
      }
    ), { numRuns: 300 })
  })

  it("never expires a post's text or the charter document", () => {
    const state = new PureLog({ label: "retention-post" }).state
    for (const type of ["post", "charter", "claim"]) {
      expect(bodyExpiresAt(state, { index: 1, type, logged: 0 })).toBeNull()
      expect(bodyStatus(state, { index: 1, type, logged: 0 }, Number.MAX_SAFE_INTEGER).state).toBe("available")
    }
    // No charter folded: no retention policy to expire anything under.
    expect(bodyStatus(emptyLogState, { index: 1, type: "dm", logged: 0 }, Number.MAX_SAFE_INTEGER).state).toBe("available")
  })

  it("shows in the inbox and capsule views, and as the X-AICS-Body-Status header", () => {
    const log = new PureLog({ retentionDays: 90, label: "retention-views" })
    const [bob, alice] = [makeAgent("ret bob"), makeAgent("ret alice")]
    const claim = log.accept(bob, "claim", claimPayload("bob", bob))
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    const dm = dmPayload(bob.kid, grant, claim, ciphertext("old"))
    log.accept(alice, "dm", dm.payload, dm.body)
    const cap = capsulePayload("slot", ciphertext("cap"))
    log.accept(alice, "capsule", cap.payload, cap.body)
    const boundary = log.now + 90 * DAY_MS
    expect(inboxView(log.state, bob.kid, { from: 0, limit: 5 }, boundary - 1).messages[0]!.body.state).toBe("available")
    const expired = inboxView(log.state, bob.kid, { from: 0, limit: 5 }, boundary).messages[0]!.body
    expect(expired).toEqual({ state: "expired", tombstone_index: null, reason_code: null, policy_index: 0 })
    expect(bodyStatusHeader(expired)).toBe("expired;policy_index=0")
    expect(Either.getOrThrow(capsuleSlot(log.state, slotOf("slot"), boundary)).body.state).toBe("expired")
    expect(bodyStatusHeader(bodyStatus(log.state, { index: 0, type: "post", logged: 0 }, boundary))).toBe("available")
  })
})
