// docs/spec/profile.md section 6 and docs/spec/service.md "Authentication": the AICS profile of RFC 9421.
//   Signature-Input: aics=("@method" "@authority" "@path" "content-digest");created=<s>;
//                    expires=<s>;nonce="<U64>";keyid="<did:key>";alg="ed25519";tag="aics"
//   Signature:       aics=:<B64 of the 64-byte Ed25519 signature>:
//   Content-Digest:  sha-256=:<B64 of SHA-256(body)>:  (RFC 9530; empty body digests "")
// checkAicsSignature is the whole server-side check except replay, which needs state: the
// app's nonce store accepts a (keyid, nonce) pair once and keeps it until replayExpiry.
//
// Decisions:
//   - Label: the `aics` member is the one checked; members with other labels in either
//     field are ignored (RFC 9421 lets intermediaries add signatures, and an unchecked
//     signature grants nothing). The structured-field parser refuses a repeated key, so
//     there is exactly one `aics` member.
//   - Parameters: exactly created, expires, nonce, keyid, alg, tag, each once, in any
//     order, with the types and values above; components exactly the four, in that order,
//     without component parameters. No other list is accepted, "@query" included: the
//     profile signs @path, which RFC 9421 defines without the query (docs/protocol.md 10.3).
//   - The Signature-Input member must be in canonical RFC 8941 serialization, so the
//     `@signature-params` line (its re-serialization, RFC 9421 section 3.2) is exactly the
//     text received, and a signature has one accepted spelling.
//   - Checks run cheapest first and the Ed25519 verification last but one; the digest is
//     compared after it, so digest_mismatch means "authenticated sender, body that is not
//     the one signed".
//
// Refusal codes and their HTTP status (docs/spec/profile.md section 7: 401 bad or missing
// signature, 400 malformed request):
//   signature_missing      401  neither Signature-Input nor Signature is present
//   signature_malformed    401  one of the two fields is absent or not the RFC 9421 shape
//   signature_profile      401  not the AICS label, components, parameters or spelling
//   keyid_invalid          401  keyid is not an Ed25519 did:key
//   nonce_invalid          401  nonce is not U64 of 16 to 32 bytes
//   authority_not_allowed  401  the Host is not one of the service's authorities (the
//                               detail names the Host and the ones it accepts)
//   signature_lifetime     401  expires <= created or expires - created > 600
//   signature_expired      401  now >= expires
//   signature_clock        401  |now - created| > 300
//   digest_missing         401  no Content-Digest field, or no sha-256 member in it
//   signature_invalid      401  the Ed25519 signature does not verify
//   digest_mismatch        400  a validly signed request whose body is not the one its
//                               sha-256 Content-Digest names, or whose Content-Digest is
//                               not a Dictionary of byte sequences: the signer is
//                               authenticated, the message was damaged (RFC 9530 section
//                               2 and the 400 "digest mismatch" problem type practice)

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type { Ed25519, Sha256 } from "../crypto.js"
import { decodeU64 } from "../encoding.js"
import { publicKeyFromDidKey } from "../identity/didKey.js"
import { canonicalFieldValue, normalizeAuthority, type HeaderLookup, type HttpRequest } from "./components.js"
import { checkContentDigest } from "./contentDigest.js"
import {
  AICS_ALG,
  AICS_COMPONENTS,
  AICS_LABEL,
  AICS_TAG,
  selectSignature,
  signatureBase,
  verifyEd25519,
  type SignatureInput
} from "./messageSignature.js"
import { serializeInnerList, type BareItem, type InnerList } from "./structuredFields.js"

/** Clock tolerance: |now - created| <= 300 s. */
export const MAX_CLOCK_SKEW_SECONDS = 300
/** expires - created <= 600 s. */
export const MAX_LIFETIME_SECONDS = 600
/** A (keyid, nonce) pair is remembered until expires + 300 s. */
export const REPLAY_MARGIN_SECONDS = 300
export const NONCE_MIN_BYTES = 16
export const NONCE_MAX_BYTES = 32

