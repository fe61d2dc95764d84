// Signed reads (docs/spec/service.md "Authentication" 4, docs/spec/profile.md section 6): GET requests signed
// with the same RFC 9421 profile as writes, over the empty body's Content-Digest, with a
// (keyid, nonce) pair used once. The answer names the key that signed, which is the only
// key whose inbox and capsules the request may read.

import { Context, Effect, Either, Layer } from "effect"
import { checkAicsSignature, replayExpiry, type AicsRequest, type AicsSignature } from "../domain/http/aicsProfile.js"
import { refusalStatus, replayStoreFailed, type RefusalCode } from "../domain/write/refusal.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { NonceStore } from "../ports/NonceStore.js"
import { AuthorityRefusals } from "./AuthorityRefusals.js"
import { ServiceConfig } from "./ServiceConfig.js"

export interface ReadRefusal {
  readonly code: RefusalCode
  readonly status: number
  readonly detail: string
}

export class SignedReads extends Context.Tag("aics/SignedReads")<SignedReads, {
  readonly authenticate: (request: AicsRequest) => Effect.Effect<AicsSignature, ReadRefusal>
}>() {
  static readonly layer = Layer.effect(SignedReads, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const crypto = yield* Crypto
    const clock = yield* Clock
    const nonces = yield* NonceStore
    const authorityRefusals = yield* AuthorityRefusals
    const refused = (code: RefusalCode, detail: string) =>
      Effect.zipRight(
        code === "authority_not_allowed" ? authorityRefusals.refused(detail) : Effect.void,
        Effect.fail<ReadRefusal>({ code, status: refusalStatus(code), detail })
      )
    return {
      authenticate: (request) =>
        Effect.gen(function*() {
          const now = Math.floor((yield* clock.nowMillis) / 1000)
          const signature = checkAicsSignature(request, { now, authorities: config.authorities, ed25519: crypto.ed25519, sha256: crypto.sha256 })
          if (Either.isLeft(signature)) return yield* refused(signature.left.code, signature.left.detail)
          const fresh = yield* nonces.remember(signature.right.keyid, signature.right.nonce, replayExpiry(signature.right), now).pipe(
            Effect.catchAll((error) => {
              const refusal = replayStoreFailed(error)
              return refused(refusal.code, refusal.detail)
            })
          )
          if (!fresh) return yield* refused("nonce_reused", "this key already used this nonce")
          return signature.right
        })
    }
  }))
}
