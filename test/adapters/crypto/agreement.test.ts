// The two Crypto adapters must agree bit for bit: the server runs node:crypto, clients and
// auditors run @noble, and a disagreement would make one reject what the other accepted.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { nobleCrypto, NobleCryptoLive } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { Crypto } from "../../../src/ports/Crypto.js"
import { fromHex, toHex } from "../../../src/domain/bytes.js"

const node = nodeCrypto.ed25519
const noble = nobleCrypto.ed25519
const seed = fc.uint8Array({ minLength: 32, maxLength: 32 })
const message = fc.uint8Array({ maxLength: 300 })
const flip = (bytes: Uint8Array, bit: number): Uint8Array => {
  const out = bytes.slice()
  const i = bit % (out.length * 8)
  out[i >>> 3]! ^= 1 << (i & 7)
  return out
}
/** Both verify, neither throws, and they agree; returns the common answer. */
const bothVerify = (publicKey: Uint8Array, msg: Uint8Array, signature: Uint8Array): boolean => {
  const a = node.verify(publicKey, msg, signature)
  const b = noble.verify(publicKey, msg, signature)
  expect(b).toBe(a)
  return a
}

describe("node:crypto and @noble", () => {
  it("hash alike (and match FIPS 180-2's example)", () => {
    const abc = new TextEncoder().encode("abc")
    expect(toHex(nodeCrypto.sha256(abc))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(toHex(nobleCrypto.sha256(abc))).toBe(toHex(nodeCrypto.sha256(abc)))
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1000 }), (data) => {
        expect(toHex(nobleCrypto.sha256(data))).toBe(toHex(nodeCrypto.sha256(data)))
      })
    )
  })

  it("derive the same public keys (and RFC 8032's test 1)", () => {
    const rfcSeed = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")!
    expect(toHex(node.publicKey(rfcSeed))).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    fc.assert(
      fc.property(seed, (s) => {
        expect(toHex(noble.publicKey(s))).toBe(toHex(node.publicKey(s)))
      })
    )
  })

  it("sign alike, and both accept the signature", () => {
    fc.assert(
      fc.property(seed, message, (s, m) => {
        const signature = node.sign(s, m)
        expect(toHex(noble.sign(s, m))).toBe(toHex(signature))
        expect(bothVerify(node.publicKey(s), m, signature)).toBe(true)
      })
    )
  })

  it("sign in the background the same bytes as in place (node: on libuv's pool)", async () => {
    const signBoth = (s: Uint8Array, m: Uint8Array) =>
      Effect.all([NodeCryptoLive, NobleCryptoLive].map((layer) =>
        Effect.flatMap(Crypto, (crypto) => crypto.signInBackground(s, m)).pipe(Effect.provide(layer))))
    await fc.assert(
      fc.asyncProperty(seed, message, async (s, m) => {
        const [fromNode, fromNoble] = await Effect.runPromise(signBoth(s, m))
        expect(toHex(fromNode!)).toBe(toHex(node.sign(s, m)))
        expect(toHex(fromNoble!)).toBe(toHex(node.sign(s, m)))
      }),
      { numRuns: 50 }
    )
    // A bad seed is a defect, as in place.
    const bad = Effect.flatMap(Crypto, (crypto) => crypto.signInBackground(new Uint8Array(31), new Uint8Array(1)))
    await expect(Effect.runPromise(Effect.provide(bad, NodeCryptoLive))).rejects.toThrow(/32 bytes/)
  })

  it("both refuse a flipped bit in the signature, the message or the key", () => {
    fc.assert(
      fc.property(seed, message, fc.nat(), (s, m, bit) => {
        const publicKey = node.publicKey(s)
        const signature = node.sign(s, m)
        expect(bothVerify(publicKey, m, flip(signature, bit))).toBe(false)
        expect(bothVerify(flip(publicKey, bit), m, signature)).toBe(false)
        if (m.length > 0) expect(bothVerify(publicKey, flip(m, bit), signature)).toBe(false)
      })
    )
  })

  it("both answer false, never throw, for junk of any length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), message, fc.uint8Array({ maxLength: 70 }), (publicKey, m, signature) => {
        expect(bothVerify(publicKey, m, signature)).toBe(false)
      })
    )
    fc.assert(
      fc.property(seed, message, fc.uint8Array({ minLength: 64, maxLength: 64 }), (s, m, signature) => {
        expect(bothVerify(node.publicKey(s), m, signature)).toBe(false)
      })
    )
    const key32 = fc.uint8Array({ minLength: 32, maxLength: 32 })
    fc.assert(
      fc.property(key32, message, fc.uint8Array({ minLength: 64, maxLength: 64 }), (publicKey, m, signature) => {
        expect(bothVerify(publicKey, m, signature)).toBe(false)
      })
    )
  })

  it("refuse seeds that are not 32 bytes", () => {
    for (const c of [nodeCrypto, nobleCrypto]) {
      expect(() => c.ed25519.publicKey(new Uint8Array(31))).toThrow(RangeError)
      expect(() => c.ed25519.sign(new Uint8Array(33), new Uint8Array(1))).toThrow(RangeError)
    }
  })

  it("on crafted small-order keys both accept, and both refuse a malleated S", () => {
    // With the identity point as public key (canonical, or non-canonically as y = 1 + p),
    // R = B and S = 1 verify for any message. OpenSSL accepts such keys, and @noble's ZIP-215
    // rules (nobleCrypto.ts) accept them too, so an auditor on @noble never flags a leaf the
    // server verified. Whether the service should accept small-order keys at all is a policy
    // question above the adapters.
    const one = fromHex("01" + "00".repeat(31))!
    const identity = one
    const identityNonCanonical = fromHex("ee" + "ff".repeat(30) + "7f")!
    const signature = new Uint8Array([...basePoint, ...one])
    for (const key of [identity, identityNonCanonical]) {
      for (const m of [new Uint8Array(0), new TextEncoder().encode("anything")]) {
        expect(bothVerify(key, m, signature)).toBe(true)
      }
    }
    // S + L is the same scalar spelled differently: RFC 8032 requires S < L, and both refuse.
    const s = new Uint8Array(32).fill(3)
    const m = new Uint8Array(0)
    const good = node.sign(s, m)
    let S = 0n
    for (let i = 63; i >= 32; i--) S = (S << 8n) + BigInt(good[i]!)
    S += 2n ** 252n + 27742317777372353535851937790883648493n
    const malleated = good.slice()
    for (let i = 32; i < 64; i++) {
      malleated[i] = Number(S & 0xffn)
      S >>= 8n
    }
    expect(bothVerify(node.publicKey(s), m, malleated)).toBe(false)
  })
})

// The Ed25519 base point B, in its standard encoding.
const basePoint = fromHex("5866666666666666666666666666666666666666666666666666666666666666")!
