// key.rotate's proof of possession (docs/spec/profile.md section 5): the NEW key signs
// JCS({"name","new_kid","origin","prev_kid"}) and new_sig is U64 of that signature. Checked
// with @noble/curves directly, not through the client's crypto module.

import { ed25519 } from "@noble/curves/ed25519.js"
import { describe, expect, it } from "vitest"
import { generateAgentKey, kidOfSeed, switchToKey } from "../../src/client/agentKey.js"
import { rotateDraft } from "../../src/client/payloads.js"
import { rotationMessage, rotationProof } from "../../src/client/rotation.js"
import { fromHex, fromUtf8 } from "../../src/domain/bytes.js"
import { decodeU64 } from "../../src/domain/encoding.js"
import { publicKeyFromDidKey } from "../../src/domain/identity/didKey.js"
import { profileVectors } from "../domain/profileVectors.js"

const OLD = profileVectors.agent.kid
const NEW_SEED = fromHex("1f".repeat(32))!
const facts = { name: "alice", origin: "example.test/aics", prevKid: OLD }

describe("the rotation proof of possession", () => {
  it("signs exactly the JCS of name, new_kid, origin and prev_kid", () => {
    const newKid = kidOfSeed(NEW_SEED)
    expect(fromUtf8(rotationMessage(facts, newKid))).toBe(
      `{"name":"alice","new_kid":"${newKid}","origin":"example.test/aics","prev_kid":"${OLD}"}`
    )
  })

  it("is the new key's Ed25519 signature, U64, deterministic, and binds every member", () => {
    const { newKid, newSig } = rotationProof(NEW_SEED, facts)
    expect(newKid).toBe(kidOfSeed(NEW_SEED))
    const sig = decodeU64(newSig)!
    expect(sig.length).toBe(64)
    const newPublic = publicKeyFromDidKey(newKid)!
    const message = rotationMessage(facts, newKid)
    expect(ed25519.verify(sig, message, newPublic)).toBe(true)
    expect(rotationProof(NEW_SEED, facts).newSig).toBe(newSig)
    // Not the old key's signature, and not valid for another move.
    expect(ed25519.verify(sig, message, publicKeyFromDidKey(OLD)!)).toBe(false)
    for (const other of [
      { ...facts, name: "bob" },
      { ...facts, origin: "other.test/aics" },
      { ...facts, prevKid: kidOfSeed(fromHex("2e".repeat(32))!) }
    ]) {
      expect(ed25519.verify(sig, rotationMessage(other, newKid), newPublic)).toBe(false)
    }
  })

  it("goes into a key.rotate payload {name, new_kid, new_sig}", () => {
    const { newKid, newSig } = rotationProof(NEW_SEED, facts)
    expect(rotateDraft("Alice", newKid, newSig)).toEqual({
      type: "key.rotate",
      payload: { name: "alice", new_kid: newKid, new_sig: newSig },
      body: null
    })
  })

  it("switches the key file to the new key at seq 0, keeping the X25519 key, the name and the old key", () => {
    const key = { ...generateAgentKey(), name: "alice", seq: 3, prev: "A".repeat(43), origin: "example.test/aics" }
    const switched = switchToKey(key, NEW_SEED, 42, "rotate")
    expect(switched).toMatchObject({
      kid: kidOfSeed(NEW_SEED),
      seq: 0,
      prev: null,
      receipts: [],
      name: "alice",
      next: null,
      origin: "example.test/aics",
      x25519Public: key.x25519Public
    })
    expect(switched.x25519Secret).toEqual(key.x25519Secret)
    expect(switched.previous).toEqual([
      { kid: key.kid, seed: expect.any(String), seq: 3, prev: key.prev, receipts: [], retired_by: 42, how: "rotate" }
    ])
  })
})