export const SIGNATURE_REFUSAL_CODES = [
  "signature_missing",
  "signature_malformed",
  "signature_profile",
  "keyid_invalid",
  "nonce_invalid",
  "authority_not_allowed",
  "signature_lifetime",
  "signature_expired",
  "signature_clock",
  "digest_missing",
  "signature_invalid",
  "digest_mismatch"
] as const

export type SignatureRefusalCode = (typeof SIGNATURE_REFUSAL_CODES)[number]

/** The HTTP status of each refusal (see the header comment). */
export const SIGNATURE_REFUSAL_STATUS: Readonly<Record<SignatureRefusalCode, 400 | 401>> = {
  signature_missing: 401,
  signature_malformed: 401,
  signature_profile: 401,
  keyid_invalid: 401,
  nonce_invalid: 401,
  authority_not_allowed: 401,
  signature_lifetime: 401,
  signature_expired: 401,
  signature_clock: 401,
  digest_missing: 401,
  signature_invalid: 401,
  digest_mismatch: 400
}

export class SignatureRefusal extends Data.TaggedError("SignatureRefusal")<{
  readonly code: SignatureRefusalCode
  readonly detail: string
}> {
  get status(): 400 | 401 {
    return SIGNATURE_REFUSAL_STATUS[this.code]
  }
}

/** A request as the server received it. */
export interface AicsRequest {
  readonly method: string
  /** The Host header as received; undefined if absent. */
  readonly authority: string | undefined
  /** Known only behind TLS termination; used to leave out a default port. */
  readonly scheme?: string
  /** The path without the query. */
  readonly path: string
  /** The query without "?"; may be empty. Not covered by the AICS profile. */
  readonly query: string
  readonly headers: HeaderLookup
  /** The raw received content; empty when there is none. */
  readonly body: Uint8Array
}

export interface AicsOptions {
  /** Unix seconds. */
  readonly now: number
  /** The authorities the service answers to: lower case host[:port], default port left out. */
  readonly authorities: ReadonlyArray<string>
  readonly ed25519: Ed25519
  readonly sha256: Sha256
}

/** What a valid AICS signature establishes. */
export interface AicsSignature {
  readonly keyid: string
  readonly publicKey: Uint8Array
  readonly nonce: string
  readonly created: number
  readonly expires: number
}

/** Until when (Unix seconds) the nonce store must remember the signature's (keyid, nonce). */
export const replayExpiry = (signature: Pick<AicsSignature, "expires">): number =>
  signature.expires + REPLAY_MARGIN_SECONDS

const refuse = (code: SignatureRefusalCode, detail: string) => Either.left(new SignatureRefusal({ code, detail }))

/** The most of a received Host a refusal quotes back (anyone may send any Host). */
const QUOTED_HOST_MAX = 100

/** The host of an authority (`host[:port]`, `[v6]:port`), lower case, without its port. */
const hostOf = (authority: string): string => {
  const bracketed = /^(\[[^\]]*\])/.exec(authority)
  return bracketed !== null ? bracketed[1]! : authority.replace(/:\d*$/, "")
}

/** A host only a client on the service's own machine reaches: loopback, and localhost. */
const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "[::1]"

/** A wildcard listening address (the default authorities name AICS_HOST): no client's Host. */
const isWildcardHost = (host: string): boolean => host === "0.0.0.0" || host === "[::]"

/**
 * Why a Host is not accepted, in terms its sender and the operator can act on: the Host
 * received (the @authority the request signs), and the authorities a client can sign, with
 * the settings that make them. Every one it names is accepted (options.authorities decides):
 * first those a client elsewhere uses (the public URL's host, AICS_AUTHORITY's), then those
 * of the service's own machine (its loopback listening address, localhost), said as such,
 * since a client behind a load balancer cannot use them. A wildcard listening address
 * (0.0.0.0, [::]), accepted by default as AICS_HOST's, is no host a client elsewhere
 * connects to, and is named only when every authority is of the machine's own. A node behind a load balancer not told the public
 * host refuses every signed request with this.
 */
