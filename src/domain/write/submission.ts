// The stateless checks of a write (docs/spec/service.md "Log entry request", docs/spec/profile.md sections 3,
// 4 and 6): everything that can be decided from the request alone, before the sequencer
// orders it. The RFC 9421 signature has been verified already (http/aicsProfile.ts); here
// the body must be JSON {envelope, body} with exactly those members, the envelope an AICS-1
// envelope of this origin bound to that signature and signed by its kid, the type one that
// agents submit, its payload valid, and the body exactly the one the payload names.

import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { equal, fromUtf8, isUtf8, utf8 } from "../bytes.js"
import type { Ed25519, Sha256 } from "../crypto.js"
import { decodeU64 } from "../encoding.js"
import { decodeEnvelope, type Envelope } from "../envelope/envelope.js"
import { checkClock } from "../http/aicsProfile.js"
import { isJsonObject, jcs } from "../envelope/jcs.js"
import { MAX_ENTRY_BYTES } from "../envelope/leaf.js"
import { parseStrictJson } from "../envelope/strictJson.js"
import { envelopeTexts, verifySigningInput } from "../envelope/signature.js"
import { bodyRuleOf, signerOf, signersOf, type EntryRule, type PayloadSignatureCheck, type Signer } from "../entries/entryRule.js"
import { publicKeyFromDidKey } from "../identity/didKey.js"
import { payloadSignatureCheck } from "../identity/possession.js"
import { isSmallOrderKey } from "../identity/smallOrder.js"
import { entryRuleOf } from "../entries/registry.js"
import { refuse, type Refusal } from "./refusal.js"

/** What the verified HTTP signature says (RFC 9421 parameters). */
export interface SignatureFacts {
  readonly keyid: string
  readonly nonce: string
  readonly created: number
  readonly expires: number
}

export interface SubmissionContext {
  readonly origin: string
  readonly sha256: Sha256
  readonly ed25519: Ed25519
}

export interface Submission {
  readonly envelope: Envelope
  /** JCS text of the envelope, auth included (the leaf embeds it; its hash is `prev`). */
  readonly envelopeJcs: string
  readonly envelopeHash: Uint8Array
  readonly rule: EntryRule<any>
  readonly payload: unknown
  /** The body the payload names, checked against its hash and size; null for none. */
  readonly body: { readonly digest: Uint8Array; readonly bytes: Uint8Array } | null
  /**
   * Verifies signatures inside the payload (key.rotate's new_sig), whose message depends
   * on the state: the sequencer's rule calls it, so decide stays free of crypto ports.
   */
  readonly verify: PayloadSignatureCheck
}

/** Room the leaf needs around the envelope: {"envelope":...,"index":N,"logged":N}. */
const LEAF_OVERHEAD = 64

const left = (code: Parameters<typeof refuse>[0], detail: string) => Either.left(refuse(code, detail))

/** POST /v2/entries: agent-signed types only. */
export const checkSubmission = (
  rawBody: Uint8Array,
  signature: SignatureFacts,
  ctx: SubmissionContext
): Either.Either<Submission, Refusal> => checkEntry(rawBody, signature, ctx, ["agent"])

/**
 * The owner routes (`/v2/admin/*`, docs/spec/profile.md section 5): the same request and checks, for
 * owner-signed types only. That the kid is the owner key leaf 0 names is checked in the
 * sequencer (decide: `not_owner`), where the state is.
 */
export const checkAdminSubmission = (
  rawBody: Uint8Array,
  signature: SignatureFacts,
  ctx: SubmissionContext
): Either.Either<Submission, Refusal> => checkEntry(rawBody, signature, ctx, ["owner"])

/**
 * The checks for a request whose type is signed by one of `signers`. The service's own
 * policy-signed leaves (notice reports, SUP credits and refusals) pass through it with
 * ["policy"] before the sequencer, like any other entry.
 */
