// The client's cryptography: @noble everywhere (pure JavaScript, runs wherever the client
// runs), and Web Crypto's getRandomValues for randomness, which Node 20, browsers and Deno
// all provide.

import { x25519 } from "@noble/curves/ed25519.js"
import { nobleCrypto } from "../adapters/crypto/nobleCrypto.js"
import type { CryptoPrimitives } from "../domain/crypto.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"

export const crypto = nobleCrypto
export const hasher = makeTreeHasher(nobleCrypto.sha256)

/**
 * The fastest primitives this runtime has, for work that verifies a signature a leaf (the
 * audit's replay of the whole log): node:crypto under Node, whose Ed25519 verify is about
 * eleven times @noble's (bench/README.md "Session 27"), else @noble. Loaded on first use, so
 * the client stays portable; both are the same CryptoPrimitives (and the tests cross-check
 * them on the same vectors).
 */
export const bulkCrypto = async (): Promise<CryptoPrimitives> => {
  if (typeof process === "undefined" || process.versions?.node === undefined) return nobleCrypto
  try {
    return (await import("../adapters/crypto/nodeCryptoPrimitives.js")).nodeCrypto
  } catch {
    return nobleCrypto
  }
}

export const randomBytes = (length: number): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(length))

/** The X25519 public key of a 32-byte secret. */
export const x25519PublicKey = (secret: Uint8Array): Uint8Array => x25519.getPublicKey(secret)

export const newX25519Secret = (): Uint8Array => x25519.utils.randomSecretKey()
