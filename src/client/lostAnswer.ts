// A write whose answer was lost (docs/protocol.md 8.3): the connection was made and the
// request perhaps sent, then nothing came back (a proxy or the network cut it, a timeout).
// The log may hold the entry or not, and a retry would sign the same text again at the next
// chain position: a duplicate, permanent. So before answering, the client asks the log:
//   - the key view (GET /v2/keys/{kid}) names the head of the key's chain: at or past the
//     envelope's seq, the entry of that seq is read with its receipt (fetchReceipt: the note
//     checked with the log key, the leaf with its inclusion proof) and must be the very
//     envelope sent; then the write was accepted and this is its receipt. Another envelope at
//     that seq (the chain moved elsewhere: the text gate, another copy of the key file) means
//     this one was not accepted;
//   - short of it, the log does not hold it yet, but may still: the request may wait in the
//     sequencer's queue, be relayed to the node that sequences, or be settled by the next
//     lease holder. What bounds it is the envelope's `expires`: the sequencer refuses an
//     envelope it would log at or after it (domain/write/decisionDeadline.ts). So the write
//     is said not accepted only once the service's clock (the Date of the key view's
//     answer) has passed `expires` by AFTER_EXPIRES_MS, the head still short. When that is
//     at most LOST_ANSWER_MAX_WAIT_MS away the client keeps looking until then; further
//     (an envelope lives 300 s), it says the write may still be written and when to look.
// Nothing of it is taken on the service's word but the head's position, which the leaves
// read then prove or disprove, and its clock: a Date behind only makes the client wait or
// say "not yet known"; one ahead of the sequencer's clock by more than AFTER_EXPIRES_MS
// could have it say "not accepted" early, which is why the nodes of a service keep their
// clocks together.

import { Either } from "effect"
import { equal } from "../domain/bytes.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { envelopeHash } from "../domain/envelope/hash.js"
import { crypto } from "./crypto.js"
import { ClientError, protocolError } from "./errors.js"
import { getJson } from "./http.js"
import { answeredAt, serviceNowMillis } from "./serviceClock.js"
import { fetchReceipt, type ReissuedReceipt } from "./reissuedReceipt.js"
import type { LogClient } from "./write.js"

/** How long a chain head short of the envelope is looked at again at least (another node's read of a leaf just committed). */
export const LOST_ANSWER_SETTLE_MS = 2_000
/**
 * How long past the envelope's `expires`, by the service's clock, a head still short of it
 * means the log can no longer take it: a batch decided just before `expires` made durable,
 * another node's read of its leaf (LOST_ANSWER_SETTLE_MS), the Date header's whole seconds,
 * and the clocks of the service's nodes a second or two apart.
 */
export const AFTER_EXPIRES_MS = 5_000
/** How long the client waits for that moment before it says the write may still be written instead. */
export const LOST_ANSWER_MAX_WAIT_MS = 30_000
const LOOK_AGAIN_MS = 250

/** What the log says of an envelope whose answer was lost. */
export type LostWrite =
  /** It is the leaf of the receipt (verified). */
  | { readonly _tag: "Written"; readonly reissued: ReissuedReceipt }
  /**
   * The log's chain of the key ends before the envelope's seq (`headSeq`, null: the key wrote
   * nothing) at `expires` + AFTER_EXPIRES_MS by the service's clock: the log can no longer take it.
   */
  | { readonly _tag: "Absent"; readonly headSeq: number | null }
  /** Another envelope holds its seq, at leaf `index`. */
  | { readonly _tag: "Displaced"; readonly index: number }
  /**
   * Not in the log yet, and the log may still take it until `closesAt` (Unix ms by the
   * service's clock: `expires` + AFTER_EXPIRES_MS), too far to wait for; `serviceNow` is the
   * service's clock when last asked (undefined when its answer had no Date).
   */
  | { readonly _tag: "Undecided"; readonly headSeq: number | null; readonly closesAt: number; readonly serviceNow: number | undefined }

interface KeyHead {
  readonly seq: number | null
  readonly headIndex: number | null
  /** The service's clock as it answered (its Date, Unix ms), when it gave one. */
  readonly serviceNow: number | undefined
}

