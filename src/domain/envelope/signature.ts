// docs/spec/profile.md section 3: the envelope signature, auth alg "ed25519-jcs".
//   signing input = UTF-8 of JCS(envelope with the member auth.sig removed),
//                   so `auth` is {"alg":"ed25519-jcs"}
//   auth.sig      = U64 of the Ed25519 signature of the signing input by the key named by kid
// Keeping `auth` (without sig) in the signed bytes binds the algorithm to the signature.

import * as Either from "effect/Either"
import { utf8 } from "../bytes.js"
import type { Ed25519 } from "../crypto.js"
import { decodeU64, encodeU64 } from "../encoding.js"
import { publicKeyFromDidKey } from "../identity/didKey.js"
import { AUTH_ALG, type Envelope, type UnsignedEnvelope } from "./envelope.js"
import { jcs, type JcsError } from "./jcs.js"

/** JCS text of the envelope with `auth` reduced to `{"alg":"ed25519-jcs"}`. Its UTF-8 bytes are signed. */
export const signingInput = (envelope: UnsignedEnvelope | Envelope): Either.Either<string, JcsError> => {
  // Only `sig` is removed: whatever else `auth` holds (an unchecked envelope may claim
  // another alg) is signed as received, so it cannot be swapped after signing.
  const auth = "auth" in envelope ? withoutSig(envelope.auth) : { alg: AUTH_ALG }
  return jcs({ ...envelope, auth })
}

const withoutSig = (auth: Envelope["auth"]): Omit<Envelope["auth"], "sig"> => {
  const { sig: _sig, ...rest } = auth
  return rest
}

/** Signs an unsigned envelope with the Ed25519 seed of the key its kid names. */
export const signEnvelope = (
  unsigned: UnsignedEnvelope,
  seed: Uint8Array,
  ed25519: Ed25519
): Either.Either<Envelope, JcsError> =>
  Either.map(signingInput(unsigned), (input) => ({
    ...unsigned,
    auth: { alg: AUTH_ALG, sig: encodeU64(ed25519.sign(seed, utf8(input))) }
  }))

/** Both JCS texts of a signed envelope: what its signature covers, and the whole envelope. */
export interface EnvelopeTexts {
  /** The signing input: JCS with `auth` reduced to `{"alg":"ed25519-jcs"}`. */
  readonly signed: string
  /** JCS of the whole envelope, auth.sig included (hashed for `prev`, embedded in the leaf). */
  readonly whole: string
}

/**
 * Both texts from one canonicalisation of the members other than `auth`. JCS writes an
 * object's members sorted by name, and "auth" sorts before every other envelope member
 * (created, expires, kid, nonce, origin, payload, prev, seq, type, v), so each text is
 * `{"auth":` + JCS of its auth + `,` + the rest's JCS without its opening brace.
 */
export const envelopeTexts = (envelope: Envelope): Either.Either<EnvelopeTexts, JcsError> => {
  const { auth, ...members } = envelope
  return Either.flatMap(jcs(members), (rest) =>
    Either.flatMap(jcs(withoutSig(auth)), (signedAuth) =>
      Either.map(jcs(auth), (wholeAuth) => ({
        // An envelope always has members besides auth, so `rest` is never "{}".
        signed: `{"auth":${signedAuth},${rest.slice(1)}`,
        whole: `{"auth":${wholeAuth},${rest.slice(1)}`
      }))))
}

/**
 * Whether auth.sig is a valid ed25519-jcs signature of the envelope by the key its kid
 * names. False, never an exception, for another alg, a kid that is not an Ed25519
 * did:key, a signature that is not canonical U64 of 64 bytes, or data with no JCS form.
 */
export const verifyEnvelopeSignature = (envelope: Envelope, ed25519: Ed25519): boolean => {
  const input = signingInput(envelope)
  return Either.isRight(input) && verifySigningInput(envelope, input.right, ed25519)
}

/** verifyEnvelopeSignature, given the envelope's signing input already computed (envelopeTexts). */
export const verifySigningInput = (envelope: Envelope, signed: string, ed25519: Ed25519): boolean => {
  if (envelope.auth.alg !== AUTH_ALG) return false
  const publicKey = publicKeyFromDidKey(envelope.kid)
  const signature = decodeU64(envelope.auth.sig)
  if (publicKey === undefined || signature === undefined || signature.length !== 64) return false
  return ed25519.verify(publicKey, utf8(signed), signature)
}
