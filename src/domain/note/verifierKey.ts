// C2SP signed-note (c2sp.org/signed-note), Ed25519 keys: key names, key IDs and the
// verifier key string of golang.org/x/mod/sumdb/note, and docs/spec/profile.md section 2 (the log
// key is published as `<origin>+<8 hex key hash>+<B64(0x01 || public key)>`).
//
//   key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte Ed25519 public key)[:4], big-endian

import { concat, readUint32BE, utf8 } from "../bytes.js"
import type { Sha256 } from "../crypto.js"
import { decodeB64, encodeB64 } from "../encoding.js"

/** The signed-note signature type of Ed25519. */
export const ALG_ED25519 = 0x01

const PUBLIC_KEY_SIZE = 32

/** A known key: what openNote needs to check a signature line. */
export interface VerifierKey {
  readonly name: string
  /** The 32-bit key ID, as an unsigned integer. */
  readonly keyHash: number
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array
}

// In "u" mode \p{Cs} matches only unpaired surrogates: such a string has no UTF-8 form,
// and TextEncoder would silently turn it into U+FFFD, so two names could sign as one.
const LONE_SURROGATE = /\p{Cs}/u
// Unicode White_Space is the set Go's unicode.IsSpace reports, which note.go rejects.
const SPACE = /\p{White_Space}/u
// A note may hold no ASCII control character but newline, so a name with one could never
// appear in a signature line; refusing it here keeps a bad verifier key out of the config.
const CONTROL = /[\u0000-\u001f]/

/**
 * C2SP signed-note: key names are non-empty and contain no Unicode space and no plus.
 * (Also well-formed Unicode and free of control characters, see above.)
 */
export const isValidKeyName = (name: string): boolean =>
  name.length > 0 && !name.includes("+") && !SPACE.test(name) && !CONTROL.test(name) && !LONE_SURROGATE.test(name)

/**
 * The key ID of a key under a name for a signature type (C2SP signed-note):
 * SHA-256(name || 0x0A || type || public key)[:4]. Ed25519 note signatures are type 0x01;
 * tlog-cosignature's Ed25519 cosignature/v1 is type 0x04 (cosignature.ts).
 */
export const keyHashOf = (sha256: Sha256, name: string, alg: number, publicKey: Uint8Array): number =>
  readUint32BE(sha256(concat(utf8(name), Uint8Array.of(0x0a, alg), publicKey)), 0)

/** The key ID of an Ed25519 key under a name. */
export const keyHash = (sha256: Sha256, name: string, publicKey: Uint8Array): number =>
  keyHashOf(sha256, name, ALG_ED25519, publicKey)

/** 8 lower-case hex digits, as note.go writes the key ID (`%08x`). */
export const keyHashHex = (hash: number): string => (hash >>> 0).toString(16).padStart(8, "0")

export const makeVerifierKey = (sha256: Sha256, name: string, publicKey: Uint8Array): VerifierKey => ({
  name,
  keyHash: keyHash(sha256, name, publicKey),
  publicKey
})

/** `<name>+<8 hex key hash>+<B64(type || public key)>`; the type is 0x01 unless given. */
export const formatVerifierKey = (key: VerifierKey, alg: number = ALG_ED25519): string =>
  `${key.name}+${keyHashHex(key.keyHash)}+${encodeB64(concat(Uint8Array.of(alg), key.publicKey))}`

/**
 * Parses an Ed25519 verifier key, or undefined: a bad name, a key hash that is not 8
 * lower-case hex digits or does not match the key, another algorithm, a key that is not
 * 32 bytes, non-canonical base64. Stricter than note.go only in spelling (hex case, base64
 * trailing bits): one key has one verifier key string.
 */
export const parseVerifierKey = (sha256: Sha256, vkey: string, alg: number = ALG_ED25519): VerifierKey | undefined => {
  const first = vkey.indexOf("+")
  if (first < 0) return undefined
  const second = vkey.indexOf("+", first + 1)
  if (second < 0) return undefined
  const name = vkey.slice(0, first)
  const hashHex = vkey.slice(first + 1, second)
  const keyBytes = decodeB64(vkey.slice(second + 1))
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/.test(hashHex) || keyBytes === undefined) return undefined
  if (keyBytes.length !== 1 + PUBLIC_KEY_SIZE || keyBytes[0] !== alg) return undefined
  const publicKey = keyBytes.slice(1)
  const hash = parseInt(hashHex, 16)
  if (hash !== keyHashOf(sha256, name, alg, publicKey)) return undefined
  return { name, keyHash: hash, publicKey }
}
