// A write whose answer was lost (docs/protocol.md 8.3): the connection was made and the
// request perhaps sent, then nothing came back (a proxy or the network cut it, a timeout).
// The log may hold the entry or not, and a retry would sign the same text again at the next
// chain position: a duplicate, permanent. So before answering, the client asks the log:
//   - the key view (GET /v2/keys/{kid}) names the head of the key's chain: a seq short of
//     the envelope's means the log holds no entry at its position (looked at again for
//     LOST_ANSWER_SETTLE_MS, the time another node of the service may take to read a leaf
//     just committed), so the write was not accepted;
//   - at or past it, the entry of that seq is read with its receipt (fetchReceipt: the note
//     checked with the log key, the leaf with its inclusion proof) and must be the very
//     envelope sent; then the write was accepted and this is its receipt. Another envelope at
//     that seq (the chain moved elsewhere: the text gate, another copy of the key file) means
//     this one was not accepted.
// Nothing of it is taken on the service's word but the head's position, which the leaves
// read then prove or disprove.

import { Either } from "effect"
import { equal } from "../domain/bytes.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { envelopeHash } from "../domain/envelope/hash.js"
import { crypto } from "./crypto.js"
import { ClientError, protocolError } from "./errors.js"
import { getJson } from "./http.js"
import { fetchReceipt, type ReissuedReceipt } from "./reissuedReceipt.js"
import type { LogClient } from "./write.js"

/** How long a chain head short of the envelope is looked at again before the write is said not accepted. */
export const LOST_ANSWER_SETTLE_MS = 2_000
const LOOK_AGAIN_MS = 250

/** What the log says of an envelope whose answer was lost. */
export type LostWrite =
  /** It is the leaf of the receipt (verified). */
  | { readonly _tag: "Written"; readonly reissued: ReissuedReceipt }
  /** The log's chain of the key ends before the envelope's seq (`headSeq`, null: the key wrote nothing). */
  | { readonly _tag: "Absent"; readonly headSeq: number | null }
  /** Another envelope holds its seq, at leaf `index`. */
  | { readonly _tag: "Displaced"; readonly index: number }

interface KeyHead {
  readonly seq: number | null
  readonly headIndex: number | null
}

const keyPath = (kid: string, query = ""): string => `/v2/keys/${encodeURIComponent(kid)}${query}`

const keyHead = async (client: LogClient, kid: string): Promise<KeyHead> => {
  const view = await getJson(client.service, keyPath(kid)).then(({ json }) => json as { seq?: unknown; head_index?: unknown }, (error: unknown) => {
    // A key with no envelope yet is unknown to the log.
    if (error instanceof ClientError && error.kind === "not_found") return undefined
    throw error
  })
  if (view === undefined || view.seq === null || view.seq === undefined) return { seq: null, headIndex: null }
  if (typeof view.seq !== "number" || typeof view.head_index !== "number") throw protocolError(`GET ${keyPath(kid)}: no seq and head_index`)
  return { seq: view.seq, headIndex: view.head_index }
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
export const findLostWrite = async (client: LogClient, envelope: Envelope, since: number, settleMs = LOST_ANSWER_SETTLE_MS): Promise<LostWrite> => {
  const deadline = Date.now() + settleMs
  for (;;) {
    const head = await keyHead(client, envelope.kid)
    if (head.seq !== null && head.headIndex !== null && head.seq >= envelope.seq) {
      const reissued = head.seq === envelope.seq ? await fetchReceipt(client, head.headIndex) : await leafOfSeq(client, envelope.kid, envelope.seq, head.seq, since)
      const sent = Either.getOrThrow(envelopeHash(crypto.sha256, envelope))
      const logged = Either.getOrThrow(envelopeHash(crypto.sha256, reissued.envelope))
      return equal(sent, logged) ? { _tag: "Written", reissued } : { _tag: "Displaced", index: reissued.receipt.index }
    }
    if (Date.now() >= deadline) return { _tag: "Absent", headSeq: head.seq }
    await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS))
  }
}
