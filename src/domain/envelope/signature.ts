// profile.md section 3: the envelope signature, auth alg "ed25519-jcs".
//   signing input = UTF-8 of JCS(envelope with the member auth.sig removed),
//                   so `auth` is {"alg":"ed25519-jcs"}
//   auth.sig      = U64 of the Ed25519 signature of the signing input by the key named by kid
// Keeping `auth` (without sig) in the signed bytes binds the algorithm to the signature.

import { Either } from "effect"
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

/**
 * Whether auth.sig is a valid ed25519-jcs signature of the envelope by the key its kid
 * names. False, never an exception, for another alg, a kid that is not an Ed25519
 * did:key, a signature that is not canonical U64 of 64 bytes, or data with no JCS form.
 */
export const verifyEnvelopeSignature = (envelope: Envelope, ed25519: Ed25519): boolean => {
  if (envelope.auth.alg !== AUTH_ALG) return false
  const publicKey = publicKeyFromDidKey(envelope.kid)
  const signature = decodeU64(envelope.auth.sig)
  if (publicKey === undefined || signature === undefined || signature.length !== 64) return false
  const input = signingInput(envelope)
  return Either.isRight(input) && ed25519.verify(publicKey, utf8(input.right), signature)
}
