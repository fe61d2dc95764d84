// Building and signing an agent's next envelope (docs/spec/profile.md section 3) at its chain
// position: a fresh 16-byte nonce, created now, expires 300 s later (half the allowed 600,
// the same window the service gives the clock), and the origin read from the verified
// checkpoint.

import { Either } from "effect"
import { encodeU64 } from "../domain/encoding.js"
import { ENVELOPE_VERSION, type Envelope, type UnsignedEnvelope } from "../domain/envelope/envelope.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { signEnvelope } from "../domain/envelope/signature.js"
import { grindNonce } from "../domain/admission/proofOfWork.js"
import type { AgentKey } from "./agentKey.js"
import { crypto, randomBytes } from "./crypto.js"
import { usageError } from "./errors.js"

export const ENVELOPE_LIFETIME_SECONDS = 300
const NONCE_BYTES = 16

/** Proof of work to put in the envelope (docs/protocol.md "Fair admission"): its bits, and a progress callback. */
export interface Work {
  readonly bits: number
  /** Called every 65,536 hashes with the count so far. */
  readonly progress?: ((tries: number) => void) | undefined
}

export const buildEnvelope = (
  key: AgentKey,
  origin: string,
  type: string,
  payload: JsonObject,
  nowSeconds: number,
  work: Work = { bits: 0 }
): Envelope => {
  const unsigned: UnsignedEnvelope = {
    v: ENVELOPE_VERSION,
    origin,
    type,
    kid: key.kid,
    seq: key.seq,
    prev: key.prev,
    nonce: encodeU64(randomBytes(NONCE_BYTES)),
    created: nowSeconds,
    expires: nowSeconds + ENVELOPE_LIFETIME_SECONDS,
    payload
  }
  // With work asked for, the nonce is 16 random bytes and a counter, varied until the
  // signing input's SHA-256 has the bits; the signature is made once, over the result.
  const worked = work.bits > 0 ? grindNonce(unsigned, work.bits, crypto.sha256, randomBytes(NONCE_BYTES), work.progress) : unsigned
  const signed = signEnvelope(worked, key.seed, crypto.ed25519)
  // Only a payload with no JSON form (a lone surrogate in a text argument) gets here.
  if (Either.isLeft(signed)) throw usageError(`the entry cannot be signed: ${signed.left.reason}`)
  return signed.right
}