export const authorityRefusalDetail = (received: string | undefined, authorities: ReadonlyArray<string>): string => {
  const sent = received === undefined
    ? "the request has no Host"
    : `the request's Host ${JSON.stringify(received.length > QUOTED_HOST_MAX ? `${received.slice(0, QUOTED_HOST_MAX)}...` : received)} (the @authority it signs) is not an authority of this service`
  const elsewhere = authorities.filter((a) => !isLoopbackHost(hostOf(a)) && !isWildcardHost(hostOf(a)))
  const local = authorities.filter((a) => isLoopbackHost(hostOf(a)))
  const settings = "(AICS_PUBLIC_URL and AICS_AUTHORITY set them)"
  if (elsewhere.length === 0) return `${sent}; it accepts ${authorities.join(", ")}, hosts of its own machine only ${settings}`
  const alsoLocal = local.length === 0 ? "" : `; from its own machine also ${local.join(", ")}`
  return `${sent}; a client signs ${elsewhere.join(", ")}${alsoLocal} ${settings}`
}

const header = (headers: HeaderLookup, name: string): string | undefined => {
  const value = headers(name)
  if (value === undefined || (typeof value !== "string" && value.length === 0)) return undefined
  return canonicalFieldValue(value)
}

const PARAMETER_TYPES: Readonly<Record<string, BareItem["_tag"]>> = {
  created: "Integer",
  expires: "Integer",
  nonce: "String",
  keyid: "String",
  alg: "String",
  tag: "String"
}

interface ProfileParams {
  readonly created: number
  readonly expires: number
  readonly nonce: string
  readonly keyid: string
}

/** The profile's shape: components, parameters and their types, canonical spelling. */
const checkProfile = (input: SignatureInput): Either.Either<ProfileParams, SignatureRefusal> => {
  const names = input.components.map((c) => (c.value._tag === "String" && c.params.length === 0 ? c.value.value : "?"))
  if (names.length !== AICS_COMPONENTS.length || names.some((name, i) => name !== AICS_COMPONENTS[i])) {
    return refuse("signature_profile", `covered components must be ${AICS_COMPONENTS.map((n) => `"${n}"`).join(" ")}`)
  }
  const values = new Map<string, BareItem>()
  for (const [key, value] of input.params) {
    const type = PARAMETER_TYPES[key]
    if (type === undefined) return refuse("signature_profile", `parameter ${key} is not in the AICS profile`)
    if (value._tag !== type) return refuse("signature_profile", `parameter ${key} must be of type ${type}`)
    values.set(key, value)
  }
  for (const key of Object.keys(PARAMETER_TYPES)) {
    if (!values.has(key)) return refuse("signature_profile", `parameter ${key} is missing`)
  }
  const get = (key: string) => values.get(key)!.value as string | number
  if (get("alg") !== AICS_ALG) return refuse("signature_profile", `alg must be "${AICS_ALG}"`)
  if (get("tag") !== AICS_TAG) return refuse("signature_profile", `tag must be "${AICS_TAG}"`)
  const created = get("created") as number
  const expires = get("expires") as number
  if (created < 0 || expires < 0) return refuse("signature_profile", "created and expires are Unix seconds")
  const list: InnerList = { _tag: "InnerList", items: input.components, params: input.params }
  if (serializeInnerList(list) !== input.text) {
    return refuse("signature_profile", "Signature-Input is not in canonical structured-field form")
  }
  return Either.right({ created, expires, nonce: get("nonce") as string, keyid: get("keyid") as string })
}

/** The profile's clock rules; the text gate applies them to an envelope it takes without an HTTP signature. */
export const checkClock = (params: Pick<ProfileParams, "created" | "expires">, now: number): Either.Either<void, SignatureRefusal> => {
  const lifetime = params.expires - params.created
  if (lifetime <= 0 || lifetime > MAX_LIFETIME_SECONDS) {
    return refuse("signature_lifetime", `expires - created must be in 1..${MAX_LIFETIME_SECONDS} s, is ${lifetime}`)
  }
  if (now >= params.expires) return refuse("signature_expired", "the signature has expired")
  if (Math.abs(now - params.created) > MAX_CLOCK_SKEW_SECONDS) {
    return refuse("signature_clock", `created is more than ${MAX_CLOCK_SKEW_SECONDS} s from the server's clock`)
  }
  return Either.right(undefined)
}

