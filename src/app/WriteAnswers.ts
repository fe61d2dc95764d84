// The answers of every write route (POST /v2/entries and the owner's /v2/admin/*): an
// accepted entry with its log-signed receipt, or a refusal with its log-signed refusal note
// (docs/spec/profile.md sections 4 and 7). One place, so both routes answer in exactly one shape.

import { Context, Effect, Layer } from "effect"
import { fromUtf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { isJsonObject } from "../domain/envelope/jcs.js"
import { refusalStatus, type Refusal } from "../domain/write/refusal.js"
import { refusedEnvelopeHash } from "../domain/write/submission.js"
import { Crypto } from "../ports/Crypto.js"
import { countWrite } from "./Metrics.js"
import { Receipts } from "./Receipts.js"
import type { WriteOutcome } from "./Sequencer.js"
import type { RateLimitFields } from "./Admission.js"

export interface WriteAnswer {
  readonly status: number
  readonly body: { readonly entry: Record<string, unknown>; readonly receipt_note: string }
  /** `/v2/entries/<index>` for an accepted entry. */
  readonly location?: string
  /** Seconds, for 503 queue_full and 429 rate_limited. */
  readonly retryAfter?: number
  /** RateLimit-Policy and RateLimit of the budgets the write spent (docs/protocol.md "Fair admission"). */
  readonly rateLimit?: RateLimitFields
}

/**
 * Retry-After of a ciphertext refusal: room comes back only as retention deletes expired
 * ciphertext (at least 90 days after it was logged), so asking again within seconds is
 * pointless; an hour lets a writer come back without hammering a full service.
 */
export const CIPHERTEXT_RETRY_AFTER_SECONDS = 3600

export class WriteAnswers extends Context.Tag("aics/WriteAnswers")<WriteAnswers, {
  /** The refusal of a request whose raw body is `body`. */
  readonly refused: (body: Uint8Array, reason: Refusal, at: number) => Effect.Effect<WriteAnswer>
  /** The answer to an accepted envelope, with the route's success status (202 or 201). */
  readonly accepted: (envelope: Envelope, outcome: Extract<WriteOutcome, { _tag: "Accepted" }>, status: number) => Effect.Effect<WriteAnswer>
}>() {
  static readonly layer = Layer.effect(WriteAnswers, Effect.gen(function*() {
    const crypto = yield* Crypto
    const receipts = yield* Receipts
    return {
      refused: (body, reason, at) =>
        Effect.gen(function*() {
          const envelopeHash = refusedEnvelopeHash(body, crypto.sha256)
          const note = yield* receipts.refused(reason.code, envelopeHash, at)
          yield* countWrite(reason.code)
          return {
            status: refusalStatus(reason.code),
            body: {
              entry: { refused: reason.code, detail: reason.detail, envelope_hash: encodeU64(envelopeHash), ...readableKey(body) },
              receipt_note: encodeU64(note)
            },
            ...(reason.retryAfter !== undefined ? { retryAfter: reason.retryAfter } : reason.code === "queue_full" ? { retryAfter: 1 } : reason.code === "ciphertext_budget_exhausted" ? { retryAfter: CIPHERTEXT_RETRY_AFTER_SECONDS } : {})
          }
        }),
      accepted: (envelope, outcome, status) =>
        Effect.map(Effect.zipLeft(receipts.accepted(outcome.index, outcome.leafHash, outcome.logged), countWrite(undefined)), (note) => ({
          status,
          body: {
            entry: {
              index: outcome.index,
              leaf_hash: encodeU64(outcome.leafHash),
              logged: outcome.logged,
              type: envelope.type,
              kid: envelope.kid,
              seq: envelope.seq
            },
            receipt_note: encodeU64(note)
          },
          location: `/v2/entries/${outcome.index}`
        }))
    }
  }))
}

/** The refused envelope's kid and seq, where they can be read (docs/spec/profile.md section 4). */
const readableKey = (body: Uint8Array): { kid?: string; seq?: number } => {
  try {
    const request: unknown = JSON.parse(fromUtf8(body))
    if (!isJsonObject(request) || !isJsonObject(request["envelope"])) return {}
    const { kid, seq } = request["envelope"]
    return {
      ...(typeof kid === "string" ? { kid } : {}),
      ...(typeof seq === "number" && Number.isSafeInteger(seq) ? { seq } : {})
    }
  } catch {
    return {}
  }
}
