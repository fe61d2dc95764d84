// The traffic generator's keys (bench/trafficGenerate.ts): agent n's Ed25519 key of
// generation g (0 from its claim, one more per key.rotate) and its X25519 keys all follow
// from the run's fixed seed, so a later run that reads the log back finds every agent's
// keys again without storing any.
//
// Signing with node:crypto for tens of thousands of agents: building a private KeyObject
// from PKCS#8 (what nodeCrypto does, for the service's few keys) costs about 1.2 ms on this
// machine, OpenSSL 3's decoders, against ~0.1 ms from a JWK and ~0.05 ms for the signature
// itself. So keys come in as JWK, and the most recently used ones are kept.

import { createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto"
import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../src/domain/bytes.js"
import type { Ed25519 } from "../src/domain/crypto.js"
import { encodeU64 } from "../src/domain/encoding.js"
import { didKeyFromPublicKey } from "../src/domain/identity/didKey.js"

const SEED_LABEL = "aics bench scaleTraffic"

export const agentSeed = (agent: number, generation: number): Uint8Array =>
  nodeCrypto.sha256(utf8(`${SEED_LABEL} agent ${agent} key ${generation}`))

/** The U64 of agent's `count`-th X25519 public key (any 32 bytes pass the payload's check). */
export const agentX25519 = (agent: number, count: number): string =>
  encodeU64(nodeCrypto.sha256(utf8(`${SEED_LABEL} agent ${agent} x25519 ${count}`)))

/** The U64 of the slot hash of agent's k-th capsule slot under its key of `generation` (never another key's). */
export const capsuleSlot = (agent: number, generation: number, k: number): string =>
  encodeU64(nodeCrypto.sha256(utf8(`${SEED_LABEL} agent ${agent} key ${generation} slot ${k}`)))

const base64url = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")

const jwkKey = (seed: Uint8Array, x: string): KeyObject =>
  createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", d: base64url(seed), x }, format: "jwk" })

/**
 * The private key of a seed. Node builds an OKP private key from the JWK's `d` alone: the
 * JWK must carry an `x`, which it neither uses nor compares, so a placeholder does (every
 * envelope's signature is verified by checkSubmission, so a wrong key would be refused).
 */
const PLACEHOLDER_X = base64url(new Uint8Array(32))
const privateKeyOf = (seed: Uint8Array): KeyObject => jwkKey(seed, PLACEHOLDER_X)

/** The did:key of a seed. */
export const kidOfSeed = (seed: Uint8Array): string => {
  const jwk = createPublicKey(privateKeyOf(seed)).export({ format: "jwk" })
  return didKeyFromPublicKey(new Uint8Array(Buffer.from(jwk.x!, "base64url")))
}

/** Keys kept: the busiest agents' stay, the rest are built again (~0.1 ms) when they sign. */
const KEY_CACHE = 16_384

/** node:crypto Ed25519 signing for many seeds, with the last KEY_CACHE private keys kept (insertion order as LRU). */
export const makeSigner = (): Ed25519 => {
  const keys = new Map<string, KeyObject>()
  const keyOf = (seed: Uint8Array): KeyObject => {
    const id = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString("latin1")
    let key = keys.get(id)
    if (key !== undefined) {
      keys.delete(id)
    } else {
      key = privateKeyOf(seed)
      if (keys.size >= KEY_CACHE) keys.delete(keys.keys().next().value!)
    }
    keys.set(id, key)
    return key
  }
  return {
    publicKey: nodeCrypto.ed25519.publicKey,
    sign: (seed, message) => new Uint8Array(sign(null, message, keyOf(seed))),
    verify: nodeCrypto.ed25519.verify
  }
}
