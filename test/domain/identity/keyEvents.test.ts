// claim, key.rotate and key.x25519 (docs/spec/profile.md section 5): each refusal once, and what an
// accepted key event does to who may act for the name.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { didKeyFromPublicKey } from "../../../src/domain/identity/didKey.js"
import { rotationMessage } from "../../../src/domain/identity/possession.js"
import { ansLookup } from "../../../src/domain/views/ansLookup.js"
import { directoryView } from "../../../src/domain/views/directory.js"
import { keyView } from "../../../src/domain/views/keyView.js"
import { KEY_RECOVERY_NAMES_LISTED } from "../../../src/domain/views/limits.js"
import { nameView } from "../../../src/domain/views/nameView.js"
import { claimPayload, makeAgent, ORIGIN, PureLog, rotatePayload, x25519Key } from "../../support/identityAgents.js"

let run = 0
const setup = () => {
  const label = `ke-${++run}`
  const log = new PureLog({ label })
  const alice = makeAgent(`${label} alice`)
  const recovery = makeAgent(`${label} recovery`)
  const next = makeAgent(`${label} next`)
  const mallory = makeAgent(`${label} mallory`)
  log.accept(alice, "claim", claimPayload("alice", alice, recovery))
  return { log, alice, recovery, next, mallory }
}

describe("claim", () => {
  it("records the recovery key, binds the key and starts the name's events", () => {
    const { log, alice, recovery } = setup()
    const view = Either.getOrThrow(nameView(log.state, "alice"))
    expect(view).toMatchObject({ name: "alice", tier: "key", kid: alice.kid, kid_index: 1, recovery: recovery.kid, recovery_index: 1, x25519: alice.x25519, x25519_index: 1, claim_index: 1, indices: [1], size: 2 })
    expect(view.events).toEqual([{ type: "claim", index: 1, logged: log.now, signer: alice.kid, kid: alice.kid, x25519: alice.x25519, recovery: recovery.kid }])
  })

  it("refuses a key that holds a name (key_has_name)", () => {
    const { log, alice } = setup()
    expect(log.submit(alice, "claim", claimPayload("alice-two", alice)).refused).toBe("key_has_name")
  })

  it("refuses a key that held a name before a rotation (key_has_name): a key is bound once", () => {
    const { log, alice, next } = setup()
    log.accept(alice, "key.rotate", rotatePayload("alice", next, alice.kid))
    expect(log.submit(alice, "claim", claimPayload("alice-again", alice)).refused).toBe("key_has_name")
  })

  it("refuses a recovery key equal to the claiming key (payload_invalid)", () => {
    const { log, mallory } = setup()
    expect(log.submit(mallory, "claim", claimPayload("mallory", mallory, mallory)).refused).toBe("payload_invalid")
  })

  it("refuses a recovery key that holds or held a name (payload_invalid): it would rotate nothing", () => {
    const { log, alice, mallory, next } = setup()
    expect(log.submit(mallory, "claim", claimPayload("mallory", mallory, alice)).refused).toBe("payload_invalid")
    log.accept(alice, "key.rotate", rotatePayload("alice", next, alice.kid))
    // alice's first key is retired now, and stays unfit to recover a name.
    expect(log.submit(mallory, "claim", claimPayload("mallory", mallory, alice)).refused).toBe("payload_invalid")
  })

  it("refuses a recovery member that is not a did:key (payload_invalid)", () => {
    const { log, mallory } = setup()
    expect(log.submit(mallory, "claim", { name: "mallory", x25519: mallory.x25519, recovery: "did:key:nope" }).refused).toBe("payload_invalid")
  })
})

