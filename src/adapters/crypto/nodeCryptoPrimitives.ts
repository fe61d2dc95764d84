// node:crypto's SHA-256 and Ed25519 as the domain's CryptoPrimitives: the server's choice,
// about 11 times faster than @noble at Ed25519 verification on these machines. Public keys
// are turned into KeyObjects once and cached, since building one costs as much as a
// verification.
//
// Apart from the Crypto port's layer (nodeCrypto.ts) so that the write-check workers, which
// need only these functions, load no Effect module through it (test/sourceImports.test.ts).

import { createPrivateKey, hash, createPublicKey, sign, verify, type KeyObject } from "node:crypto"
import type { CryptoPrimitives } from "../../domain/crypto.js"

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

const PUBLIC_KEY_CACHE_LIMIT = 100_000
const publicKeys = new Map<string, KeyObject>()

const publicKeyObject = (publicKey: Uint8Array): KeyObject => {
  const cacheKey = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1")
  let key = publicKeys.get(cacheKey)
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" })
    // A plain bound rather than an LRU: when the cache is full it starts again, which
    // costs one rebuild per key and keeps memory fixed under a flood of new keys.
    if (publicKeys.size >= PUBLIC_KEY_CACHE_LIMIT) publicKeys.clear()
    publicKeys.set(cacheKey, key)
  }
  return key
}

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

