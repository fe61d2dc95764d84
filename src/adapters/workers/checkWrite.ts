// The stateless checks of a write as one pure function from plain data to plain data
// (ports/WriteChecks.ts), shared by the in-process adapter and the worker threads, so both
// run exactly the domain's checkAicsSignature (or, for the text gate's self-signed requests,
// checkSelfSignature) and checkSubmission.

import * as Either from "effect/Either"
import type { CryptoPrimitives } from "../../domain/crypto.js"
import { checkAicsSignature } from "../../domain/http/aicsProfile.js"
import { refuse, type Refusal } from "../../domain/write/refusal.js"
import { checkSelfSignature, checkSubmission, type SignatureFacts } from "../../domain/write/submission.js"
import type { WriteCheck, WriteRequest } from "../../ports/WriteChecks.js"

/** What the checks need besides the request: plain data, so it can be a worker's workerData. */
export interface WriteCheckSettings {
  /** The log's origin, which envelopes must name. */
  readonly origin: string
  /** The `@authority` values signed requests may name. */
  readonly authorities: ReadonlyArray<string>
}

export const checkWrite = (
  request: WriteRequest,
  now: number,
  settings: WriteCheckSettings,
  crypto: CryptoPrimitives
): WriteCheck => {
  const facts = signatureFacts(request, now, settings, crypto)
  if (Either.isLeft(facts)) return { _tag: "SignatureRefused", refusal: facts.left }
  const submission = checkSubmission(request.body, facts.right, { origin: settings.origin, ...crypto })
  if (Either.isLeft(submission)) return { _tag: "Signed", signature: facts.right, submission: { _tag: "Refused", refusal: submission.left } }
  const { envelope, envelopeJcs, envelopeHash, body } = submission.right
  return { _tag: "Signed", signature: facts.right, submission: { _tag: "Checked", checked: { envelope, envelopeJcs, envelopeHash, body } } }
}

/** The signature step: the RFC 9421 signature of the AICS profile, or, for the text gate, the envelope's own. */
const signatureFacts = (request: WriteRequest, now: number, settings: WriteCheckSettings, crypto: CryptoPrimitives): Either.Either<SignatureFacts, Refusal> => {
  if (request.selfSigned === true) return checkSelfSignature(request.body, now, crypto)
  const { headers } = request
  const signature = checkAicsSignature(
    { ...request, headers: (name) => headers[name.toLowerCase()] },
    { now, authorities: settings.authorities, ed25519: crypto.ed25519, sha256: crypto.sha256 }
  )
  if (Either.isLeft(signature)) return Either.left(refuse(signature.left.code, signature.left.detail))
  const { keyid, nonce, created, expires } = signature.right
  return Either.right({ keyid, nonce, created, expires })
}
