// docs/spec/profile.md section 1: U64 and B64 encode and strictly decode; canonical decimals.

import { base64, base64urlnopad } from "@scure/base"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toHex } from "../../src/domain/bytes.js"
import { decodeB64, decodeU64, encodeB64, encodeU64, parseDecimal } from "../../src/domain/encoding.js"
import { profileVectors as v } from "./profileVectors.js"

describe("U64 and B64", () => {
  it("decode the vectors' hashes and keys and spell them back", () => {
    const fromU64 = decodeU64(v.leaf.leaf_hash_u64)
    const fromB64 = decodeB64(v.leaf.leaf_hash_b64)
    expect(fromU64).toBeDefined()
    expect(toHex(fromU64!)).toBe(toHex(fromB64!))
    expect(encodeU64(fromB64!)).toBe(v.leaf.leaf_hash_u64)
    expect(encodeB64(fromU64!)).toBe(v.leaf.leaf_hash_b64)
    expect(decodeU64(v.agent.public_key_u64)?.length).toBe(32)
  })

  it("know RFC 4648's examples", () => {
    const cases: Array<[string, string, string]> = [
      ["", "", ""],
      ["f", "Zg==", "Zg"],
      ["fo", "Zm8=", "Zm8"],
      ["foo", "Zm9v", "Zm9v"],
      ["foob", "Zm9vYg==", "Zm9vYg"],
      ["fooba", "Zm9vYmE=", "Zm9vYmE"],
      ["foobar", "Zm9vYmFy", "Zm9vYmFy"]
    ]
    for (const [plain, b64, u64] of cases) {
      const bytes = new TextEncoder().encode(plain)
      expect(encodeB64(bytes)).toBe(b64)
      expect(encodeU64(bytes)).toBe(u64)
      expect(decodeB64(b64)).toEqual(bytes)
      expect(decodeU64(u64)).toEqual(bytes)
    }
    expect(encodeB64(Uint8Array.of(0xfb, 0xff))).toBe("+/8=")
    expect(encodeU64(Uint8Array.of(0xfb, 0xff))).toBe("-_8")
  })

  it("refuse every non-canonical spelling", () => {
    // B64: padding is required and exact, the alphabet is + and /, trailing bits are zero.
    for (const bad of ["Zg", "Zg=", "Zg===", "Zh==", "Zm8", "Zm9=", "-_8=", "Zm9v\n", " Zm9v", "Zm 9v", "Z===", "=", "Zm9v===="]) {
      expect(decodeB64(bad), bad).toBeUndefined()
    }
    // U64: no padding at all, the alphabet is - and _, trailing bits are zero.
    for (const bad of ["Zg==", "Zg=", "Zh", "Zm9", "+/8", "Z", "Zm9v\n", "Zm 9v", "Zm9vY"]) {
      expect(decodeU64(bad), bad).toBeUndefined()
    }
  })

  it("round-trip any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(decodeU64(encodeU64(bytes))).toEqual(bytes)
        expect(decodeB64(encodeB64(bytes))).toEqual(bytes)
        expect(encodeU64(bytes)).not.toMatch(/[=+/]/)
      })
    )
  })

  it("accept a string only as the encoding of its own bytes", () => {
    const alphabet = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= ")
    fc.assert(
      fc.property(fc.stringOf(alphabet, { maxLength: 12 }), (text) => {
        const u = decodeU64(text)
        if (u !== undefined) expect(encodeU64(u)).toBe(text)
        const b = decodeB64(text)
        if (b !== undefined) expect(encodeB64(b)).toBe(text)
      }),
      { numRuns: 2000 }
    )
  })
})

describe("the hand-written codec", () => {
  // @scure/base was the codec before; it stays the reference the faster one must agree with.
  const scure = (codec: typeof base64, text: string) => {
    try {
      const bytes = codec.decode(text)
      return codec.encode(bytes) === text ? bytes : undefined
    } catch {
      return undefined
    }
  }

  it("encodes as @scure/base does", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(encodeU64(bytes)).toBe(base64urlnopad.encode(bytes))
        expect(encodeB64(bytes)).toBe(base64.encode(bytes))
      })
    )
  })

  it("encodes inputs of a leaf's or a body's length (the byte-array path) as @scure/base does", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 90, maxLength: 2_000 }), (bytes) => {
        expect(encodeU64(bytes)).toBe(base64urlnopad.encode(bytes))
        expect(encodeB64(bytes)).toBe(base64.encode(bytes))
        expect(decodeU64(encodeU64(bytes))).toEqual(bytes)
      })
    )
  })

  it("accepts and refuses exactly the strings @scure/base's strict round trip does", () => {
    const letter = fc.constantFrom(..."AZaz09+/-_=é\u0000 QgwA")
    fc.assert(
      fc.property(fc.stringOf(letter, { maxLength: 14 }), (text) => {
        expect(decodeU64(text)).toEqual(scure(base64urlnopad, text))
        expect(decodeB64(text)).toEqual(scure(base64, text))
      }),
      { numRuns: 5000 }
    )
  })
})

describe("parseDecimal", () => {
  it("reads canonical non-negative safe integers only", () => {
    expect(parseDecimal("0")).toBe(0)
    expect(parseDecimal("65793")).toBe(65793)
    expect(parseDecimal("9007199254740991")).toBe(Number.MAX_SAFE_INTEGER)
    for (const bad of ["", "00", "01", "-1", "+1", " 1", "1 ", "1e3", "1.0", "0x10", "9007199254740992", "١"]) {
      expect(parseDecimal(bad), bad).toBeUndefined()
    }
  })

  it("inverts String for every safe integer", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(parseDecimal(String(n))).toBe(n)
      })
    )
  })
})
