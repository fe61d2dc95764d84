// The Crypto contract (src/ports/Crypto.ts, src/domain/crypto.ts), held against published
// test vectors rather than against another adapter: RFC 8032 section 7.1 tests 1 to 3 for
// Ed25519 and the FIPS 180-4 examples for SHA-256. That node:crypto and @noble agree with
// each other on random inputs is test/adapters/crypto/agreement.test.ts; this suite is
// what any single adapter must pass, including one added later on its own.

import { describe, expect, it } from "vitest"
import { Effect, type Layer } from "effect"
import fc from "fast-check"
import { fromHex, toHex, utf8 } from "../../src/domain/bytes.js"
import type { CryptoPrimitives } from "../../src/domain/crypto.js"
import { Crypto } from "../../src/ports/Crypto.js"

export interface CryptoUnderTest {
  readonly layer: Layer.Layer<Crypto>
}

const hex = (text: string): Uint8Array => {
  const bytes = fromHex(text)
  if (bytes === undefined) throw new Error(`bad hex in a test vector: ${text}`)
  return bytes
}

// RFC 8032 section 7.1, TEST 1 to TEST 3: secret key (the seed), public key, message, signature.
const RFC8032 = [
  {
    name: "TEST 1 (empty message)",
    seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
  },
  {
    name: "TEST 2 (one byte)",
    seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
  },
  {
    name: "TEST 3 (two bytes)",
    seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
  }
] as const