describe("key.rotate", () => {
  it("by the current key: the new key acts for the name, the old one is unbound for good", () => {
    const { log, alice, next, recovery } = setup()
    const index = log.accept(alice, "key.rotate", rotatePayload("alice", next, alice.kid))
    const view = Either.getOrThrow(nameView(log.state, "alice"))
    expect(view).toMatchObject({ kid: next.kid, kid_index: index, recovery: recovery.kid, x25519_index: 1, indices: [1, index], size: index + 1 })
    expect(view.events[1]).toEqual({ type: "key.rotate", index, logged: log.now, signer: alice.kid, prev_kid: alice.kid, kid: next.kid })
    expect(Either.getOrThrow(keyView(log.state, alice.kid, { from: 0, limit: 10 }))).toMatchObject({ name: "alice", current: false, bound_index: 1, unbound_index: index })
    expect(Either.getOrThrow(keyView(log.state, next.kid, { from: 0, limit: 10 }))).toMatchObject({ name: "alice", current: true, bound_index: index, unbound_index: null, seq: null, indices: [] })
    // The old key acts for the name no more.
    expect(log.submit(alice, "key.x25519", { name: "alice", x25519: x25519Key("old") }).refused).toBe("not_authorized")
    expect(log.submit(alice, "key.rotate", rotatePayload("alice", makeAgent(`${run} other`), next.kid)).refused).toBe("not_authorized")
    // The new one does.
    log.accept(next, "key.x25519", { name: "alice", x25519: x25519Key("new") })
  })

  it("by the recovery key, proven over the current key", () => {
    const { log, alice, next, recovery } = setup()
    const index = log.accept(recovery, "key.rotate", rotatePayload("alice", next, alice.kid))
    expect(Either.getOrThrow(nameView(log.state, "alice")).events[1]).toMatchObject({ signer: recovery.kid, prev_kid: alice.kid, kid: next.kid, index })
    // The recovery key stays the recovery key, and can rotate again.
    const third = makeAgent(`${run} third`)
    log.accept(recovery, "key.rotate", rotatePayload("alice", third, next.kid))
    expect(Either.getOrThrow(nameView(log.state, "alice")).kid).toBe(third.kid)
  })

  it("refuses a recovery key that came to act for a name (not_authorized), even once retired from it", () => {
    // The auditor's sequence (session 23): alice's recovery key claims a name of its own,
    // posts, is rotated away from it (it leaked, say), then tries to rotate alice.
    const { log, alice, recovery, next, mallory } = setup()
    log.accept(recovery, "claim", claimPayload("davey", recovery))
    expect(log.submit(recovery, "key.rotate", rotatePayload("alice", next, alice.kid)).refused).toBe("not_authorized")
    log.accept(recovery, "key.rotate", rotatePayload("davey", mallory, recovery.kid))
    expect(log.submit(recovery, "key.rotate", rotatePayload("alice", next, alice.kid)).refused).toBe("not_authorized")
    // The name stays with its current key, which still rotates it.
    log.accept(alice, "key.rotate", rotatePayload("alice", next, alice.kid))
    expect(Either.getOrThrow(nameView(log.state, "alice")).kid).toBe(next.kid)
  })

  it("shows in the views that a recovery key which took a name of its own no longer stands", () => {
    const { log, recovery, mallory } = setup()
    // Kept apart, named by two claims: it stands for both, and its view lists them.
    const bob = makeAgent(`${run} bob`)
    const bobClaim = log.accept(bob, "claim", claimPayload("bobby", bob, recovery))
    expect(Either.getOrThrow(nameView(log.state, "alice"))).toMatchObject({ recovery: recovery.kid, recovery_index: 1, recovery_stands: true, recovery_bound_index: null, size: 2 })
    expect(Either.getOrThrow(keyView(log.state, recovery.kid, { from: 0, limit: 10 }))).toMatchObject({
      name: null, seq: null, recovery_of: [{ name: "alice", claim_index: 1, stands: true }, { name: "bobby", claim_index: bobClaim, stands: true }], recovery_next_from: null
    })
    // It claims davey: the names keep `recovery` as logged, and say it stands no more since that leaf.
    const own = log.accept(recovery, "claim", claimPayload("davey", recovery))
    for (const name of ["alice", "bobby"]) {
      expect(Either.getOrThrow(nameView(log.state, name))).toMatchObject({ recovery: recovery.kid, recovery_stands: false, recovery_bound_index: own, size: own + 1 })
      expect(Either.getOrThrow(ansLookup(log.state, name))).toMatchObject({ recovery: recovery.kid, recovery_stands: false, recovery_bound_index: own, size: own + 1 })
    }
    expect(directoryView(log.state, { limit: 10 }).names.map((e) => [e.name, e.recovery_stands])).toEqual([["alice", false], ["bobby", false], ["davey", null]])
    expect(Either.getOrThrow(keyView(log.state, recovery.kid, { from: 0, limit: 10 }))).toMatchObject({
      name: "davey", bound_index: own, recovery_of: [{ name: "alice", claim_index: 1, stands: false }, { name: "bobby", claim_index: bobClaim, stands: false }]
    })
    expect(Either.getOrThrow(keyView(log.state, recovery.kid, { from: 0, limit: 10, recoveryFrom: 2 })).recovery_of).toEqual([{ name: "bobby", claim_index: bobClaim, stands: false }])
    // Retired from davey, it still stands for no name.
    log.accept(recovery, "key.rotate", rotatePayload("davey", mallory, recovery.kid))
    expect(Either.getOrThrow(nameView(log.state, "alice"))).toMatchObject({ recovery_stands: false, recovery_bound_index: own })
    // A key no claim named and that signed nothing has no view.
    expect(keyView(log.state, makeAgent(`${run} stranger`).kid, { from: 0, limit: 10 })).toEqual(Either.left("key_not_found"))
  })

  it("pages the names a key is the recovery key of, KEY_RECOVERY_NAMES_LISTED at a time", () => {
    const { log, recovery } = setup()
    const claims = [1]
    for (let i = 0; i < KEY_RECOVERY_NAMES_LISTED + 5; i++) {
      const agent = makeAgent(`${run} many ${i}`)
      claims.push(log.accept(agent, "claim", claimPayload(`many-${i}`, agent, recovery)))
    }
    const first = Either.getOrThrow(keyView(log.state, recovery.kid, { from: 0, limit: 10 }))
    expect(first.recovery_of.map((r) => r.claim_index)).toEqual(claims.slice(0, KEY_RECOVERY_NAMES_LISTED))
    expect(first.recovery_next_from).toBe(claims[KEY_RECOVERY_NAMES_LISTED])
    const rest = Either.getOrThrow(keyView(log.state, recovery.kid, { from: 0, limit: 10, recoveryFrom: first.recovery_next_from! }))
    expect(rest.recovery_of.map((r) => r.claim_index)).toEqual(claims.slice(KEY_RECOVERY_NAMES_LISTED))
    expect(rest.recovery_next_from).toBe(null)
  })

  it("refuses a name no one holds (name_unclaimed)", () => {
    const { log, alice, next } = setup()
    expect(log.submit(alice, "key.rotate", rotatePayload("nobody", next, alice.kid)).refused).toBe("name_unclaimed")
  })

  it("refuses a key that is neither current nor recovery (not_authorized)", () => {
    const { log, alice, next, mallory } = setup()
    expect(log.submit(mallory, "key.rotate", rotatePayload("alice", next, alice.kid)).refused).toBe("not_authorized")
  })

  it("refuses a new key that holds or held a name (key_has_name)", () => {
    const { log, alice, mallory } = setup()
    log.accept(mallory, "claim", claimPayload("mallory", mallory))
    expect(log.submit(alice, "key.rotate", rotatePayload("alice", mallory, alice.kid)).refused).toBe("key_has_name")
    expect(log.submit(alice, "key.rotate", rotatePayload("alice", alice, alice.kid)).refused).toBe("key_has_name")
  })

  it("refuses the recovery key as the new key (payload_invalid)", () => {
    const { log, alice, recovery } = setup()
    expect(log.submit(alice, "key.rotate", rotatePayload("alice", recovery, alice.kid)).refused).toBe("payload_invalid")
  })

  it("refuses a proof over another prev_kid, origin or name, or by another key (proof_invalid)", () => {
    const { log, alice, next, recovery, mallory } = setup()
    const bad = [
      rotatePayload("alice", next, recovery.kid),
      rotatePayload("alice", next, alice.kid, "other.test/aics"),
      { ...rotatePayload("alice", next, alice.kid), new_sig: rotatePayload("alice", mallory, alice.kid).new_sig },
      { ...rotatePayload("alice", next, alice.kid), new_sig: "not-a-signature" }
    ]
    for (const payload of bad) expect(log.submit(alice, "key.rotate", payload).refused).toBe("proof_invalid")
  })

  it("refuses a new key of small order even when its 'signature' verifies (proof_invalid)", () => {
    const { log, alice } = setup()
    const identity = new Uint8Array(32)
    identity[0] = 1
    const kid = didKeyFromPublicKey(identity)
    const forged = encodeU64(new Uint8Array([...identity, ...new Uint8Array(32)]))
    // OpenSSL accepts (R = identity, S = 0) for any message under the identity key.
    expect(nodeCrypto.ed25519.verify(identity, rotationMessage("alice", kid, ORIGIN, alice.kid), new Uint8Array([...identity, ...new Uint8Array(32)]))).toBe(true)
    expect(log.submit(alice, "key.rotate", { name: "alice", new_kid: kid, new_sig: forged }).refused).toBe("proof_invalid")
  })
})

