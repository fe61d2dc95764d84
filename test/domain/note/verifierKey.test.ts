// C2SP signed-note key names and IDs, and the verifier key string (docs/spec/profile.md section 2).

import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromHex, fromUtf8, toHex } from "../../../src/domain/bytes.js"
import { decodeB64, encodeB64 } from "../../../src/domain/encoding.js"
import {
  formatVerifierKey,
  isValidKeyName,
  keyHash,
  keyHashHex,
  makeVerifierKey,
  parseVerifierKey
} from "../../../src/domain/note/verifierKey.js"
import { profileVectors as v, readTlogVector } from "../profileVectors.js"

const { sha256 } = nodeCrypto
const vkey = v.log_key.vkey

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("the log key of the vectors (%s)", (_, crypto) => {
  it("is SHA-256(\"aics reference log\") and has the published verifier key", () => {
    const seed = fromHex(v.log_key.seed_hex)!
    expect(toHex(crypto.sha256(new TextEncoder().encode("aics reference log")))).toBe(v.log_key.seed_hex)
    const key = makeVerifierKey(crypto.sha256, v.origin, crypto.ed25519.publicKey(seed))
    expect(keyHashHex(key.keyHash)).toBe("982d6186")
    expect(formatVerifierKey(key)).toBe(vkey)
    expect(fromUtf8(readTlogVector("vkey")).trim()).toBe(vkey)
  })
})

describe("parseVerifierKey", () => {
  it("reads the log's verifier key and Go's example key", () => {
    const key = parseVerifierKey(sha256, vkey)!
    expect(key.name).toBe("example.test/aics")
    expect(key.keyHash).toBe(0x982d6186)
    expect(key.publicKey).toEqual(decodeB64("AQGDK0gTe/NVmyNPLAFyABg73GUXcDVcyvbn03FsUdZb")!.subarray(1))
    expect(formatVerifierKey(key)).toBe(vkey)

    const go = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    expect(formatVerifierKey(parseVerifierKey(sha256, go)!)).toBe(go)
  })

  it("refuses anything else", () => {
    const [name, hash, data] = vkey.split("+") as [string, string, string]
    const raw = decodeB64(data)!
    const bad = [
      "",
      name,
      `${name}+${hash}`,
      `${name}+${hash}+`,
      `+${hash}+${data}`,
      `${name}+982d6187+${data}`, // wrong key hash
      `${name}+982D6186+${data}`, // upper-case hex
      `${name}+0982d6186+${data}`,
      `${name}+82d6186+${data}`,
      `${name}x+${hash}+${data}`, // another name: the hash no longer matches
      `example test+${hash}+${data}`,
      `${name}+${hash}+${data}=`,
      `${name}+${hash}+${data.slice(0, -1)}`,
      `${name}+${hash}+${encodeB64(Uint8Array.of(0x02, ...raw.subarray(1)))}`, // another algorithm
      `${name}+${hash}+${encodeB64(raw.subarray(0, 32))}`, // 31-byte key
      `${name}+${hash}+${data}+extra`
    ]
    for (const s of bad) expect(parseVerifierKey(sha256, s), s).toBeUndefined()
  })
})

describe("key names", () => {
  it("are non-empty, without Unicode spaces, plus signs or control characters", () => {
    for (const good of ["example.test/aics", "PeterNeumann", "é/ü", "a-b_c.d:e"]) expect(isValidKeyName(good), good).toBe(true)
    for (const bad of ["", "a b", "a+b", "a\tb", "a\nb", "a\u00a0b", "a\u2003b", "a\u3000b", "a\u0085b", "a\u0001b", "a\ud800b"]) {
      expect(isValidKeyName(bad), JSON.stringify(bad)).toBe(false)
    }
  })

  it("key IDs are the first four bytes of SHA-256(name || 0x0A || 0x01 || key), big-endian", () => {
    const key = parseVerifierKey(sha256, vkey)!
    const digest = sha256(new Uint8Array([...new TextEncoder().encode(key.name), 0x0a, 0x01, ...key.publicKey]))
    expect(keyHashHex(keyHash(sha256, key.name, key.publicKey))).toBe(toHex(digest.subarray(0, 4)))
    expect(keyHashHex(0)).toBe("00000000")
    expect(keyHashHex(0xffffffff)).toBe("ffffffff")
  })
})
