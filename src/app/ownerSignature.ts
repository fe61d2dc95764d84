// The owner's signature on a /v2/admin/* write (service.md "Authentication" 5): no query
// string, the RFC 9421 AICS profile, the owner key that leaf 0 names (else 403
// `not_owner`), and a (keyid, nonce) pair not seen before. Shared by every owner write.

import { Effect, Either } from "effect"
import type { Ed25519, Sha256 } from "../domain/crypto.js"
import { checkAicsSignature, replayExpiry, type AicsSignature } from "../domain/http/aicsProfile.js"
import { refuse, type Refusal } from "../domain/write/refusal.js"
import type { NonceStore } from "../ports/NonceStore.js"
import type { WriteRequest } from "../ports/WriteChecks.js"

export interface OwnerCheck {
  readonly ownerKid: string
  readonly authorities: ReadonlyArray<string>
  readonly ed25519: Ed25519
  readonly sha256: Sha256
  readonly nonces: typeof NonceStore.Service
}

/** The owner's verified signature, or the refusal to answer. `now` is Unix seconds. */
export const checkOwnerSignature = (check: OwnerCheck, request: WriteRequest, now: number): Effect.Effect<Either.Either<AicsSignature, Refusal>> =>
  Effect.gen(function*() {
    if (request.query !== "") return Either.left(refuse("malformed_request", "owner routes take no query string"))
    const signature = checkAicsSignature(
      { ...request, headers: (name) => request.headers[name.toLowerCase()] },
      { now, authorities: check.authorities, ed25519: check.ed25519, sha256: check.sha256 }
    )
    if (Either.isLeft(signature)) return Either.left(refuse(signature.left.code, signature.left.detail))
    if (signature.right.keyid !== check.ownerKid) {
      return Either.left(refuse("not_owner", "owner routes are signed by the owner key that leaf 0 names"))
    }
    const fresh = yield* check.nonces.remember(signature.right.keyid, signature.right.nonce, replayExpiry(signature.right), now).pipe(
      Effect.orElseSucceed(() => undefined)
    )
    if (fresh === undefined) return Either.left(refuse("log_unavailable", "the replay store failed"))
    if (!fresh) return Either.left(refuse("nonce_reused", "this key already used this nonce"))
    return Either.right(signature.right)
  })