describe("key.x25519", () => {
  it("sets the name's X25519 key and the leaf that set it", () => {
    const { log, alice } = setup()
    const key = x25519Key("second")
    const index = log.accept(alice, "key.x25519", { name: "alice", x25519: key })
    expect(Either.getOrThrow(nameView(log.state, "alice"))).toMatchObject({ x25519: key, x25519_index: index, indices: [1, index] })
  })

  it("refuses a name no one holds (name_unclaimed)", () => {
    const { log, alice } = setup()
    expect(log.submit(alice, "key.x25519", { name: "nobody", x25519: x25519Key("n") }).refused).toBe("name_unclaimed")
  })

  it("refuses any key but the current one, the recovery key included (not_authorized)", () => {
    const { log, recovery, mallory } = setup()
    expect(log.submit(mallory, "key.x25519", { name: "alice", x25519: x25519Key("m") }).refused).toBe("not_authorized")
    expect(log.submit(recovery, "key.x25519", { name: "alice", x25519: x25519Key("r") }).refused).toBe("not_authorized")
  })

  it("refuses a key that is not U64 of 32 bytes (payload_invalid)", () => {
    const { log, alice } = setup()
    expect(log.submit(alice, "key.x25519", { name: "alice", x25519: "AAAA" }).refused).toBe("payload_invalid")
  })
})
