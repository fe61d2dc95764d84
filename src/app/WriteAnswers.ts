// The answers of every write route (POST /v2/entries and the owner's /v2/admin/*): an
// accepted entry with its log-signed receipt, or a refusal with its log-signed refusal note
// (docs/spec/profile.md sections 4 and 7). One place, so both routes answer in exactly one shape.
// An accepted answer is built from the leaf alone (index, leaf hash, logged, and the
// envelope's type, kid and seq), and Ed25519 signs deterministically, so `reissued` answers
// any leaf's {entry, receipt_note} again, byte for byte the one its write answered
// (GET /v2/entries/{index}/receipt, the gate's `receipt <index>`: docs/protocol.md 8.3).
// A refusal is not in the log: its note cannot be made again, and is not.

import { Context, Effect, Layer } from "effect"
import { fromUtf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { isJsonObject } from "../domain/envelope/jcs.js"
import type { Hash } from "../domain/tlog/hasher.js"
import { refusalStatus, type Refusal } from "../domain/write/refusal.js"
import { refusedEnvelopeHash } from "../domain/write/submission.js"
import { Crypto } from "../ports/Crypto.js"
import { AuthorityRefusals } from "./AuthorityRefusals.js"
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
  /**
   * The accepted answer's body for leaf `index` of the log, whose entry bytes are `entry`:
   * the same `entry` members and the same receipt_note bytes as the write that appended it
   * answered (counted as no write). The bytes must be the log's own leaf at that index, and
   * `leafHash` the tree's leaf hash of it (ReissuedReceipts checks the two agree).
   */
  readonly reissued: (index: number, entry: Uint8Array, leafHash: Hash) => Effect.Effect<AcceptedBody>
}>() {
  static readonly layer = Layer.effect(WriteAnswers, Effect.gen(function*() {
    const crypto = yield* Crypto
    const receipts = yield* Receipts
    const authorityRefusals = yield* AuthorityRefusals
    /** The receipt of an accepted leaf and the `entry` member beside it (docs/spec/profile.md section 4): the one shape every accepted answer has. */
    const acceptedBody = (leaf: AcceptedLeaf): Effect.Effect<AcceptedBody> =>
      Effect.map(receipts.accepted(leaf.index, leaf.leafHash, leaf.logged), (note) => ({
        entry: {
          index: leaf.index,
          leaf_hash: encodeU64(leaf.leafHash),
          logged: leaf.logged,
          type: leaf.type,
          kid: leaf.kid,
          seq: leaf.seq
        },
        receipt_note: encodeU64(note)
      }))
    return {
      refused: (body, reason, at) =>
        Effect.gen(function*() {
          const envelopeHash = refusedEnvelopeHash(body, crypto.sha256)
          const note = yield* receipts.refused(reason.code, envelopeHash, at)
          yield* countWrite(reason.code)
          if (reason.code === "authority_not_allowed") yield* authorityRefusals.refused(reason.detail)
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
        Effect.map(Effect.zipLeft(acceptedBody({
          index: outcome.index, leafHash: outcome.leafHash, logged: outcome.logged, type: envelope.type, kid: envelope.kid, seq: envelope.seq
        }), countWrite(undefined)), (body) => ({
          status,
          body,
          location: `/v2/entries/${outcome.index}`
        })),
      reissued: (index, entry, leafHash) =>
        Effect.suspend(() => {
          // The log's own leaf: JCS({envelope, index, logged}) as the sequencer wrote it.
          const leaf = JSON.parse(fromUtf8(entry)) as { envelope: Pick<Envelope, "type" | "kid" | "seq">; index: number; logged: number }
          if (leaf.index !== index) return Effect.die(new Error(`leaf ${index} holds the entry bytes of index ${leaf.index}`))
          const { type, kid, seq } = leaf.envelope
          return acceptedBody({ index, leafHash, logged: leaf.logged, type, kid, seq })
        })
    }
  }))
}

/** The body of an accepted answer: the leaf's `entry` members and U64 of its receipt note. */
export interface AcceptedBody {
  readonly entry: {
    readonly index: number
    /** U64. */
    readonly leaf_hash: string
    readonly logged: number
    readonly type: string
    readonly kid: string
    readonly seq: number
  }
  readonly receipt_note: string
}

/** What an accepted answer says of its leaf. */
interface AcceptedLeaf {
  readonly index: number
  readonly leafHash: Hash
  readonly logged: number
  readonly type: string
  readonly kid: string
  readonly seq: number
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
