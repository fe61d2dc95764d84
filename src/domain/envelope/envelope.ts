// docs/spec/profile.md section 3 (AICS-1 section 4.1): the envelope, its TypeScript type and its
// structural schema. Structure only: whether the origin is this log's, the type is
// registered, seq/prev continue the key's chain and the payload fits its type are decided
// elsewhere (the per-type payload schemas and the sequencer).

import * as Schema from "effect/Schema"
import { decodeU64 } from "../encoding.js"
import { isDidKey } from "../identity/didKey.js"
import { isJsonObject, type JsonObject } from "./jcs.js"

export const ENVELOPE_VERSION = "AICS-1"
export const AUTH_ALG = "ed25519-jcs"

/** expires <= created + MAX_LIFETIME_SECONDS. */
export const MAX_LIFETIME_SECONDS = 600
export const NONCE_MIN_BYTES = 16
export const NONCE_MAX_BYTES = 32

export interface EnvelopeAuth {
  readonly alg: typeof AUTH_ALG
  /** U64 of the 64-byte Ed25519 signature over the signing input. */
  readonly sig: string
}

export interface Envelope {
  readonly v: typeof ENVELOPE_VERSION
  readonly origin: string
  readonly type: string
  /** did:key of the signing key. */
  readonly kid: string
  readonly seq: number
  /** null when seq is 0, else U64 of SHA-256(JCS(the key's previous accepted envelope)). */
  readonly prev: string | null
  /** U64 of 16 to 32 random bytes. */
  readonly nonce: string
  /** Unix seconds. */
  readonly created: number
  /** Unix seconds; created < expires <= created + 600. */
  readonly expires: number
  readonly payload: JsonObject
  readonly auth: EnvelopeAuth
}

/** An envelope before signing: every member but `auth`. */
export type UnsignedEnvelope = Omit<Envelope, "auth">

const u64OfLength = (min: number, max: number, what: string) =>
  Schema.String.pipe(
    Schema.filter((s) => {
      const bytes = decodeU64(s)
      return bytes !== undefined && bytes.length >= min && bytes.length <= max
    }, { message: () => `${what}: expected canonical U64 of ${min === max ? min : `${min} to ${max}`} bytes` })
  )

const UnixSeconds = Schema.NonNegativeInt

// The payload is checked, never rebuilt: the signature covers JCS of exactly these
// members, so decoding must hand back the very object it was given.
const Payload = Schema.declare((u: unknown): u is JsonObject => isJsonObject(u), {
  identifier: "JsonObject",
  message: () => "payload: expected a JSON object"
})

const Auth = Schema.Struct({
  alg: Schema.Literal(AUTH_ALG),
  sig: u64OfLength(64, 64, "auth.sig")
})

const Members = Schema.Struct({
  v: Schema.Literal(ENVELOPE_VERSION),
  origin: Schema.NonEmptyString,
  type: Schema.NonEmptyString,
  kid: Schema.String.pipe(Schema.filter(isDidKey, { message: () => "kid: expected the did:key of an Ed25519 key" })),
  seq: Schema.NonNegativeInt,
  prev: Schema.NullOr(u64OfLength(32, 32, "prev")),
  nonce: u64OfLength(NONCE_MIN_BYTES, NONCE_MAX_BYTES, "nonce"),
  created: UnixSeconds,
  expires: UnixSeconds,
  payload: Payload,
  auth: Auth
})

/**
 * Structural schema of a signed envelope: exactly the members of section 3 (any other
 * member is an error, at every level), their types, and the rules that tie members together.
 */
export const EnvelopeSchema: Schema.Schema<Envelope> = Members.pipe(
  Schema.filter((e) =>
    e.created < e.expires && e.expires <= e.created + MAX_LIFETIME_SECONDS
      ? undefined
      : `expires: expected created < expires <= created + ${MAX_LIFETIME_SECONDS}`
  ),
  Schema.filter((e) => (e.seq === 0) === (e.prev === null) ? undefined : "prev: expected null exactly when seq is 0")
).annotations({ identifier: "Envelope", parseOptions: { onExcessProperty: "error" } })

/** Decodes untrusted input (parsed JSON) as an envelope. */
export const decodeEnvelope = Schema.decodeUnknownEither(EnvelopeSchema, { onExcessProperty: "error", errors: "all" })
