// The cryptographic primitives the domain is written against. The domain never picks an
// implementation: the Crypto port (src/ports/Crypto.ts) supplies one, node:crypto on the
// server for speed and @noble in the portable client, and both must agree bit for bit.
//
// Every function here is synchronous and total over its inputs: hashing and Ed25519 are
// pure computations, so passing them as arguments keeps the domain free of I/O and services.

/** SHA-256 of the bytes; returns 32 bytes. */
export type Sha256 = (data: Uint8Array) => Uint8Array

export interface Ed25519 {
  /** The 32-byte public key of a 32-byte seed (RFC 8032 private key). */
  readonly publicKey: (seed: Uint8Array) => Uint8Array
  /** The 64-byte RFC 8032 signature of the message by the seed. Deterministic. */
  readonly sign: (seed: Uint8Array, message: Uint8Array) => Uint8Array
  /** Whether the signature verifies; false (never an exception) for malformed keys or signatures. */
  readonly verify: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean
}

export interface CryptoPrimitives {
  readonly sha256: Sha256
  readonly ed25519: Ed25519
}