/** The request's two members, read strictly (UTF-8, I-JSON, exactly envelope and body), the envelope decoded. */
const parseRequest = (rawBody: Uint8Array): Either.Either<{ envelope: Envelope; body: string | null }, Refusal> => {
  let text: string
  try {
    text = fromUtf8(rawBody)
  } catch {
    return left("malformed_request", "the body is not UTF-8")
  }
  const parsed = parseStrictJson(text)
  if (Either.isLeft(parsed)) return left("malformed_request", `the body is not I-JSON: ${parsed.left}`)
  const request = parsed.right
  if (!isJsonObject(request)) return left("malformed_request", "the body is not a JSON object")
  const members = Object.keys(request).sort()
  if (members.length !== 2 || members[0] !== "body" || members[1] !== "envelope") {
    return left("malformed_request", "the body must have exactly the members envelope and body")
  }
  const rawEnvelope = request["envelope"]
  const rawBodyMember = request["body"]
  if (rawBodyMember !== null && typeof rawBodyMember !== "string") {
    return left("malformed_request", "body must be a U64 string or null")
  }
  const decoded = decodeEnvelope(rawEnvelope)
  if (Either.isLeft(decoded)) return left("malformed_envelope", decoded.left.message)
  return Either.right({ envelope: decoded.right, body: rawBodyMember })
}

/**
 * The signature step of a request signed by its envelope alone (the text gate, docs/protocol.md
 * 17.3), in place of the RFC 9421 signature: the envelope read as checkEntry reads it, its
 * created and expires under the profile's clock rules, and its own signature; the facts are
 * then the envelope's kid, nonce, created and expires. Refused here, no nonce is spent.
 */
export const checkSelfSignature = (
  rawBody: Uint8Array,
  now: number,
  ctx: Pick<SubmissionContext, "ed25519">
): Either.Either<SignatureFacts, Refusal> => {
  const parsed = parseRequest(rawBody)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const { envelope } = parsed.right
  const clock = checkClock(envelope, now)
  if (Either.isLeft(clock)) return left(clock.left.code, clock.left.detail)
  const texts = envelopeTexts(envelope)
  if (Either.isLeft(texts)) return left("malformed_envelope", texts.left.reason)
  if (!verifySigningInput(envelope, texts.right.signed, ctx.ed25519)) {
    return left("envelope_signature_invalid", "auth.sig is not kid's ed25519-jcs signature of the envelope")
  }
  return Either.right({ keyid: envelope.kid, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires })
}

export const checkEntry = (
  rawBody: Uint8Array,
  signature: SignatureFacts,
  ctx: SubmissionContext,
  signers: ReadonlyArray<Signer>
): Either.Either<Submission, Refusal> => {
  const parsed = parseRequest(rawBody)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const { envelope, body: rawBodyMember } = parsed.right

  if (
    envelope.kid !== signature.keyid || envelope.nonce !== signature.nonce ||
    envelope.created !== signature.created || envelope.expires !== signature.expires
  ) {
    return left("envelope_binding", "the envelope's kid, nonce, created and expires must equal the HTTP signature's")
  }
  const checked = checkEnvelope(envelope, ctx, signers)
  if (Either.isLeft(checked)) return Either.left(checked.left)
  const { rule, payload } = checked.right

  const body = checkBody(rule, payload as Record<string, unknown>, rawBodyMember, ctx.sha256)
  if (Either.isLeft(body)) return Either.left(body.left)
  return Either.right({ ...checked.right, body: body.right })
}

/**
 * The checks of a write that its envelope alone decides, whatever carried it (a request, or
 * a leaf an auditor replays: write/replay.ts): this log's origin, a key not of small order,
 * a type one of `signers` signs, a leaf that fits, the envelope's own signature, a valid
 * payload. The submission it answers has no body yet.
 */
