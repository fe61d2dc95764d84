// profile.md section 1: the two base64 forms on the wire.
//   U64 = base64url without padding (RFC 4648 section 5): hashes, nonces, keys and
//         signatures in JSON members.
//   B64 = standard base64 with padding (RFC 4648 section 4): signed notes and proof hashes,
//         as C2SP signed-note, tlog-checkpoint and RFC 9162 write them.
//
// Decoding is strict: every byte string has exactly one accepted spelling, so a value
// that is signed, hashed or compared as text cannot be re-spelled by a third party
// (another alphabet, missing or extra padding, non-zero trailing bits). Anything else
// decodes to undefined rather than throwing, so callers treat it as malformed input.
// Decimal integers in note texts (tree sizes, indices, times) follow the same rule.

import { base64, base64urlnopad } from "@scure/base"

type Codec = { readonly encode: (bytes: Uint8Array) => string; readonly decode: (text: string) => Uint8Array }

const strictDecode = (codec: Codec, text: string): Uint8Array | undefined => {
  let bytes: Uint8Array
  try {
    bytes = codec.decode(text)
  } catch {
    return undefined
  }
  // @scure/base already rejects foreign letters, bad padding and non-zero trailing bits;
  // the round trip makes "exactly one spelling" a property of this module, not of a
  // library version.
  return codec.encode(bytes) === text ? bytes : undefined
}

export const encodeU64 = (bytes: Uint8Array): string => base64urlnopad.encode(bytes)

/** The bytes of a canonical U64 string, or undefined. */
export const decodeU64 = (text: string): Uint8Array | undefined => strictDecode(base64urlnopad, text)

export const encodeB64 = (bytes: Uint8Array): string => base64.encode(bytes)

/** The bytes of a canonical B64 string, or undefined. */
export const decodeB64 = (text: string): Uint8Array | undefined => strictDecode(base64, text)

const DECIMAL = /^(?:0|[1-9][0-9]*)$/

/**
 * A non-negative safe integer written in canonical decimal (no sign, no leading zeros, no
 * spaces), or undefined. C2SP tlog-checkpoint requires this of the tree size; the receipt
 * lines of profile.md section 4 use it too.
 */
export const parseDecimal = (text: string): number | undefined => {
  if (!DECIMAL.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}
