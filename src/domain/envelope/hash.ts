// docs/spec/profile.md section 3: an envelope's hash chains a key's envelopes together.
//   envelope hash = SHA-256(JCS(envelope, `auth` included))
//   prev          = U64 of the hash of the key's previous accepted envelope
// The same hash names a refused envelope in a refusal receipt (docs/spec/profile.md section 4).
// `auth` is included so the chain commits to the signature as well as the content.

import * as Either from "effect/Either"
import type { Sha256 } from "../crypto.js"
import { encodeU64 } from "../encoding.js"
import type { Envelope } from "./envelope.js"
import { jcsBytes, type JcsError } from "./jcs.js"

export const envelopeHash = (sha256: Sha256, envelope: Envelope): Either.Either<Uint8Array, JcsError> =>
  Either.map(jcsBytes(envelope), sha256)

/** The `prev` member of the envelope that follows this one in its key's chain. */
export const prevOf = (sha256: Sha256, envelope: Envelope): Either.Either<string, JcsError> =>
  Either.map(envelopeHash(sha256, envelope), encodeU64)