// FIPS 180-4 examples (as published with the standard): one block, empty, two blocks.
const SHA256 = [
  { input: "", digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
  { input: "abc", digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
  {
    input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
  }
] as const

/** The bytes at an odd offset inside a larger buffer: catches adapters that read `.buffer` whole. */
const inLargerBuffer = (bytes: Uint8Array): Uint8Array => {
  const backing = new Uint8Array(bytes.length + 10).fill(0xa5)
  backing.set(bytes, 3)
  return backing.subarray(3, 3 + bytes.length)
}

const flipBit = (bytes: Uint8Array, bit: number): Uint8Array => {
  const out = bytes.slice()
  out[bit >>> 3]! ^= 1 << (bit & 7)
  return out
}

// The group order L: an S of L or more is not a valid signature scalar (RFC 8032 5.1.7).
const L = 2n ** 252n + 27742317777372353535851937790883648493n

const withS = (signature: Uint8Array, s: bigint): Uint8Array => {
  const out = signature.slice()
  for (let i = 32; i < 64; i++) {
    out[i] = Number(s & 0xffn)
    s >>= 8n
  }
  return out
}

const sOf = (signature: Uint8Array): bigint => {
  let s = 0n
  for (let i = 63; i >= 32; i--) s = (s << 8n) + BigInt(signature[i]!)
  return s
}

export const cryptoContract = (name: string, adapter: CryptoUnderTest): void => {
  describe(`Crypto contract: ${name}`, () => {
    const crypto: CryptoPrimitives = Effect.runSync(Effect.provide(Crypto, adapter.layer))
    const { sha256, ed25519 } = crypto

    it("hashes the FIPS 180-4 examples", () => {
      for (const { input, digest } of SHA256) {
        const out = sha256(utf8(input))
        expect(out).toBeInstanceOf(Uint8Array)
        expect(toHex(out)).toBe(digest)
        expect(toHex(sha256(inLargerBuffer(utf8(input))))).toBe(digest)
      }
    })

    it("hashes a million 'a' (FIPS 180-4's long example)", () => {
      const million = new Uint8Array(1_000_000).fill(0x61)
      expect(toHex(sha256(million))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    })

    for (const vector of RFC8032) {
      it(`matches RFC 8032 section 7.1 ${vector.name}`, () => {
        const seed = hex(vector.seed)
        const message = hex(vector.message)
        expect(toHex(ed25519.publicKey(seed))).toBe(vector.publicKey)
        expect(toHex(ed25519.sign(seed, message))).toBe(vector.signature)
        expect(ed25519.verify(hex(vector.publicKey), message, hex(vector.signature))).toBe(true)
        // Views into larger buffers read only their own bytes.
        expect(toHex(ed25519.publicKey(inLargerBuffer(seed)))).toBe(vector.publicKey)
        expect(toHex(ed25519.sign(inLargerBuffer(seed), inLargerBuffer(message)))).toBe(vector.signature)
        expect(ed25519.verify(inLargerBuffer(hex(vector.publicKey)), inLargerBuffer(message), inLargerBuffer(hex(vector.signature)))).toBe(true)
      })
    }

    it("refuses the RFC 8032 signatures on another message, key or signature", () => {
      const [one, two] = RFC8032
      expect(ed25519.verify(hex(one.publicKey), hex(two.message), hex(one.signature))).toBe(false)
      expect(ed25519.verify(hex(two.publicKey), hex(one.message), hex(one.signature))).toBe(false)
      expect(ed25519.verify(hex(one.publicKey), hex(one.message), hex(two.signature))).toBe(false)
      for (const bit of [0, 255, 256, 511]) {
        expect(ed25519.verify(hex(one.publicKey), hex(one.message), flipBit(hex(one.signature), bit))).toBe(false)
      }
    })

    it("refuses a signature whose S is not below the group order", () => {
      const { publicKey, message, signature } = RFC8032[1]
      const good = hex(signature)
      expect(ed25519.verify(hex(publicKey), hex(message), withS(good, sOf(good) + L))).toBe(false)
      expect(ed25519.verify(hex(publicKey), hex(message), withS(good, 2n ** 256n - 1n))).toBe(false)
    })

    it("signs deterministically, and its signatures verify", () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 500 }), (seed, message) => {
          const signature = ed25519.sign(seed, message)
          expect(signature).toHaveLength(64)
          expect(toHex(ed25519.sign(seed, message))).toBe(toHex(signature))
          const publicKey = ed25519.publicKey(seed)
          expect(publicKey).toHaveLength(32)
          expect(ed25519.verify(publicKey, message, signature)).toBe(true)
        }),
        { numRuns: 50 }
      )
    })

    it("does not change its inputs", () => {
      const { seed, message } = RFC8032[2]
      const s = hex(seed)
      const m = hex(message)
      const signature = ed25519.sign(s, m)
      const publicKey = ed25519.publicKey(s)
      ed25519.verify(publicKey, m, signature)
      sha256(m)
      expect(toHex(s)).toBe(seed)
      expect(toHex(m)).toBe(message)
      expect(toHex(signature)).toBe(RFC8032[2].signature)
      expect(toHex(publicKey)).toBe(RFC8032[2].publicKey)
    })

    it("verify answers false, never throws, for keys and signatures of the wrong length", () => {
      const { publicKey, message, signature } = RFC8032[0]
      const key = hex(publicKey)
      const sig = hex(signature)
      const m = hex(message)
      for (const length of [0, 1, 31, 33, 64]) {
        const badKey = new Uint8Array(length)
        badKey.set(key.subarray(0, Math.min(length, 32)))
        expect(ed25519.verify(badKey, m, sig)).toBe(false)
      }
      for (const length of [0, 1, 32, 63, 65, 128]) {
        const badSig = new Uint8Array(length)
        badSig.set(sig.subarray(0, Math.min(length, 64)))
        expect(ed25519.verify(key, m, badSig)).toBe(false)
      }
      // The right signature with a byte too many: trailing junk is not ignored.
      expect(ed25519.verify(key, m, new Uint8Array([...sig, 0]))).toBe(false)
      expect(ed25519.verify(new Uint8Array([...key, 0]), m, sig)).toBe(false)
    })

    it("verify answers false, never throws, for junk keys and signatures of the right length", () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.uint8Array({ maxLength: 100 }),
          fc.uint8Array({ minLength: 64, maxLength: 64 }),
          (key, message, signature) => {
            expect(ed25519.verify(key, message, signature)).toBe(false)
          }
        ),
        { numRuns: 200 }
      )
      // All-ones is not a canonical point encoding; all-zero is a point of small order.
      const m = utf8("x")
      expect(ed25519.verify(new Uint8Array(32).fill(0xff), m, new Uint8Array(64))).toBe(false)
      expect(ed25519.verify(new Uint8Array(32), m, new Uint8Array(64).fill(0xff))).toBe(false)
    })

    it("refuses seeds that are not 32 bytes", () => {
      for (const length of [0, 31, 33, 64]) {
        expect(() => ed25519.publicKey(new Uint8Array(length))).toThrow(RangeError)
        expect(() => ed25519.sign(new Uint8Array(length), utf8("m"))).toThrow(RangeError)
      }
    })
  })
}
