// RFC 9180 HPKE as docs/protocol.md section 9 fixes it for DMs and capsules: base mode,
// DHKEM(X25519, HKDF-SHA256) (0x0020), HKDF-SHA256 (0x0001), ChaCha20-Poly1305 (0x0003),
// single-shot Seal/Open (RFC 9180 section 6.1). The off-leaf body is `enc || ct`: the
// 32-byte encapsulated key, then the AEAD output (plaintext length + 16-byte tag).
//
//   dm       info "AICS-1 dm",      aad JCS({"from": sender kid, "origin", "to": recipient kid})
//   capsule  info "AICS-1 capsule", aad JCS({"kid": owner kid, "origin", "slot": U64 slot})
//
// The aad binds a ciphertext to its sender, recipient (or owner and slot) and log, so a
// ciphertext copied into another entry does not open.

import { CipherSuite, HkdfSha256 } from "@hpke/core"
import { Chacha20Poly1305 } from "@hpke/chacha20poly1305"
import { DhkemX25519HkdfSha256 } from "@hpke/dhkem-x25519"
import { Either } from "effect"
import { concat, utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { jcsBytes } from "../domain/envelope/jcs.js"
import { crypto } from "./crypto.js"

/** Nenc of DHKEM(X25519, HKDF-SHA256). */
export const ENC_BYTES = 32
/** Nt of ChaCha20-Poly1305. */
export const TAG_BYTES = 16

export const DM_INFO = utf8("AICS-1 dm")
export const CAPSULE_INFO = utf8("AICS-1 capsule")

const suite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Chacha20Poly1305()
})

/** Why a sealed body did not open; never the plaintext or a key. */
export class HpkeOpenError extends Error {
  override readonly name = "HpkeOpenError"
}

const bytesOf = (buffer: ArrayBuffer): Uint8Array => new Uint8Array(buffer)

export interface SealOptions {
  /**
   * Known-answer tests only: the ikm the ephemeral key pair is derived from (RFC 9180
   * DeriveKeyPair), so a published vector can be reproduced. Never set in real use: a
   * repeated ephemeral key breaks every message sealed under it.
   */
  readonly ephemeralIkmForTests?: Uint8Array
}

/** SealBase(pkR, info, aad, pt) as `enc || ct`. */
export const hpkeSeal = async (
  recipientPublic: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
  options: SealOptions = {}
): Promise<Uint8Array> => {
  if (recipientPublic.length !== ENC_BYTES) throw new RangeError("an X25519 public key is 32 bytes")
  const recipientPublicKey = await suite.kem.deserializePublicKey(recipientPublic)
  const sealed = await suite.seal(
    {
      recipientPublicKey,
      info,
      ...(options.ephemeralIkmForTests === undefined ? {} : { ekm: options.ephemeralIkmForTests })
    },
    plaintext,
    aad
  )
  return concat(bytesOf(sealed.enc), bytesOf(sealed.ct))
}

/** OpenBase(enc, skR, info, aad, ct) of an `enc || ct` body; HpkeOpenError when it does not open. */
export const hpkeOpen = async (
  recipientSecret: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array
): Promise<Uint8Array> => {
  if (sealed.length < ENC_BYTES + TAG_BYTES) {
    throw new HpkeOpenError(`a sealed body is at least ${ENC_BYTES + TAG_BYTES} bytes, this one is ${sealed.length}`)
  }
  try {
    const recipientKey = await suite.kem.deserializePrivateKey(recipientSecret)
    const plaintext = await suite.open(
      { recipientKey, enc: sealed.subarray(0, ENC_BYTES), info },
      sealed.subarray(ENC_BYTES),
      aad
    )
    return bytesOf(plaintext)
  } catch (error) {
    // The library's errors (DecapError, OpenError, ...) say which step failed, nothing secret.
    throw new HpkeOpenError(`the ciphertext does not open with this key and context (${error instanceof Error ? error.name : "error"})`)
  }
}

// The aad constructions. JCS of an object of strings cannot fail, except on a lone
// surrogate, which no did:key, origin or U64 slot contains.
const jcsOf = (value: Record<string, string>): Uint8Array => Either.getOrThrow(jcsBytes(value))

export const dmAad = (from: string, origin: string, to: string): Uint8Array => jcsOf({ from, origin, to })

export const capsuleAad = (kid: string, origin: string, slot: string): Uint8Array => jcsOf({ kid, origin, slot })

/** The capsule slot of a slot key: U64(SHA-256(UTF-8 slot key)). */
export const capsuleSlot = (slotKey: string): string => encodeU64(crypto.sha256(utf8(slotKey)))

export interface DmContext {
  readonly from: string
  readonly to: string
  readonly origin: string
}

export const sealDm = (recipientX25519: Uint8Array, context: DmContext, plaintext: Uint8Array): Promise<Uint8Array> =>
  hpkeSeal(recipientX25519, DM_INFO, dmAad(context.from, context.origin, context.to), plaintext)

export const openDm = (recipientSecret: Uint8Array, context: DmContext, sealed: Uint8Array): Promise<Uint8Array> =>
  hpkeOpen(recipientSecret, DM_INFO, dmAad(context.from, context.origin, context.to), sealed)

export interface CapsuleContext {
  readonly kid: string
  readonly origin: string
  readonly slot: string
}

export const sealCapsule = (ownerX25519: Uint8Array, context: CapsuleContext, plaintext: Uint8Array): Promise<Uint8Array> =>
  hpkeSeal(ownerX25519, CAPSULE_INFO, capsuleAad(context.kid, context.origin, context.slot), plaintext)

export const openCapsule = (ownerSecret: Uint8Array, context: CapsuleContext, sealed: Uint8Array): Promise<Uint8Array> =>
  hpkeOpen(ownerSecret, CAPSULE_INFO, capsuleAad(context.kid, context.origin, context.slot), sealed)
