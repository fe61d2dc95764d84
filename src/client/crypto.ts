// The client's cryptography: @noble everywhere (pure JavaScript, runs wherever the client
// runs), and Web Crypto's getRandomValues for randomness, which Node 20, browsers and Deno
// all provide.

import { x25519 } from "@noble/curves/ed25519.js"
import { nobleCrypto } from "../adapters/crypto/nobleCrypto.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"

export const crypto = nobleCrypto
export const hasher = makeTreeHasher(nobleCrypto.sha256)

export const randomBytes = (length: number): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(length))

/** The X25519 public key of a 32-byte secret. */
export const x25519PublicKey = (secret: Uint8Array): Uint8Array => x25519.getPublicKey(secret)

export const newX25519Secret = (): Uint8Array => x25519.utils.randomSecretKey()
