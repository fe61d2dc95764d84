// grant, grant.revoke, dm and capsule (docs/spec/profile.md section 5): each refusal once, and the
// accepted paths the views then show.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { CIPHERTEXT_LIMIT } from "../../../src/domain/entries/entryRule.js"
import { capsuleSlot } from "../../../src/domain/views/capsuleSlot.js"
import { grantsView } from "../../../src/domain/views/grantsView.js"
import { inboxView } from "../../../src/domain/views/inboxView.js"
import {
  capsulePayload,
  ciphertext,
  claimPayload,
  dmPayload,
  makeAgent,
  PureLog,
  rotatePayload,
  slotOf,
  x25519Key
} from "../../support/identityAgents.js"

let run = 0
const setup = () => {
  const label = `msg-${++run}`
  const log = new PureLog({ label })
  const bob = makeAgent(`${label} bob`)
  const alice = makeAgent(`${label} alice`)
  const carol = makeAgent(`${label} carol`)
  const bobClaim = log.accept(bob, "claim", claimPayload("bob", bob))
  return { log, bob, alice, carol, bobClaim }
}

const sendDm = (log: PureLog, from: ReturnType<typeof makeAgent>, to: string, grant: number, x25519Index: number, ct = ciphertext(`dm ${Math.random()}`)) => {
  const { payload, body } = dmPayload(to, grant, x25519Index, ct)
  return log.submit(from, "dm", payload, body)
}

describe("grant", () => {
  it("belongs to its signer, with its use, limit and until", () => {
    const { log, bob, alice } = setup()
    const index = log.accept(bob, "grant", { sender: alice.kid, use: "dm", limit: 2, until: 1_900_000_000 })
    expect(grantsView(log.state, bob.kid, undefined, log.now).grants).toEqual([
      { index, logged: log.now, signer: bob.kid, sender: alice.kid, use: "dm", limit: 2, until: 1_900_000_000, uses: 0, revoked_index: null, in_force: true }
    ])
  })

  it("refuses an until already passed at logged (payload_invalid)", () => {
    const { log, bob } = setup()
    expect(log.submit(bob, "grant", { sender: "*", use: "dm", until: Math.floor(log.now / 1000) }).refused).toBe("payload_invalid")
  })

  it("refuses another use, a limit below 1 or a sender that is not a did:key or * (payload_invalid)", () => {
    const { log, bob } = setup()
    expect(log.submit(bob, "grant", { sender: "*", use: "post" }).refused).toBe("payload_invalid")
    expect(log.submit(bob, "grant", { sender: "*", use: "dm", limit: 0 }).refused).toBe("payload_invalid")
    expect(log.submit(bob, "grant", { sender: "anyone", use: "dm" }).refused).toBe("payload_invalid")
  })
})

describe("grant.revoke", () => {
  it("ends the grant from its leaf on", () => {
    const { log, bob, alice, bobClaim } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    expect(sendDm(log, alice, bob.kid, grant, bobClaim).refused).toBeUndefined()
    const revoke = log.accept(bob, "grant.revoke", { grant_index: grant })
    expect(grantsView(log.state, bob.kid, undefined, log.now).grants[0]).toMatchObject({ revoked_index: revoke, in_force: false, uses: 1 })
    expect(sendDm(log, alice, bob.kid, grant, bobClaim).refused).toBe("grant_required")
  })

  it("refuses a leaf that is not a grant (payload_invalid)", () => {
    const { log, bob, bobClaim } = setup()
    expect(log.submit(bob, "grant.revoke", { grant_index: bobClaim }).refused).toBe("payload_invalid")
    expect(log.submit(bob, "grant.revoke", { grant_index: 999 }).refused).toBe("payload_invalid")
  })

  it("refuses a key that did not sign the grant (not_authorized)", () => {
    const { log, bob, alice } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    expect(log.submit(alice, "grant.revoke", { grant_index: grant }).refused).toBe("not_authorized")
  })

  it("refuses a second revocation (grant_revoked)", () => {
    const { log, bob } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    log.accept(bob, "grant.revoke", { grant_index: grant })
    expect(log.submit(bob, "grant.revoke", { grant_index: grant }).refused).toBe("grant_revoked")
  })
})