const keyPath = (kid: string, query = ""): string => `/v2/keys/${encodeURIComponent(kid)}${query}`

const keyHead = async (client: LogClient, kid: string): Promise<KeyHead> => {
  const answer = await getJson(client.service, keyPath(kid)).then(({ json, headers }) => ({ view: json as { seq?: unknown; head_index?: unknown }, serviceNow: answeredAt(headers) }), (error: unknown) => {
    // A key with no envelope yet is unknown to the log; its clock is then asked apart.
    if (error instanceof ClientError && error.kind === "not_found") return { view: undefined, serviceNow: undefined }
    throw error
  })
  const { view } = answer
  const serviceNow = view === undefined ? await serviceNowMillis(client) : answer.serviceNow
  if (view === undefined || view.seq === null || view.seq === undefined) return { seq: null, headIndex: null, serviceNow }
  if (typeof view.seq !== "number" || typeof view.head_index !== "number") throw protocolError(`GET ${keyPath(kid)}: no seq and head_index`)
  return { seq: view.seq, headIndex: view.head_index, serviceNow }
}

/**
 * The leaf of the key's envelope at `seq`, when the chain went on past it: among the key's
 * envelopes from leaf `since` on (the tree size before the write; its envelope is at or past
 * it), the one whose receipt names that seq.
 */
const leafOfSeq = async (client: LogClient, kid: string, seq: number, head: number, since: number): Promise<ReissuedReceipt> => {
  // From `since` on: at most the previous head (when the checkpoint read lagged it), this seq, and those after it.
  const limit = Math.min(head - seq + 2, 10_000)
  const path = keyPath(kid, `?from=${since}&limit=${limit}`)
  const { json } = await getJson(client.service, path)
  const indices = (json as { indices?: unknown }).indices
  if (!Array.isArray(indices)) throw protocolError(`GET ${path}: no indices`)
  for (const index of indices) {
    if (typeof index !== "number") throw protocolError(`GET ${path}: an index is not a number`)
    const reissued = await fetchReceipt(client, index)
    if (reissued.receipt.seq === seq) return reissued
  }
  throw protocolError(`GET ${path}: none of the key's envelopes from leaf ${since} on is its seq ${seq}`)
}

/**
 * Whether the log holds `envelope`, whose write's answer was lost; `since` is the tree size of
 * a checkpoint read before it was sent. Throws when the log cannot be asked (the caller then
 * says the write MAY have been accepted).
 */
export const findLostWrite = async (
  client: LogClient,
  envelope: Envelope,
  since: number,
  timing: { readonly settleMs?: number; readonly maxWaitMs?: number } = {}
): Promise<LostWrite> => {
  const started = Date.now()
  const settleMs = timing.settleMs ?? LOST_ANSWER_SETTLE_MS
  const maxWaitMs = timing.maxWaitMs ?? LOST_ANSWER_MAX_WAIT_MS
  const closesAt = envelope.expires * 1000 + AFTER_EXPIRES_MS
  for (;;) {
    const head = await keyHead(client, envelope.kid)
    if (head.seq !== null && head.headIndex !== null && head.seq >= envelope.seq) {
      const reissued = head.seq === envelope.seq ? await fetchReceipt(client, head.headIndex) : await leafOfSeq(client, envelope.kid, envelope.seq, head.seq, since)
      const sent = Either.getOrThrow(envelopeHash(crypto.sha256, envelope))
      const logged = Either.getOrThrow(envelopeHash(crypto.sha256, reissued.envelope))
      return equal(sent, logged) ? { _tag: "Written", reissued } : { _tag: "Displaced", index: reissued.receipt.index }
    }
    const elapsed = Date.now() - started
    // Looked at for the settle at least, then only as long as the log can still take it.
    if (elapsed >= settleMs && head.serviceNow !== undefined && head.serviceNow >= closesAt) return { _tag: "Absent", headSeq: head.seq }
    const wait = head.serviceNow === undefined ? Number.POSITIVE_INFINITY : closesAt - head.serviceNow
    if (elapsed >= settleMs && wait > maxWaitMs - elapsed) {
      return { _tag: "Undecided", headSeq: head.seq, closesAt, serviceNow: head.serviceNow }
    }
    await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS))
  }
}