export const checkEnvelope = (
  envelope: Envelope,
  ctx: SubmissionContext,
  signers: ReadonlyArray<Signer>
): Either.Either<Omit<Submission, "body">, Refusal> => {
  if (envelope.origin !== ctx.origin) return left("origin_mismatch", `this log's origin is ${ctx.origin}`)
  if (envelope.seq === 0 && isSmallOrderKey(publicKeyFromDidKey(envelope.kid)!)) {
    return left("keyid_invalid", "the key is of small order: a signature under it proves nothing")
  }

  const rule = entryRuleOf(envelope.type)
  const route = signers.includes("agent") ? "agents submit at /v2/entries" : `${signers.join(" or ")} signs here`
  if (rule === undefined || !signersOf(rule).some((s) => signers.includes(s))) {
    return left("unknown_type", `${JSON.stringify(envelope.type)} is not an entry type ${route}`)
  }

  const texts = envelopeTexts(envelope)
  if (Either.isLeft(texts)) return left("malformed_envelope", texts.left.reason)
  const envelopeJcs = texts.right.whole
  if (envelopeJcs.length + LEAF_OVERHEAD > MAX_ENTRY_BYTES) {
    return left("entry_too_large", `the leaf would exceed ${MAX_ENTRY_BYTES} bytes`)
  }
  if (!verifySigningInput(envelope, texts.right.signed, ctx.ed25519)) {
    return left("envelope_signature_invalid", "auth.sig is not kid's ed25519-jcs signature of the envelope")
  }

  const payload = Schema.decodeUnknownEither(rule.payload, { onExcessProperty: "error", errors: "all" })(envelope.payload)
  if (Either.isLeft(payload)) return left("payload_invalid", payload.left.message)
  if (!signers.includes(signerOf(rule, payload.right))) {
    return left("unknown_type", `this ${rule.type} is not one ${route}`)
  }

  return Either.right({
    envelope,
    envelopeJcs,
    envelopeHash: ctx.sha256(utf8(envelopeJcs)),
    rule,
    payload: payload.right,
    verify: payloadSignatureCheck(ctx.ed25519)
  })
}

/** The body a request sent for its payload: none for a type without one, else exactly the bytes the payload names. */
export const checkBody = (
  rule: EntryRule<any>,
  payload: Record<string, unknown>,
  bodyMember: string | null,
  sha256: Sha256
): Either.Either<Submission["body"], Refusal> => {
  const spec = bodyRuleOf(rule, payload)
  if (spec.kind === "none") {
    return bodyMember === null ? Either.right(null) : left("body_mismatch", `a ${rule.type} has no body: send null`)
  }
  const tooLarge = () => left("body_too_large", `a ${rule.type} body is at most ${spec.maxBytes} bytes`)
  // A body named with a size is judged by the size declared, before it is decoded; a
  // document named by its hash alone has only its own length.
  const size = spec.kind === "document" ? undefined : payload["size"] as number
  if (size !== undefined && size > spec.maxBytes) return tooLarge()
  if (bodyMember === null) return left("body_mismatch", `a ${rule.type} needs its body`)
  const bytes = decodeU64(bodyMember)
  if (bytes === undefined) return left("body_mismatch", "body is not canonical U64")
  if (size === undefined && bytes.length > spec.maxBytes) return tooLarge()
  if (size !== undefined && bytes.length !== size) return left("body_mismatch", `the body has ${bytes.length} bytes, the payload says ${size}`)
  const digest = sha256(bytes)
  const named = decodeU64(payload[spec.hashMember] as string)!
  if (!equal(digest, named)) {
    return left("body_mismatch", `SHA-256 of the body is not ${spec.hashMember}`)
  }
  if (spec.kind === "text" && !isUtf8(bytes)) return left("body_mismatch", "text must be UTF-8")
  return Either.right({ digest, bytes })
}

/**
 * The hash a refusal note names (docs/spec/profile.md section 4: SHA-256(JCS(envelope))). When the
 * request holds no envelope with a JCS form, the refusal names the SHA-256 of the request
 * body as received, so the receipt still binds to what was sent.
 */
export const refusedEnvelopeHash = (rawBody: Uint8Array, sha256: Sha256): Uint8Array => {
  try {
    const request: unknown = JSON.parse(fromUtf8(rawBody))
    if (isJsonObject(request) && isJsonObject(request["envelope"])) {
      const text = jcs(request["envelope"])
      if (Either.isRight(text)) return sha256(utf8(text.right))
    }
  } catch {
    // Not JSON: fall through to the raw bytes.
  }
  return sha256(rawBody)
}