describe("dm", () => {
  it("is accepted under a grant in force and lands in the recipient's inbox", () => {
    const { log, bob, alice, bobClaim } = setup()
    const grant = log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
    const ct = ciphertext("hello")
    const sent = sendDm(log, alice, bob.kid, grant, bobClaim, ct)
    expect(sent.refused).toBeUndefined()
    const inbox = inboxView(log.state, bob.kid, { from: 0, limit: 10 }, log.now)
    expect(inbox.indices).toEqual([sent.index])
    expect(inbox.messages[0]).toMatchObject({ from: alice.kid, to: bob.kid, grant_index: grant, x25519_index: bobClaim, size: ct.length, body: { state: "available" } })
  })

  it("refuses a grant_index that is no grant (payload_invalid)", () => {
    const { log, bob, alice, bobClaim } = setup()
    expect(sendDm(log, alice, bob.kid, bobClaim, bobClaim).refused).toBe("payload_invalid")
  })

  it("refuses a recipient that holds no name (recipient_unknown)", () => {
    const { log, alice, carol, bobClaim } = setup()
    const grant = log.accept(carol, "grant", { sender: "*", use: "dm" })
    expect(sendDm(log, alice, carol.kid, grant, bobClaim).refused).toBe("recipient_unknown")
  })

  it("refuses a recipient key rotated away from its name (recipient_unknown)", () => {
    const { log, bob, alice, bobClaim } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    const next = makeAgent(`${run} bob next`)
    log.accept(bob, "key.rotate", rotatePayload("bob", next, bob.kid))
    expect(sendDm(log, alice, bob.kid, grant, bobClaim).refused).toBe("recipient_unknown")
    // The old key's grant does not serve the new key.
    expect(sendDm(log, alice, next.kid, grant, bobClaim).refused).toBe("grant_required")
  })

  it("refuses without a grant in force (grant_required): another recipient's, another sender's, revoked, ended, used up", () => {
    const { log, bob, alice, carol, bobClaim } = setup()
    log.accept(carol, "claim", claimPayload("carol", carol))
    const carols = log.accept(carol, "grant", { sender: "*", use: "dm" })
    expect(sendDm(log, alice, bob.kid, carols, bobClaim).refused).toBe("grant_required")

    const forCarol = log.accept(bob, "grant", { sender: carol.kid, use: "dm" })
    expect(sendDm(log, alice, bob.kid, forCarol, bobClaim).refused).toBe("grant_required")

    const revoked = log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
    log.accept(bob, "grant.revoke", { grant_index: revoked })
    expect(sendDm(log, alice, bob.kid, revoked, bobClaim).refused).toBe("grant_required")

    const until = Math.floor(log.now / 1000) + 10
    const ending = log.accept(bob, "grant", { sender: alice.kid, use: "dm", until })
    log.now = until * 1000 - 1
    expect(sendDm(log, alice, bob.kid, ending, bobClaim).refused).toBeUndefined()
    log.now = until * 1000
    expect(sendDm(log, alice, bob.kid, ending, bobClaim).refused).toBe("grant_required")

    const limited = log.accept(bob, "grant", { sender: "*", use: "dm", limit: 2 })
    expect(sendDm(log, alice, bob.kid, limited, bobClaim).refused).toBeUndefined()
    expect(sendDm(log, carol, bob.kid, limited, bobClaim).refused).toBeUndefined()
    expect(sendDm(log, alice, bob.kid, limited, bobClaim).refused).toBe("grant_required")
  })

  it("refuses an x25519_index that set no X25519 key of the recipient's name (payload_invalid)", () => {
    const { log, bob, alice, carol } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    const carolClaim = log.accept(carol, "claim", claimPayload("carol", carol))
    expect(sendDm(log, alice, bob.kid, grant, carolClaim).refused).toBe("payload_invalid")
    expect(sendDm(log, alice, bob.kid, grant, grant).refused).toBe("payload_invalid")
  })

  it("refuses a replaced X25519 key (x25519_stale) and accepts the current one", () => {
    const { log, bob, alice, bobClaim } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    const set = log.accept(bob, "key.x25519", { name: "bob", x25519: x25519Key(`${run} bob 2`) })
    expect(sendDm(log, alice, bob.kid, grant, bobClaim).refused).toBe("x25519_stale")
    expect(sendDm(log, alice, bob.kid, grant, set).refused).toBeUndefined()
  })

  it("refuses ciphertext over 64 KiB (body_too_large)", () => {
    const { log, bob, alice, bobClaim } = setup()
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    expect(sendDm(log, alice, bob.kid, grant, bobClaim, ciphertext("big", CIPHERTEXT_LIMIT)).refused).toBeUndefined()
    expect(sendDm(log, alice, bob.kid, grant, bobClaim, ciphertext("bigger", CIPHERTEXT_LIMIT + 1)).refused).toBe("body_too_large")
  })
})

describe("capsule", () => {
  it("belongs to its first writer; the owner's later write replaces the current ciphertext", () => {
    const { log, alice } = setup()
    const one = capsulePayload("notes", ciphertext("v1"))
    const first = log.accept(alice, "capsule", one.payload, one.body)
    const two = capsulePayload("notes", ciphertext("v2"))
    const second = log.accept(alice, "capsule", two.payload, two.body)
    expect(Either.getOrThrow(capsuleSlot(log.state, slotOf("notes"), log.now))).toMatchObject({
      slot: slotOf("notes"), owner: alice.kid, first_index: first, index: second, ct_hash: two.payload.ct_hash, writes: [first, second], size: second + 1
    })
  })

  it("refuses another key writing the slot (slot_taken)", () => {
    const { log, alice, carol } = setup()
    const one = capsulePayload("shared", ciphertext("a"))
    log.accept(alice, "capsule", one.payload, one.body)
    const two = capsulePayload("shared", ciphertext("c"))
    expect(log.submit(carol, "capsule", two.payload, two.body).refused).toBe("slot_taken")
  })

  it("refuses ciphertext over 64 KiB (body_too_large)", () => {
    const { log, alice } = setup()
    const big = capsulePayload("big", ciphertext("big", CIPHERTEXT_LIMIT + 1))
    expect(log.submit(alice, "capsule", big.payload, big.body).refused).toBe("body_too_large")
  })

  it("refuses a slot that is not U64 of 32 bytes (payload_invalid)", () => {
    const { log, alice } = setup()
    const p = capsulePayload("x", ciphertext("x"))
    expect(log.submit(alice, "capsule", { ...p.payload, slot: "short" }, p.body).refused).toBe("payload_invalid")
  })
})
