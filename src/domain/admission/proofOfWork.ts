// Proof of work for new identities (docs/protocol.md "Fair admission"), in the style of Nostr's
// NIP-13: when the owner sets a difficulty of `bits` (AICS_CLAIM_POW_BITS; off by default),
// a `claim` envelope is accepted only if SHA-256 of its signing input (JCS of the envelope
// with auth reduced to {"alg"}, docs/spec/profile.md section 3) starts with at least `bits`
// zero bits. The envelope's own `nonce` is what the client varies: no new member, no
// change to the envelope format, and the work is bound to everything the claim says (name,
// key, origin, time), so it cannot be reused for another claim. Each extra bit doubles the
// expected work: 2^bits hashes on average.
//
// A secret-bound name (the text gate's `claim <name> secret <secret>`, over TLS) is a new
// identity too, but its claim is signed by the service's policy key, so there is no envelope
// of the agent's to vary. Its work is over a short text instead, bound the same way to what
// the claim says: the origin, the name, and when the work was made (secretClaimWorkText),
// with the agent's nonce; the gate takes it for SECRET_WORK_MAX_AGE seconds.

import * as Either from "effect/Either"
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

/** The nonce tried at `counter`: `base` (16 random bytes) followed by the counter as 8 bytes, big-endian, in U64. */
export const workNonce = (base: Uint8Array, counter: number): string => {
  const bytes = new Uint8Array(base.length + 8)
  bytes.set(base)
  const view = new DataView(bytes.buffer)
  view.setUint32(base.length, Math.floor(counter / 2 ** 32))
  view.setUint32(base.length + 4, counter >>> 0)
  return encodeU64(bytes)
}

/**
 * The nonces tried in order: `base` (16 random bytes) followed by an 8-byte counter, until
 * `meets` accepts one. `progress` is called every `every` tries with the count so far.
 */
const grind = (
  base: Uint8Array,
  meets: (nonce: string) => boolean,
  progress: ((tries: number) => void) | undefined,
  every: number
): string => {
  for (let counter = 0; ; counter++) {
    const nonce = workNonce(base, counter)
    if (meets(nonce)) return nonce
    if (progress !== undefined && (counter + 1) % every === 0) progress(counter + 1)
  }
}

/**
 * The UTF-8 signing input of `envelope` around its nonce, when the nonce (of `length` U64
 * letters, which JCS writes as they are) sits at one place in it: each try then hashes the
 * same bytes with only the nonce's letters changed, rather than making the JCS again (most of
 * a try's cost). Found by putting two different nonces in and comparing.
 */
const aroundNonce = (envelope: UnsignedEnvelope, length: number): { readonly prefix: Uint8Array; readonly suffix: Uint8Array } | undefined => {
  const [one, two] = ["A".repeat(length), "B".repeat(length)]
  const a = signingInput({ ...envelope, nonce: one })
  const b = signingInput({ ...envelope, nonce: two })
  if (Either.isLeft(a) || Either.isLeft(b) || a.right.length !== b.right.length) return undefined
  let at = 0
  while (at < a.right.length && a.right[at] === b.right[at]) at++
  const prefix = a.right.slice(0, at)
  const suffix = a.right.slice(at + length)
  if (a.right !== prefix + one + suffix || b.right !== prefix + two + suffix) return undefined
  return { prefix: utf8(prefix), suffix: utf8(suffix) }
}

/**
 * The first nonce `base || counter`, counter from `from` up to (not including) `to`, that
 * gives `envelope` the `bits` (workOf), or undefined when none in the range does. The client
 * tries a range at a time and yields between ranges, so the work never holds its event loop
 * for long (an MCP server keeps answering). Pure given its inputs.
 */
