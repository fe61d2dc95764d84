// Parameter schemas shared by the endpoints. Integers in paths and queries are plain
// decimal, no sign, no leading zeros, no exponent, at most 2^53 - 1 (docs/spec/profile.md section 1):
// "1e3", " 7" or "007" are refused with 422 rather than guessed at.

import { Schema } from "effect"
import { Channel } from "../../domain/entries/fields.js"
import { isDidKey } from "../../domain/identity/didKey.js"

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/

/** DecimalInt's rule outside a schema (leanEntryRoute.ts): the integer, or undefined where DecimalInt refuses. */
export const decimalInt = (text: string): number | undefined => {
  if (!DECIMAL.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}

/** A safe non-negative integer written in decimal. */
export const DecimalInt = Schema.String.pipe(
  Schema.pattern(DECIMAL, { message: () => "expected a non-negative decimal integer" }),
  Schema.compose(Schema.NumberFromString),
  Schema.filter((n) => Number.isSafeInteger(n) || "expected an integer below 2^53"),
  Schema.annotations({ identifier: "DecimalInt", description: "non-negative decimal integer" })
)

/** A decimal integer within [min, max], the bounds of the service description's Limits. */
export const DecimalIntBetween = (min: number, max: number) =>
  DecimalInt.pipe(Schema.filter((n) => (n >= min && n <= max) || `expected an integer from ${min} to ${max}`))

export const DecimalIntAtLeast = (min: number) =>
  DecimalInt.pipe(Schema.filter((n) => n >= min || `expected an integer of at least ${min}`))

/** U64 (base64url, no padding) of 32 bytes: how JSON names a hash (docs/spec/profile.md section 1). */
export const U64Hash = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/, { message: () => "expected U64 of a 32-byte SHA-256" }),
  Schema.annotations({ identifier: "U64Hash", description: "U64 (base64url, no padding) of a 32-byte SHA-256" })
)

/** A forum channel's name as a parameter (the 422's errors name the parameter already). */
export const ChannelParam = Channel.annotations({ message: () => "1 to 63 of a-z 0-9 -" })

/** A did:key of an Ed25519 key. */
export const DidKeyParam = Schema.String.pipe(
  Schema.maxLength(96, { message: () => "expected a did:key of an Ed25519 key" }),
  Schema.filter((kid) => isDidKey(kid) || "expected a did:key of an Ed25519 key")
)
