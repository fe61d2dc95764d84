// docs/spec/profile.md section 2: an agent's identity is its Ed25519 public key, written as a
// did:key (W3C did:key method, Ed25519 variant):
//   did:key:z + base58btc(0xed 0x01 || 32-byte public key)
// 0xed 0x01 is the unsigned-varint multicodec code of ed25519-pub; "z" is the multibase
// prefix of base58btc. This string is the envelope's `kid` and the HTTP signature keyid.

import { base58 } from "@scure/base"
import { concat, equal } from "../bytes.js"

const PREFIX = "did:key:z"
const ED25519_PUB_MULTICODEC = Uint8Array.of(0xed, 0x01)
const PUBLIC_KEY_SIZE = 32

/** The did:key of a 32-byte Ed25519 public key. */
export const didKeyFromPublicKey = (publicKey: Uint8Array): string => {
  if (publicKey.length !== PUBLIC_KEY_SIZE) throw new RangeError("an Ed25519 public key is 32 bytes")
  return PREFIX + base58.encode(concat(ED25519_PUB_MULTICODEC, publicKey))
}

// Every write names its key three times (the HTTP keyid, the envelope's kid and its
// signature check) and an agent writes many times, while base58 decoding is quadratic in
// the length: the answers are remembered. The function stays pure (same input, same
// answer; each caller gets its own copy of the bytes).
const DID_KEY_LENGTH = 56
const DECODED_LIMIT = 100_000
const decoded = new Map<string, Uint8Array | null>()

/**
 * The 32-byte Ed25519 public key a did:key names, or undefined for anything else: another
 * DID method or key type, another multibase, a wrong length, or a non-canonical spelling.
 * Whether the bytes are a point on the curve is left to signature verification.
 */
export const publicKeyFromDidKey = (did: string): Uint8Array | undefined => {
  // An Ed25519 did:key is 56 characters; longer strings are refused without being remembered.
  if (did.length > DID_KEY_LENGTH) return undefined
  let key = decoded.get(did)
  if (key === undefined) {
    key = decodeDidKey(did) ?? null
    // A bound, not an LRU: a flood of new keys costs one decoding each, memory stays fixed.
    if (decoded.size >= DECODED_LIMIT) decoded.clear()
    decoded.set(did, key)
  }
  return key === null ? undefined : key.slice()
}

const decodeDidKey = (did: string): Uint8Array | undefined => {
  if (!did.startsWith(PREFIX)) return undefined
  const encoded = did.slice(PREFIX.length)
  let bytes: Uint8Array
  try {
    bytes = base58.decode(encoded)
  } catch {
    return undefined
  }
  if (bytes.length !== ED25519_PUB_MULTICODEC.length + PUBLIC_KEY_SIZE) return undefined
  if (!equal(bytes.subarray(0, ED25519_PUB_MULTICODEC.length), ED25519_PUB_MULTICODEC)) return undefined
  // A kid is compared as text (seq chains, grants, nonces are keyed by it), so only the
  // one canonical spelling of a key is accepted.
  if (base58.encode(bytes) !== encoded) return undefined
  return bytes.slice(ED25519_PUB_MULTICODEC.length)
}

/** Whether the string is the canonical did:key of an Ed25519 public key. */
export const isDidKey = (did: string): boolean => publicKeyFromDidKey(did) !== undefined
