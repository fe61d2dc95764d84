// docs/spec/profile.md section 2: did:key of an Ed25519 public key, both ways, strictly.

import { base58 } from "@scure/base"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromHex } from "../../../src/domain/bytes.js"
import { decodeU64, encodeU64 } from "../../../src/domain/encoding.js"
import { didKeyFromPublicKey, isDidKey, publicKeyFromDidKey } from "../../../src/domain/identity/didKey.js"
import { profileVectors as v } from "../profileVectors.js"

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("the agent of the vectors (%s)", (_, crypto) => {
  it("has the public key and did:key of its seed", () => {
    const publicKey = crypto.ed25519.publicKey(fromHex(v.agent.ed25519_seed_hex)!)
    expect(encodeU64(publicKey)).toBe(v.agent.public_key_u64)
    expect(didKeyFromPublicKey(publicKey)).toBe(v.agent.kid)
    expect(publicKeyFromDidKey(v.agent.kid)).toEqual(publicKey)
  })
})

describe("did:key", () => {
  it("names the W3C did:key test key the same way", () => {
    // The first Ed25519 example of the did:key method specification.
    const did = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    const publicKey = publicKeyFromDidKey(did)
    expect(publicKey?.length).toBe(32)
    expect(didKeyFromPublicKey(publicKey!)).toBe(did)
  })

  it("round-trips any 32 bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
        const did = didKeyFromPublicKey(key)
        expect(did.startsWith("did:key:z6Mk")).toBe(true)
        expect(publicKeyFromDidKey(did)).toEqual(key)
      })
    )
  })

  it("refuses anything but the canonical did:key of an Ed25519 key", () => {
    const key = decodeU64(v.agent.public_key_u64)!
    const body = v.agent.kid.slice("did:key:z".length)
    const bad = [
      "",
      "did:key:",
      "did:key:z",
      body,
      "DID:KEY:z" + body,
      "did:web:z" + body,
      "did:key:Z" + body, // another multibase
      "did:key:z" + body + "1", // trailing byte
      "did:key:z" + body.slice(0, -1), // a byte short
      "did:key:z" + body + " ",
      "did:key:z0" + body.slice(1), // not in the base58 alphabet
      "did:key:z1" + body, // a leading zero byte
      "did:key:z" + base58.encode(Uint8Array.of(0xec, 0x01, ...key)), // X25519 multicodec
      "did:key:z" + base58.encode(Uint8Array.of(0xed, 0x01, ...key.subarray(0, 31))),
      "did:key:z" + base58.encode(Uint8Array.of(0xed, 0x01, ...key, 0))
    ]
    for (const did of bad) {
      expect(publicKeyFromDidKey(did), did).toBeUndefined()
      expect(isDidKey(did)).toBe(false)
    }
    expect(isDidKey(v.agent.kid)).toBe(true)
    expect(() => didKeyFromPublicKey(new Uint8Array(31))).toThrow(RangeError)
  })

  it("answers the same when asked again, with bytes of the caller's own", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
      const did = didKeyFromPublicKey(key)
      expect(did).toHaveLength(56)
      const first = publicKeyFromDidKey(did)!
      first.fill(0)
      expect(publicKeyFromDidKey(did)).toEqual(key)
      expect(publicKeyFromDidKey(did + "1")).toBeUndefined()
    }))
  })
})
