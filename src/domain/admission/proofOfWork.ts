// Proof of work for new identities (docs/protocol.md "Fair admission"), in the style of Nostr's
// NIP-13: when the owner sets a difficulty of `bits` (AICS_CLAIM_POW_BITS; off by default),
// a `claim` envelope is accepted only if SHA-256 of its signing input (JCS of the envelope
// with auth reduced to {"alg"}, docs/spec/profile.md section 3) starts with at least `bits`
// zero bits. The envelope's own `nonce` is what the client varies: no new member, no
// change to the envelope format, and the work is bound to everything the claim says (name,
// key, origin, time), so it cannot be reused for another claim. Each extra bit doubles the
// expected work: 2^bits hashes on average.

import { Either } from "effect"
import { utf8 } from "../bytes.js"
import type { Sha256 } from "../crypto.js"
import { encodeU64 } from "../encoding.js"
import type { Envelope, UnsignedEnvelope } from "../envelope/envelope.js"
import { signingInput } from "../envelope/signature.js"

/** The entry type the work is asked of: new identities. */
export const WORK_TYPE = "claim"

/** Leading zero bits of a hash (NIP-13's difficulty). */
export const leadingZeroBits = (hash: Uint8Array): number => {
  let bits = 0
  for (const byte of hash) {
    if (byte === 0) {
      bits += 8
      continue
    }
    return bits + Math.clz32(byte) - 24
  }
  return bits
}

/** The work an envelope carries: leading zero bits of SHA-256 of its signing input; 0 when it has none. */
export const workOf = (envelope: UnsignedEnvelope | Envelope, sha256: Sha256): number => {
  const input = signingInput(envelope)
  return Either.isLeft(input) ? 0 : leadingZeroBits(sha256(utf8(input.right)))
}

/** Whether the envelope meets the difficulty its type asks for. */
export const meetsWork = (envelope: UnsignedEnvelope | Envelope, bits: number, sha256: Sha256): boolean =>
  bits <= 0 || envelope.type !== WORK_TYPE || workOf(envelope, sha256) >= bits

/**
 * Finds a nonce meeting `bits`: `base` (16 random bytes) followed by an 8-byte counter,
 * trying counters in order. `progress` is called every `every` tries with the count so far
 * (the client library and `aics claim` show it). Pure given its inputs.
 */
export const grindNonce = (
  envelope: UnsignedEnvelope,
  bits: number,
  sha256: Sha256,
  base: Uint8Array,
  progress?: (tries: number) => void,
  every = 65_536
): UnsignedEnvelope => {
  if (bits <= 0) return envelope
  const bytes = new Uint8Array(base.length + 8)
  bytes.set(base)
  const view = new DataView(bytes.buffer)
  for (let counter = 0; ; counter++) {
    view.setUint32(base.length, Math.floor(counter / 2 ** 32))
    view.setUint32(base.length + 4, counter >>> 0)
    const candidate = { ...envelope, nonce: encodeU64(bytes) }
    if (workOf(candidate, sha256) >= bits) return candidate
    if (progress !== undefined && (counter + 1) % every === 0) progress(counter + 1)
  }
}
