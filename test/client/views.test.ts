// Reading the service's JSON views (name view, inbox, capsule slot) and comparing views:
// the shapes the client accepts, and what it refuses.

import { Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { capsuleOf } from "../../src/client/capsules.js"
import { diffJson } from "../../src/client/jsonDiff.js"
import { inboxMessagesOf } from "../../src/client/messaging.js"
import { checkKeyChain, keyEstablishedBy, keyLeafSigner, type NameView, readNameView } from "../../src/client/nameLookup.js"
import type { EntryRead } from "../../src/client/read.js"
import { ClientError } from "../../src/client/errors.js"
import type { Envelope } from "../../src/domain/envelope/envelope.js"

const KID = "did:key:z6Mkqo5bhL3b4Ct3kfhDtyG6io8whxDXdkAaBA4pr8EiXyEB"
const X = "aFpxffDb-K__x42IkRW_W38V5tYIf6y0hCRf7NqY6zU"
const POLICY = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
const OTHER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
const envelope = (type: string, kid: string, payload: Record<string, unknown>) => ({ type, kid, payload }) as unknown as Envelope

describe("the name view", () => {
  it("gives the current kid, x25519 key and the leaf that set it", () => {
    expect(readNameView({ name: "alice", kid: KID, x25519: X, x25519_index: 3, size: 9, checkpoint_note: "Y2s" }, "alice")).toEqual({
      name: "alice", kid: KID, x25519: X, x25519Index: 3, size: 9, checkpointNote: "Y2s"
    })
    // A nested x25519 {key, index} reads the same.
    expect(readNameView({ kid: KID, x25519: { key: X, index: 3 } }, "alice")).toMatchObject({ name: "alice", x25519: X, x25519Index: 3 })
  })

  it("is a protocol error without them", () => {
    for (const json of [null, [], { kid: KID, x25519: X }, { x25519: X, x25519_index: 1 }, { kid: KID, x25519_index: 1 }]) {
      expect(() => readNameView(json, "alice")).toThrow(ClientError)
    }
  })

  it("reads a name without an X25519 key: x25519 \"\" and x25519_index null, both said", () => {
    expect(readNameView({ name: "sam", tier: "secret", kid: POLICY, kid_index: 4, x25519: "", x25519_index: null }, "sam"))
      .toMatchObject({ name: "sam", tier: "secret", kid: POLICY, kidIndex: 4, x25519: "", x25519Index: null })
    // Half of it is no view: a key without its leaf, a leaf without its key, "" without x25519_index.
    for (const json of [{ kid: KID, x25519: X, x25519_index: null }, { kid: KID, x25519: "", x25519_index: 3 }, { kid: KID, x25519: "" }]) {
      expect(() => readNameView(json, "alice"), JSON.stringify(json)).toThrow(ClientError)
    }
  })
})

describe("the key a leaf establishes for a name", () => {
  it("takes exactly the secret-bound claims the claim rule takes: the policy key's, as equal to the name", () => {
    const secret = envelope("claim", POLICY, { name: "sam", as: "sam" })
    expect(keyLeafSigner(secret)).toBe("policy")
    expect(keyEstablishedBy(secret, POLICY)).toEqual(Either.right({ name: "sam", kid: POLICY, type: "claim", tier: "secret" }))
    // Signed by another key (the log's not_policy), or read without leaf 0's policy key.
    expect(Either.getLeft(keyEstablishedBy(envelope("claim", OTHER, { name: "sam", as: "sam" }), POLICY))).toEqual(Option.some(expect.stringContaining(`signed by ${OTHER}, not by the policy key leaf 0 names`)))
    expect(Either.isLeft(keyEstablishedBy(secret, undefined))).toBe(true)
    // as naming another name (payload_invalid), or a member beyond the schema's (the log reads payloads strictly).
    expect(Either.getLeft(keyEstablishedBy(envelope("claim", POLICY, { name: "sam", as: "una" }), POLICY))).toEqual(Option.some(expect.stringContaining("as is the name it claims")))
    expect(Either.isLeft(keyEstablishedBy(envelope("claim", POLICY, { name: "sam", as: "sam", x25519: X }), POLICY))).toBe(true)
    expect(keyLeafSigner(envelope("claim", POLICY, { name: "sam", as: "sam", extra: 1 }))).toBeUndefined()
  })

  it("binds a key claim's signer, a rotation's new key, and an upgrade's only when the policy key signed it", () => {
    expect(keyEstablishedBy(envelope("claim", KID, { name: "alice", x25519: X }), undefined)).toEqual(Either.right({ name: "alice", kid: KID, type: "claim", tier: "key" }))
    const rotate = { name: "alice", new_kid: OTHER, new_sig: "c2ln" }
    expect(keyEstablishedBy(envelope("key.rotate", KID, rotate), undefined)).toEqual(Either.right({ name: "alice", kid: OTHER, type: "key.rotate", tier: "key" }))
    const upgrade = envelope("key.rotate", POLICY, { ...rotate, name: "sam", as: "sam" })
    expect(keyLeafSigner(upgrade)).toBe("policy")
    expect(keyEstablishedBy(upgrade, POLICY)).toEqual(Either.right({ name: "sam", kid: OTHER, type: "key.rotate", tier: "key" }))
    expect(Either.isLeft(keyEstablishedBy(envelope("key.rotate", KID, { ...rotate, name: "sam", as: "sam" }), POLICY))).toBe(true)
    expect(Either.isLeft(keyEstablishedBy(envelope("key.rotate", POLICY, { ...rotate, name: "sam", as: "una" }), POLICY))).toBe(true)
    expect(Either.getLeft(keyEstablishedBy(envelope("post", KID, { channel: "general" }), undefined))).toEqual(Option.some("a post, not a claim or a key.rotate"))
  })
})

describe("inbox and capsule answers", () => {
  it("list each message's index, envelope and ciphertext", () => {
    expect(inboxMessagesOf({ messages: [{ index: 4, envelope: { a: 1 }, ct: "AAAA", logged: 7 }, { index: 5 }] })).toEqual([
      { index: 4, envelope: { a: 1 }, ct: "AAAA", logged: 7 },
      { index: 5, envelope: undefined, ct: undefined, logged: null }
    ])
    expect(() => inboxMessagesOf({ messages: [{ envelope: {} }] })).toThrow(ClientError)
    expect(() => inboxMessagesOf({})).toThrow(ClientError)
  })

  it("give the slot's current write", () => {
    expect(capsuleOf({ slot: "s", index: 9, envelope: { e: 1 }, ct: "AA" })).toEqual({ index: 9, envelope: { e: 1 }, ct: "AA" })
    expect(capsuleOf({ slot: "s", current: { index: 9, body_or_ct: "AA" } })).toEqual({ index: 9, envelope: undefined, ct: "AA" })
  })
})

describe("comparing views", () => {
  it("reports every differing path, and members on one side only", () => {
    const log = { name: "alice", kid: KID, events: [{ index: 1 }, { index: 4 }], recovery: null }
    const server = { name: "alice", kid: "did:key:other", events: [{ index: 1 }], extra: true, recovery: null }
    expect(diffJson(log, server)).toEqual([
      { path: "/events/1", log: { index: 4 }, server: undefined },
      { path: "/extra", log: undefined, server: true },
      { path: "/kid", log: KID, server: "did:key:other" }
    ])
    expect(diffJson(log, structuredClone(log))).toEqual([])
  })
})

describe("the key events a name view lists, replayed from its claim", () => {
  const THIRD = "did:key:z6MkhdBMPb5cXG5yneRHc4i8XhQFwbVSgJmfVCtbggEaUD4K"
  const Y = "bFpxffDb-K__x42IkRW_W38V5tYIf6y0hCRf7NqY6zU"
  const rotateTo = (newKid: string) => ({ name: "alice", new_kid: newKid, new_sig: "c2ln" })
  /** The leaves by index, as lookupName reads them (read and proved: here given). */
  const chain = (leaves: Record<number, Envelope>) => (index: number) => Promise.resolve({ envelope: leaves[index] } as unknown as EntryRead)
  const view = (over: Partial<NameView>): NameView => ({
    name: "alice", tier: "key", kid: OTHER, kidIndex: 5, x25519: Y, x25519Index: 7, size: 8, checkpointNote: undefined,
    recovery: { kid: THIRD, index: 1, stands: true, boundIndex: undefined }, keyEvents: [1, 5, 7], ...over
  })
  const noPolicy = () => Promise.resolve(undefined)
  // alice claims with KID (recovery THIRD), KID rotates to OTHER at 5, OTHER sets a new X25519 key at 7.
  const honest: Record<number, Envelope> = {
    1: envelope("claim", KID, { name: "alice", x25519: X, recovery: THIRD }),
    5: envelope("key.rotate", KID, rotateTo(OTHER)),
    7: envelope("key.x25519", OTHER, { name: "alice", x25519: Y })
  }

  it("passes a chain the key rules allow, a rotation by the standing recovery key too", async () => {
    expect(await checkKeyChain(view({}), noPolicy, chain(honest))).toBe(3)
    const byRecovery = { ...honest, 5: envelope("key.rotate", THIRD, rotateTo(OTHER)) }
    expect(await checkKeyChain(view({}), noPolicy, chain(byRecovery))).toBe(3)
  })

  it("refuses a rotation or an X25519 key signed by a key that did not then act for the name", async () => {
    // A key.rotate by a key that never acted for alice, included in the log by a dishonest operator.
    const forged = { ...honest, 5: envelope("key.rotate", POLICY, rotateTo(OTHER)) }
    await expect(checkKeyChain(view({}), noPolicy, chain(forged))).rejects.toThrow(`signed by ${POLICY}, neither the key then acting for the name (${KID}) nor its standing recovery key`)
    // The recovery key once it held a name of its own (recovery_bound_index before the rotation).
    const lateRecovery = { ...honest, 5: envelope("key.rotate", THIRD, rotateTo(OTHER)) }
    await expect(checkKeyChain(view({ recovery: { kid: THIRD, index: 1, stands: false, boundIndex: 3 } }), noPolicy, chain(lateRecovery))).rejects.toThrow("neither the key then acting")
    // A key.x25519 by the key before the rotation, after it.
    const staleX = { ...honest, 7: envelope("key.x25519", KID, { name: "alice", x25519: Y }) }
    await expect(checkKeyChain(view({}), noPolicy, chain(staleX))).rejects.toThrow(`not by the key then acting for the name (${OTHER})`)
  })

  it("refuses a second claim, a chain that ends elsewhere, and indices out of order", async () => {
    const twice = { ...honest, 5: envelope("claim", OTHER, { name: "alice", x25519: X }) }
    await expect(checkKeyChain(view({}), noPolicy, chain(twice))).rejects.toThrow("a second claim of the name")
    // The view leaves the rotation out: the events end at the first key, not the view's.
    await expect(checkKeyChain(view({ keyEvents: [1], x25519: X, x25519Index: 1 }), noPolicy, chain(honest))).rejects.toThrow(`end at ${KID} (leaf 1), not at its key ${OTHER} (leaf 5)`)
    await expect(checkKeyChain(view({ x25519Index: 1, x25519: X, keyEvents: [1, 5] }), noPolicy, chain(honest))).resolves.toBe(2)
    await expect(checkKeyChain(view({ x25519Index: 1, x25519: X }), noPolicy, chain(honest))).rejects.toThrow(
      `the key events the view of alice lists end at X25519 key ${Y} (leaf 7), where the view says X25519 key ${X} (leaf 1)`)
    // Another key at the same leaf: the message names the two keys, not only the leaves.
    await expect(checkKeyChain(view({ x25519: X }), noPolicy, chain(honest))).rejects.toThrow(
      `the key events the view of alice lists end at X25519 key ${Y} (leaf 7), where the view says X25519 key ${X} (leaf 7)`)
    // A view that says the name has none.
    await expect(checkKeyChain(view({ x25519: "", x25519Index: null }), noPolicy, chain(honest))).rejects.toThrow(
      `end at X25519 key ${Y} (leaf 7), where the view says no X25519 key`)
    await expect(checkKeyChain(view({ keyEvents: [1, 1, 5, 7] }), noPolicy, chain(honest))).rejects.toThrow("out of log order")
  })
})
