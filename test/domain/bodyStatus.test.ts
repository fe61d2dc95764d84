// Ciphertext retention (docs/spec/service.md "Body status", docs/protocol.md section 9): a dm or
// capsule body is expired exactly from logged + retention_days * 86,400,000 ms, never
// before, with policy_index the charter leaf; other bodies never expire. A body fetched by
// digest is available while any entry naming it is; else a tombstone outranks expiry. The
// X-AICS-Body-Status header reads back as the status it was written from, and nothing else.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bodyExpiresAt, bodyStatus, bodyStatusHeader, DAY_MS, digestStatus, parseBodyStatusHeader, type BodyEntry, type BodyStatusView } from "../../src/domain/bodyStatus.js"
import { TOMBSTONE_REASONS } from "../../src/domain/governance/tombstones.js"
import { emptyLogState } from "../../src/domain/write/logState.js"
import { inboxView } from "../../src/domain/views/inboxView.js"
import { capsuleSlot } from "../../src/domain/views/capsuleSlot.js"
import { Either } from "effect"
import { GovLog, textBody } from "../support/governanceAgents.js"
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

  describe("of a digest several entries name", () => {
    // Posts and capsules whose bodies are the same bytes; one post and one capsule tombstoned.
    const log = new GovLog({ label: "digest status" })
    const [alice, mallory] = [makeAgent("digest alice"), makeAgent("digest mallory")]
    log.accept(alice, "claim", claimPayload("alice", alice))
    const text = textBody("the same bytes, named again and again")
    const post = { channel: "general", body_hash: text.body_hash, size: text.size }
    const capsule = capsulePayload("digest slot", text.body)
    const entries: Array<BodyEntry> = []
    const add = (type: "post" | "capsule") => {
      const index = type === "post" ? log.accept(alice, "post", post, text.body) : log.accept(mallory, "capsule", capsule.payload, capsule.body)
      entries.push({ index, type, logged: log.now })
      return index
    }
    const [, hiddenPost, , hiddenCapsule] = [add("post"), add("post"), add("capsule"), add("capsule"), add("capsule")]
    log.must(log.ownerOp("tombstone", { target_index: hiddenCapsule, reason_code: "spam" }))
    log.must(log.ownerOp("tombstone", { target_index: hiddenPost, reason_code: "privacy" }))
    const expiry = log.now + 90 * DAY_MS
    const nowArb = fc.constantFrom(log.now, expiry - 1, expiry, expiry + DAY_MS)

    it("is available while any entry makes it available, and otherwise a tombstone outranks expiry", () => {
      fc.assert(fc.property(fc.shuffledSubarray(entries), nowArb, (naming, now) => {
        const each = naming.map((entry) => ({ entry, view: bodyStatus(log.state, entry, now) }))
        const status = digestStatus(log.state, naming, now)
        const tombstoned = each.filter(({ view }) => view.state === "tombstoned").sort((a, b) => a.entry.index - b.entry.index)
        if (naming.length === 0) expect(status).toBeUndefined()
        else if (each.some(({ view }) => view.state === "available")) expect(status!.state).toBe("available")
        else expect(status).toEqual(tombstoned.length > 0 ? tombstoned[0]!.view : each[0]!.view)
        // The order the entries come in does not matter.
        expect(digestStatus(log.state, [...naming].reverse(), now)).toEqual(status)
      }), { numRuns: 300 })
    })

    it("is the entry's own status when one entry names it", () => {
      for (const entry of entries) {
        for (const now of [log.now, expiry]) expect(digestStatus(log.state, [entry], now)).toEqual(bodyStatus(log.state, entry, now))
      }
    })

    it("stays available through a tombstone or an expiry of another entry with the same bytes", () => {
      const [firstPost, , firstCapsule] = entries
      expect(digestStatus(log.state, entries, expiry + DAY_MS)!.state).toBe("available")
      expect(bodyStatus(log.state, entries[1]!, log.now).state).toBe("tombstoned")
      expect(bodyStatus(log.state, firstCapsule!, expiry).state).toBe("expired")
      expect(digestStatus(log.state, [firstCapsule!, firstPost!], expiry)!.state).toBe("available")
      // Only gone entries: the tombstone speaks, not the expiry.
      expect(digestStatus(log.state, [firstCapsule!, entries[3]!], expiry)).toMatchObject({ state: "tombstoned", reason_code: "spam" })
    })
  })

  describe("the X-AICS-Body-Status header, read back", () => {
    const view = fc.oneof(
      fc.constant<BodyStatusView>({ state: "available", tombstone_index: null, reason_code: null, policy_index: null }),
      fc.record({ index: fc.nat(), reason: fc.constantFrom(...TOMBSTONE_REASONS) })
        .map(({ index, reason }): BodyStatusView => ({ state: "tombstoned", tombstone_index: index, reason_code: reason, policy_index: null })),
      fc.nat().map((index): BodyStatusView => ({ state: "expired", tombstone_index: null, reason_code: null, policy_index: index }))
    )

    it("is the status it was written from", () => {
      fc.assert(fc.property(view, (status) => {
        expect(parseBodyStatusHeader(bodyStatusHeader(status))).toEqual(status)
      }))
      expect(parseBodyStatusHeader("unavailable")).toBe("unavailable")
    })

    it("is no status when spelt otherwise", () => {
      for (const header of [
        "", "Available", "available;x=1", "tombstoned", "tombstoned;tombstone_index=5", "tombstoned;reason_code=spam;tombstone_index=5",
        "tombstoned;tombstone_index=05;reason_code=spam", "tombstoned;tombstone_index=-1;reason_code=spam", "tombstoned;tombstone_index=5;reason_code=Spam",
        "expired", "expired;policy_index=", "expired;policy_index=0;x=1", "expired;policy=0", "hidden"
      ]) {
        expect(parseBodyStatusHeader(header), header).toBeUndefined()
      }
    })
  })
})
