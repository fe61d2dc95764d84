// The owner's operations (docs/spec/service.md "Owner operations", "Authentication" 5; docs/spec/profile.md
// section 5): the same signed {envelope, body} request as POST /v2/entries, sent to the
// /v2/admin/* route of its type, answered 201 {entry, receipt_note} once durable. Unsigned
// is 401; signed by any key but the owner key leaf 0 names is 403 `not_owner`. The rules of
// each operation are the domain's (src/domain/governance, entries/types): this only
// authenticates, checks the envelope and hands it to the one sequencer.
//
// Owner traffic is rare, so its checks run on the event loop (no worker round trip).

import { Context, Effect, Either, Layer } from "effect"
import { DOCUMENT_LIMIT } from "../domain/entries/entryRule.js"
import { MAX_ENTRY_BYTES } from "../domain/envelope/leaf.js"
import { refuse } from "../domain/write/refusal.js"
import { checkAdminSubmission } from "../domain/write/submission.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { NonceStore } from "../ports/NonceStore.js"
import type { WriteRequest } from "../ports/WriteChecks.js"
import { Charter } from "./Charter.js"
import { MAX_WRITE_REQUEST_BYTES } from "./EntryWrites.js"
import { checkOwnerSignature, ownerHeadRefusal } from "./ownerSignature.js"
import { LogHealth } from "./LogHealth.js"
import { Sequencer } from "./Sequencer.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { WriteAnswers, type WriteAnswer } from "./WriteAnswers.js"

/**
 * Largest request body on the owner's routes: an owner's document (a policy, an audit
 * report, a completion's result; DOCUMENT_LIMIT) in U64 beside the largest envelope a leaf
 * holds, with room for the JSON around them (about 1.4 MiB). POST /v2/entries keeps its
 * 256 KiB: agents' bodies are at most 64 KiB.
 */
export const MAX_ADMIN_REQUEST_BYTES = Math.ceil(DOCUMENT_LIMIT / 3) * 4 + MAX_ENTRY_BYTES + 1024

export class AdminWrites extends Context.Tag("aics/AdminWrites")<AdminWrites, {
  /** Writes an owner entry whose type is one of `types` (the route's). */
  readonly write: (request: WriteRequest, types: ReadonlyArray<string>) => Effect.Effect<WriteAnswer>
  /**
   * How many bytes of a request's body the service reads: room for an owner's document
   * (MAX_ADMIN_REQUEST_BYTES) only when the head carries the owner's valid signature, and
   * otherwise what any agent's write may be (MAX_WRITE_REQUEST_BYTES), so a stranger cannot
   * make the service buffer more for an owner route than for POST /v2/entries. The head's
   * signature covers Content-Digest, so it is judged before the body arrives.
   */
  readonly bodyLimit: (head: Omit<WriteRequest, "body">) => Effect.Effect<number>
}>() {
  static readonly layer = Layer.effect(AdminWrites, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const crypto = yield* Crypto
    const clock = yield* Clock
    const nonces = yield* NonceStore
    const health = yield* LogHealth
    const sequencer = yield* Sequencer
    const answers = yield* WriteAnswers
    const { ownerKid } = (yield* Charter).terms
    const owner = { ownerKid, authorities: config.authorities, ed25519: crypto.ed25519, sha256: crypto.sha256, nonces }
    const context = { origin: config.origin, sha256: crypto.sha256, ed25519: crypto.ed25519 }

    return {
      bodyLimit: (head) =>
        Effect.map(clock.nowMillis, (nowMillis) =>
          ownerHeadRefusal(owner, { ...head, headers: (name) => head.headers[name.toLowerCase()] }, Math.floor(nowMillis / 1000)) === undefined
            ? MAX_ADMIN_REQUEST_BYTES
            : MAX_WRITE_REQUEST_BYTES),
      write: (request, types) =>
        Effect.gen(function*() {
          const nowMillis = yield* clock.nowMillis
          const now = Math.floor(nowMillis / 1000)
          const refused = (code: Parameters<typeof refuse>[0], detail: string) => answers.refused(request.body, refuse(code, detail), nowMillis)
          const signature = yield* checkOwnerSignature(owner, request, now)
          if (Either.isLeft(signature)) return yield* answers.refused(request.body, signature.left, nowMillis)
          const submission = checkAdminSubmission(request.body, signature.right, context)
          if (Either.isLeft(submission)) return yield* answers.refused(request.body, submission.left, nowMillis)
          if (!types.includes(submission.right.envelope.type)) {
            return yield* refused("unknown_type", `this route takes ${types.join(" or ")}, not ${submission.right.envelope.type}`)
          }
          const diverged = yield* health.diverged
          if (diverged !== undefined) return yield* refused("log_unavailable", diverged)
          const outcome = yield* sequencer.submit(submission.right)
          if (outcome._tag === "Refused") return yield* answers.refused(request.body, outcome.refusal, outcome.at)
          return yield* answers.accepted(submission.right.envelope, outcome, 201)
        })
    }
  }))
}