export const grindNonceRange = (
  envelope: UnsignedEnvelope,
  bits: number,
  sha256: Sha256,
  base: Uint8Array,
  from: number,
  to: number
): string | undefined => {
  if (bits <= 0) return envelope.nonce
  const length = workNonce(base, 0).length
  const around = aroundNonce(envelope, length)
  if (around === undefined) {
    // No place for the nonce (a payload with no JSON form): try each the slow way (it carries no work).
    for (let counter = from; counter < to; counter++) {
      const nonce = workNonce(base, counter)
      if (workOf({ ...envelope, nonce }, sha256) >= bits) return nonce
    }
    return undefined
  }
  // The nonce's letters are those of its first whole 3-byte groups, fixed by `base`, then
  // those of the rest (the last bytes of `base` and the counter): only these change.
  const fixed = Math.floor(base.length / 3) * 3
  const head = encodeU64(base.subarray(0, fixed))
  const tail = new Uint8Array(base.length - fixed + 8)
  tail.set(base.subarray(fixed))
  const view = new DataView(tail.buffer)
  const input = new Uint8Array(around.prefix.length + length + around.suffix.length)
  input.set(around.prefix)
  input.set(utf8(head), around.prefix.length)
  input.set(around.suffix, around.prefix.length + length)
  const at = around.prefix.length + head.length
  for (let counter = from; counter < to; counter++) {
    view.setUint32(tail.length - 8, Math.floor(counter / 2 ** 32))
    view.setUint32(tail.length - 4, counter >>> 0)
    const letters = encodeU64(tail)
    for (let i = 0; i < letters.length; i++) input[at + i] = letters.charCodeAt(i)
    if (leadingZeroBits(sha256(input)) >= bits) return head + letters
  }
  return undefined
}

/**
 * Finds a nonce meeting `bits`: `base` (16 random bytes) followed by an 8-byte counter,
 * trying counters in order, `every` at a time (grindNonceRange). `progress` is called every
 * `every` tries with the count so far. Pure given its inputs; it runs until it finds one, so
 * a client that must stay responsive grinds ranges itself (src/client/envelope.ts).
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
  for (let from = 0; ; from += every) {
    const nonce = grindNonceRange(envelope, bits, sha256, base, from, from + every)
    if (nonce !== undefined) return { ...envelope, nonce }
    progress?.(from + every)
  }
}

/** How long the work of a secret-bound claim is taken after it was made, in seconds (an envelope's longest lifetime). */
export const SECRET_WORK_MAX_AGE = 600
/** How far ahead of the service's clock the work may say it was made (a client's clock runs fast). */
export const SECRET_WORK_SKEW = 60

/**
 * What a secret-bound claim's work hashes: the claim's origin and name, when the work was
 * made (Unix seconds; a placeholder where the gate's help shows the text), and the nonce.
 */
export const secretClaimWorkText = (origin: string, name: string, created: number | string, nonce: string): string =>
  `AICS-1 secret claim work\n${origin}\n${name}\n${created}\n${nonce}`

/** The work a secret-bound claim carries: leading zero bits of SHA-256 of its text. */
export const secretClaimWorkOf = (origin: string, name: string, created: number, nonce: string, sha256: Sha256): number =>
  leadingZeroBits(sha256(utf8(secretClaimWorkText(origin, name, created, nonce))))

/** The gate's `work=<created>.<nonce>` argument of a secret-bound claim. */
export const secretClaimWorkArgument = (created: number, nonce: string): string => `work=${created}.${nonce}`

/** A `work=<created>.<nonce>` argument read back; undefined when it is not one. */
export const parseSecretClaimWork = (text: string): { readonly created: number; readonly nonce: string } | undefined => {
  const match = /^work=(\d{1,12})\.([A-Za-z0-9_-]{1,64})$/.exec(text)
  return match === null ? undefined : { created: Number(match[1]), nonce: match[2]! }
}

/**
 * Why a secret-bound claim's work is not taken at `now` (Unix seconds), or undefined when
 * it is: too old, from the future, or short of `bits`.
 */
export const secretClaimWorkProblem = (
  origin: string,
  name: string,
  work: { readonly created: number; readonly nonce: string },
  bits: number,
  now: number,
  sha256: Sha256
): string | undefined => {
  if (work.created > now + SECRET_WORK_SKEW) return `the work says it was made at ${work.created}, after the service's clock (${now})`
  if (now - work.created > SECRET_WORK_MAX_AGE) return `the work was made at ${work.created}, more than ${SECRET_WORK_MAX_AGE} s before the service's clock (${now}); make it again`
  const carried = secretClaimWorkOf(origin, name, work.created, work.nonce, sha256)
  return carried >= bits ? undefined : `the work carries ${carried} of the ${bits} bits asked for this name`
}

/** Finds the work of a secret-bound claim of `name` made at `created`: the gate's `work=` argument. */
export const grindSecretClaimWork = (
  origin: string,
  name: string,
  created: number,
  bits: number,
  sha256: Sha256,
  base: Uint8Array,
  progress?: (tries: number) => void,
  every = 65_536
): string =>
  secretClaimWorkArgument(created, grind(base, (nonce) => secretClaimWorkOf(origin, name, created, nonce, sha256) >= bits, progress, every))
