// The owner's signature on a /v2/admin/* request (docs/spec/service.md "Authentication" 5: unsigned
// 401, signed by another key 403). A stranger learns nothing about a request's other
// faults, so the signature and the key come first: the RFC 9421 AICS profile, the owner key
// that leaf 0 names (else 403 `not_owner`), a (keyid, nonce) pair not seen before, and
// only then the owner's own mistakes (a query string on a write: 400). Shared by every
// owner write; ownerHeadRefusal is the same judgement before the body is read, for the
// answers the router and the schemas give before any handler runs (docs/protocol.md 12.5).

import { Effect, Either } from "effect"
import type { Ed25519, Sha256 } from "../domain/crypto.js"
import { checkAicsBody, checkAicsSignatureHead, replayExpiry, type AicsRequest, type AicsSignature } from "../domain/http/aicsProfile.js"
import { refuse, replayStoreFailed, type Refusal } from "../domain/write/refusal.js"
import type { NonceStore } from "../ports/NonceStore.js"
import type { WriteRequest } from "../ports/WriteChecks.js"

export interface OwnerKey {
  readonly ownerKid: string
  readonly authorities: ReadonlyArray<string>
  readonly ed25519: Ed25519
  readonly sha256: Sha256
}

export interface OwnerCheck extends OwnerKey {
  readonly nonces: typeof NonceStore.Service
}

const NOT_OWNER = "owner routes are signed by the owner key that leaf 0 names"

/** The owner's signature over the request's head (the body not yet compared with its digest). */
const ownerHead = (check: OwnerKey, request: Omit<AicsRequest, "body">, now: number) => {
  const signature = checkAicsSignatureHead(request, { now, authorities: check.authorities, ed25519: check.ed25519, sha256: check.sha256 })
  if (Either.isLeft(signature)) return Either.left(refuse(signature.left.code, signature.left.detail))
  return signature.right.keyid === check.ownerKid ? Either.right(signature.right) : Either.left(refuse("not_owner", NOT_OWNER))
}

/**
 * Why a request is not signed by the owner, judged from its head alone (the body unread,
 * no nonce spent); undefined when the owner's signature verifies. `now` is Unix seconds.
 */
export const ownerHeadRefusal = (check: OwnerKey, request: Omit<AicsRequest, "body">, now: number): Refusal | undefined =>
  Either.match(ownerHead(check, request, now), { onLeft: (refusal) => refusal, onRight: () => undefined })

/** The owner's verified signature, or the refusal to answer. `now` is Unix seconds. */
export const checkOwnerSignature = (check: OwnerCheck, request: WriteRequest, now: number): Effect.Effect<Either.Either<AicsSignature, Refusal>> =>
  Effect.gen(function*() {
    const head = ownerHead(check, { ...request, headers: (name) => request.headers[name.toLowerCase()] }, now)
    if (Either.isLeft(head)) return head
    // The body only once the owner is known: a stranger learns nothing of its digest.
    const signature = checkAicsBody(head.right, request.body, check.sha256)
    if (Either.isLeft(signature)) return Either.left(refuse(signature.left.code, signature.left.detail))
    const fresh = yield* Effect.either(check.nonces.remember(signature.right.keyid, signature.right.nonce, replayExpiry(signature.right), now))
    if (Either.isLeft(fresh)) return Either.left(replayStoreFailed(fresh.left))
    if (!fresh.right) return Either.left(refuse("nonce_reused", "this key already used this nonce"))
    // After the nonce: as on every write, a nonce is spent once the signature verifies.
    if (request.query !== "") return Either.left(refuse("malformed_request", "owner routes take no query string"))
    return Either.right(signature.right)
  })