/**
 * Everything checkAicsSignature checks except the body against its Content-Digest: whether
 * the signature verifies over the request's head. A route that must refuse a stranger
 * before it reads the body or looks at its parameters asks this first; the whole check
 * (checkAicsSignature) still follows once the body is read.
 */
export const checkAicsSignatureHead = (
  request: Omit<AicsRequest, "body">,
  options: AicsOptions
): Either.Either<AicsSignature & { readonly digestField: string }, SignatureRefusal> => {
  const inputField = header(request.headers, "signature-input")
  const signatureField = header(request.headers, "signature")
  if (inputField === undefined && signatureField === undefined) {
    return refuse("signature_missing", "the request carries no Signature-Input and no Signature")
  }
  if (inputField === undefined || signatureField === undefined) {
    return refuse("signature_malformed", "Signature-Input and Signature come together")
  }

  const selected = selectSignature(inputField, signatureField, AICS_LABEL)
  if (Either.isLeft(selected)) {
    const { reason, detail } = selected.left
    return refuse(reason === "label_missing" ? "signature_profile" : "signature_malformed", detail)
  }
  const { input, signature } = selected.right
  if (signature.length !== 64) return refuse("signature_malformed", "an Ed25519 signature is 64 bytes")

  const profile = checkProfile(input)
  if (Either.isLeft(profile)) return Either.left(profile.left)
  const params = profile.right

  const publicKey = publicKeyFromDidKey(params.keyid)
  if (publicKey === undefined) return refuse("keyid_invalid", "keyid is not an Ed25519 did:key")
  const nonce = decodeU64(params.nonce)
  if (nonce === undefined || nonce.length < NONCE_MIN_BYTES || nonce.length > NONCE_MAX_BYTES) {
    return refuse("nonce_invalid", `nonce must be U64 of ${NONCE_MIN_BYTES} to ${NONCE_MAX_BYTES} bytes`)
  }

  const authority =
    request.authority === undefined ? undefined : normalizeAuthority(request.authority, request.scheme)
  if (authority === undefined || !options.authorities.includes(authority)) {
    return refuse("authority_not_allowed", authorityRefusalDetail(authority ?? request.authority, options.authorities))
  }

  const clock = checkClock(params, options.now)
  if (Either.isLeft(clock)) return Either.left(clock.left)

  const digestField = header(request.headers, "content-digest")
  if (digestField === undefined) return refuse("digest_missing", "the request carries no Content-Digest")

  const httpRequest: HttpRequest = {
    method: request.method,
    authority,
    path: request.path,
    query: request.query,
    headers: request.headers
  }
  const base = signatureBase(httpRequest, input)
  if (Either.isLeft(base)) return refuse("signature_malformed", base.left.detail)
  if (!verifyEd25519(options.ed25519, publicKey, base.right, signature)) {
    return refuse("signature_invalid", "the signature does not verify")
  }

  return Either.right({
    keyid: params.keyid,
    publicKey,
    nonce: params.nonce,
    created: params.created,
    expires: params.expires,
    digestField
  })
}

/** The rest of the check once the head's signature verifies: the body against its signed Content-Digest. */
export const checkAicsBody = (
  head: AicsSignature & { readonly digestField: string },
  body: Uint8Array,
  sha256: Sha256
): Either.Either<AicsSignature, SignatureRefusal> => {
  const { digestField, ...signature } = head
  const digest = checkContentDigest(sha256, digestField, body)
  if (Either.isLeft(digest)) {
    return refuse(digest.left.reason === "missing" ? "digest_missing" : "digest_mismatch", digest.left.detail)
  }
  return Either.right(signature)
}

/** docs/spec/profile.md section 6: the AICS signature of a received request, or why it is refused. */
export const checkAicsSignature = (
  request: AicsRequest,
  options: AicsOptions
): Either.Either<AicsSignature, SignatureRefusal> =>
  Either.flatMap(checkAicsSignatureHead(request, options), (head) => checkAicsBody(head, request.body, options.sha256))
