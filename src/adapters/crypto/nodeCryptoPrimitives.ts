// node:crypto's SHA-256 and Ed25519 as the domain's CryptoPrimitives: the server's choice,
// about 11 times faster than @noble at Ed25519 verification on these machines. Public keys
// are turned into KeyObjects from a JWK for each verification (below).
//
// Apart from the Crypto port's layer (nodeCrypto.ts) so that the write-check workers, which
// need only these functions, load no Effect module through it (test/sourceImports.test.ts).

import { createPrivateKey, hash, createPublicKey, sign, verify, type KeyObject } from "node:crypto"
import type { CryptoPrimitives } from "../../domain/crypto.js"
import { encodeU64 } from "../../domain/encoding.js"

// DER prefixes of PKCS#8 (private) and SPKI (public) Ed25519 keys, RFC 8410.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex")
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex")

// Building a private KeyObject costs far more than signing with it, and the service signs
// every receipt and checkpoint with the same two keys, so the last few are kept.
const PRIVATE_KEY_CACHE_LIMIT = 8
const privateKeys = new Map<string, KeyObject>()

export const privateKeyOf = (seed: Uint8Array): KeyObject => {
  const cacheKey = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString("latin1")
  let key = privateKeys.get(cacheKey)
  if (key === undefined) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" })
    if (privateKeys.size >= PRIVATE_KEY_CACHE_LIMIT) privateKeys.delete(privateKeys.keys().next().value!)
    privateKeys.set(cacheKey, key)
  }
  return key
}

// A public KeyObject is built for each verification and dropped: from a JWK it costs ~5 us
// against a verification's ~90 (OpenSSL 3's SPKI DER decoders took ~74 us, which is why the
// keys used to be kept). Kept keys hold ~1.5 KiB of OpenSSL memory each outside the JS heap,
// in every thread that verifies, which the heap's figures never show: 100,000 kept keys held
// ~150 MiB a thread once that many agents had written, and even the last 16 kept left RSS
// ~100 MiB higher after a flood of new agents, a full collection included. Built and dropped,
// a key dies young and a flood costs a few MiB, for ~5 us more a verification with the busiest
// keys (~10 of a write's ~1,000) and ~75 less with a new one: bench/publicKeys.
const publicKeyObject = (publicKey: Uint8Array): KeyObject =>
  createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: encodeU64(publicKey) },
    format: "jwk"
  })

export const nodeCrypto: CryptoPrimitives = {
  // crypto.hash in one call, as binary (latin1) text copied into 32 bytes: no Hash object and no
  // Buffer per hash, which made tree building four times slower (bench/merkle).
  sha256: (data) => {
    const digest = hash("sha256", data, "binary")
    const out = new Uint8Array(32)
    for (let i = 0; i < 32; i++) out[i] = digest.charCodeAt(i)
    return out
  },
  ed25519: {
    publicKey: (seed) => {
      if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes")
      const der = createPublicKey(privateKeyOf(seed)).export({ format: "der", type: "spki" })
      return new Uint8Array(der.subarray(SPKI_PREFIX.length))
    },
    sign: (seed, message) => {
      if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes")
      return new Uint8Array(sign(null, message, privateKeyOf(seed)))
    },
    verify: (publicKey, message, signature) => {
      if (publicKey.length !== 32 || signature.length !== 64) return false
      try {
        return verify(null, message, publicKeyObject(publicKey), signature)
      } catch {
        return false
      }
    }
  }
}

