// SecretHasher on scrypt (src/adapters/crypto/nodeScrypt.ts): salted, self-describing, and
// checked against the RFC 7914 test vector through node:crypto, so the verifier format
// carries what a later check needs.

import { scryptSync } from "node:crypto"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { expect } from "vitest"
import { makeScryptHasher } from "../../../src/adapters/crypto/nodeScrypt.js"
import { encodeU64 } from "../../../src/domain/encoding.js"

const cheap = makeScryptHasher({ N: 1024, r: 8, p: 1 })

it.effect("verifies the secret it hashed and nothing else, with a fresh salt each time", () =>
  Effect.gen(function*() {
    const a = yield* cheap.hash("correct-horse-battery")
    const b = yield* cheap.hash("correct-horse-battery")
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
    expect(a).not.toBe(b)
    expect(yield* cheap.verify("correct-horse-battery", a)).toBe(true)
    expect(yield* cheap.verify("correct-horse-batterY", a)).toBe(false)
    expect(yield* cheap.verify("correct-horse-battery", "scrypt$1024$8$1$AA$AA")).toBe(false)
    expect(yield* cheap.verify("correct-horse-battery", "plain")).toBe(false)
  }))

it.effect("reads N, r, p and the salt from the verifier (RFC 7914 section 12, second vector)", () =>
  Effect.gen(function*() {
    const salt = new TextEncoder().encode("NaCl")
    const key = scryptSync("password", salt, 64, { N: 1024, r: 8, p: 16 })
    expect(key.toString("hex").slice(0, 32)).toBe("fdbabe1c9d3472007856e7190d01e9fe")
    const verifier = `scrypt$1024$8$16$${encodeU64(salt)}$${encodeU64(new Uint8Array(key.subarray(0, 32)))}`
    expect(yield* cheap.verify("password", verifier)).toBe(true)
  }))
