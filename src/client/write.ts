// One entry write, end to end: origin from the verified checkpoint, the envelope at the
// key's chain position, the signed POST, and the answer checked before anything is kept.
//   202      the receipt note must be the log key's, for this index, this logged time and
//            the leaf hash the client computes itself from its own envelope; only then
//            does the chain advance (the caller saves the returned key).
//   refusal  the refusal note must be the log key's, for this code and this envelope; the
//            result is a value (the chain does not advance), not an exception.
// Anything else (a problem document, a reply that does not verify) is a ClientError.
//   lost     the request may have reached the service but no answer came (the connection
//            cut, a timeout, a gateway's 502/504): the log is asked before anything is said
//            (lostAnswer.ts). Its entry found, the write is Accepted with the receipt fetched
//            again and verified (`answerLost` says so); another envelope at its seq, or none
//            once the log can no longer take it (past its expires), the error says the write
//            was not accepted; not there yet while the log may still take it, or the log not
//            answering, the error says the write MAY be (or have been) accepted and how and
//            when to find out before sending it again (a retry would be a second, permanent
//            entry).

import type { WitnessPolicy } from "./witnesses.js"
import { Either } from "effect"
import { equal } from "../domain/bytes.js"
import { decodeU64, encodeU64 } from "../domain/encoding.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { envelopeHash } from "../domain/envelope/hash.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { entryBytes } from "../domain/envelope/leaf.js"
import type { VerifierKey } from "../domain/note/verifierKey.js"
import { advanceChain, type AgentKey, type StoredReceipt } from "./agentKey.js"
import { fetchCheckpoint } from "./checkpoint.js"
import { crypto, hasher } from "./crypto.js"
import { buildWorkedEnvelope, type Work } from "./envelope.js"
import { ClientError, protocolError, usageError, verificationError } from "./errors.js"
import { endpoint, NoAnswer, retryAfterSeconds, type Service } from "./http.js"
import { AFTER_EXPIRES_MS, findLostWrite, type LostWrite } from "./lostAnswer.js"
import { ENTRIES_PATH, postEnvelope } from "./signedPost.js"
import { verifyReceiptNote, verifyRefusalNote } from "./receipts.js"

export interface LogClient {
  readonly service: Service
  /** The log's verifier key, obtained out of band (vkey.ts). */
  readonly vkey: VerifierKey
  /** Unix milliseconds; Date.now unless a test fixes the clock. */
  readonly now?: () => number
  /** Witnesses whose cosignatures every checkpoint must carry (witnesses.ts); none when absent. */
  readonly witnesses?: WitnessPolicy | undefined
}

export interface Accepted {
  readonly _tag: "Accepted"
  readonly envelope: Envelope
  readonly receipt: StoredReceipt
  /** The Location header: /v2/entries/<index>. */
  readonly location: string | null
  /** The key advanced past this entry; save it. */
  readonly key: AgentKey
  /** Set when the write's answer was lost and the entry found in the log: what became of the answer. */
  readonly answerLost?: string
}

export interface Refused {
  readonly _tag: "Refused"
  readonly envelope: Envelope
  /** The refusal code (src/domain/write/refusal.ts). */
  readonly code: string
  readonly status: number
  readonly detail: string
  /** U64 of the refused envelope's hash; the log-signed note names it. */
  readonly envelopeHash: string
  readonly receiptNote: string
  /** Seconds the answer's Retry-After asks to wait before sending again (a 429, a 503), when it gave one. */
  readonly retryAfter?: number
}

export type WriteResult = Accepted | Refused

/** Where an entry is sent and the status that says it was accepted. */
export interface WriteRoute {
  readonly path: string
  readonly status: number
}

/** POST /v2/entries, 202 once durable. The owner's routes answer 201 (admin.ts). */
export const ENTRY_ROUTE: WriteRoute = { path: ENTRIES_PATH, status: 202 }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0

/** The {entry, receipt_note} answer, or a protocol error quoting what came instead; an answer cut off is a NoAnswer. */
export const readAnswer = async (response: Response, path: string = ENTRIES_PATH): Promise<{ entry: Record<string, unknown>; note: string }> => {
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    // The status came, so the request arrived; the rest of the answer did not.
    throw new NoAnswer(`POST ${path}: the ${response.status} answer was cut off (${error instanceof Error ? error.message : String(error)})`, true)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw protocolError(`POST ${path}: ${response.status} with an answer that is not JSON`)
  }
  if (isRecord(json) && isRecord(json["entry"]) && typeof json["receipt_note"] === "string") {
    return { entry: json["entry"], note: json["receipt_note"] }
  }
  const problem = isRecord(json) && typeof json["code"] === "string" ? ` ${json["code"]}: ${String(json["detail"] ?? "")}` : ""
  throw protocolError(`POST ${path}: ${response.status}${problem} (not an entry receipt)`)
}

const accepted = (
  client: LogClient,
  key: AgentKey,
  envelope: Envelope,
  entry: Record<string, unknown>,
  note: string,
  location: string | null
): Accepted => {
  const { index, logged } = entry
  const leafHash = typeof entry["leaf_hash"] === "string" ? decodeU64(entry["leaf_hash"]) : undefined
  if (!isCount(index) || !isCount(logged) || leafHash === undefined) {
    throw protocolError("the 202 answer lacks index, leaf_hash or logged")
  }
  if (entry["kid"] !== envelope.kid || entry["seq"] !== envelope.seq) throw verificationError("the 202 answer is about another key or seq")
  // The leaf the log says it holds must be this envelope at this index and time.
  const bytes = entryBytes(envelope, index, logged)
  if (Either.isLeft(bytes) || !equal(hasher.leafHash(bytes.right), leafHash)) {
    throw verificationError(`the leaf hash of entry ${index} is not the hash of the envelope sent`)
  }
  verifyReceiptNote(note, client.vkey, { index, leafHash, logged })
  const receipt: StoredReceipt = {
    index,
    leaf_hash: encodeU64(leafHash),
    logged,
    type: envelope.type,
    seq: envelope.seq,
    receipt_note: note
  }
  return { _tag: "Accepted", envelope, receipt, location, key: advanceChain(key, envelope, receipt) }
}

const refused = (client: LogClient, envelope: Envelope, status: number, entry: Record<string, unknown>, note: string, retryAfter: string | null): Refused => {
  const { refused: code, detail } = entry
  if (typeof code !== "string" || typeof detail !== "string") throw protocolError(`a ${status} answer lacks refused or detail`)
  const hash = Either.getOrThrow(envelopeHash(crypto.sha256, envelope))
  if (entry["envelope_hash"] !== encodeU64(hash)) throw verificationError("the refusal names another envelope hash")
  verifyRefusalNote(note, client.vkey, { code, envelopeHash: hash })
  // Retry-After in delta-seconds, as the service sends it; a date is left to the detail's words.
  const seconds = retryAfterSeconds(retryAfter)
  return { _tag: "Refused", envelope, code, status, detail, envelopeHash: encodeU64(hash), receiptNote: note, ...(seconds === undefined ? {} : { retryAfter: seconds }) }
}

/** Gateway answers that say nothing of the write: the service behind may have taken it. */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 504])

/** The answer to the POST, or a LostAnswer when the request may have reached the service and no answer of it came. */
const sendAndRead = async (
  client: LogClient,
  key: AgentKey,
  envelope: Envelope,
  body: Uint8Array | null,
  route: WriteRoute
): Promise<{ response: Response; entry: Record<string, unknown>; note: string } | LostAnswer> => {
  const lost = (error: unknown): LostAnswer | undefined =>
    error instanceof NoAnswer && error.mayHaveArrived ? { _tag: "LostAnswer", failure: error.failure } : undefined
  let response: Response
  try {
    response = await postEnvelope(client.service, key.seed, envelope, body, route.path)
  } catch (error) {
    return lost(error) ?? Promise.reject(error)
  }
  try {
    return { response, ...(await readAnswer(response, route.path)) }
  } catch (error) {
    const gateway = error instanceof ClientError && error.kind === "protocol" && GATEWAY_STATUSES.has(response.status)
    return lost(error) ?? (gateway ? { _tag: "LostAnswer", failure: error.message } : Promise.reject(error))
  }
}

interface LostAnswer {
  readonly _tag: "LostAnswer"
  /** What happened to the answer. */
  readonly failure: string
}

/** What the log says of an envelope whose answer was lost (lostAnswer.ts): Accepted with its receipt, or an error saying what is known. */
const recovered = async (client: LogClient, key: AgentKey, envelope: Envelope, since: number, lost: LostAnswer): Promise<Accepted> => {
  const position = `seq ${envelope.seq} of ${envelope.kid}`
  let found: LostWrite
  try {
    found = await findLostWrite(client, envelope, since)
  } catch (error) {
    const why = error instanceof NoAnswer ? error.failure : error instanceof Error ? error.message : String(error)
    const check = (receipt: string) =>
      `${lost.failure}. The request may have reached the service, so this write MAY have been accepted (${position}), and the log could not be asked (${why}). ` +
      `Before sending it again, find out: ${howToFind(client, envelope, receipt)}. Sending it again unchecked may write it twice, permanently.`
    throw new ClientError("network", check(CLI_RECEIPT), { mcpMessage: check(MCP_RECEIPT) })
  }
  if (found._tag === "Written") {
    const { receipt } = found.reissued
    return {
      _tag: "Accepted",
      envelope,
      receipt,
      location: `/v2/entries/${receipt.index}`,
      key: advanceChain(key, envelope, receipt),
      answerLost: `${lost.failure}; the log holds this very envelope as entry ${receipt.index}, and its receipt, fetched again, verified`
    }
  }
  if (found._tag === "Undecided") {
    const chain = found.headSeq === null ? "is empty" : `ends at seq ${found.headSeq}`
    const when = new Date(found.closesAt).toISOString()
    const inSeconds = found.serviceNow === undefined ? "" : ` (in about ${Math.ceil((found.closesAt - found.serviceNow) / 1000)} s)`
    const pending = (receipt: string) =>
      `${lost.failure}; asked then, the log holds no entry at ${position} yet (its chain ${chain}), but this write MAY still be written: ` +
      `the log takes the envelope until its expires (${envelope.expires}), and the request may still be waiting to be sequenced. ` +
      `Do not send it again before ${when} by the service's clock${inSeconds}; then find out: ${howToFind(client, envelope, receipt)}. Sending it again unchecked may write it twice, permanently.`
    throw new ClientError("network", pending(CLI_RECEIPT), { mcpMessage: pending(MCP_RECEIPT) })
  }
  const where = found._tag === "Absent"
    ? `the log holds no entry at ${position} (its chain ${found.headSeq === null ? "is empty" : `ends at seq ${found.headSeq}`}), still ${AFTER_EXPIRES_MS / 1000} s after the envelope's expires (${envelope.expires}) by the service's clock, when the log can no longer take it`
    : `the log's entry at ${position} is another envelope (entry ${found.index}: the chain moved on without this key file; the next write takes the head from the log)`
  throw new ClientError("network", `${lost.failure}; asked then, ${where}: this write was NOT accepted, nothing was written; it may be sent again`)
}

const CLI_RECEIPT = "`aics receipt <head_index>`"
const MCP_RECEIPT = "the receipt tool with that index (the aics://key resource shows the key view too)"

/** How to find out whether a write whose answer was lost is in the log: the key view, then the receipt of its head. */
const howToFind = (client: LogClient, envelope: Envelope, receipt: string): string =>
  `GET ${endpoint(client.service, `/v2/keys/${encodeURIComponent(envelope.kid)}`).href} (the key's seq and head_index); seq ${envelope.seq} there means it was accepted as leaf head_index, ` +
  `and ${receipt} fetches, verifies and keeps its receipt (do not send it again); a lower seq means it was not accepted`

/** Signs and sends one entry of the key; the key in an Accepted result is the one to save. */
export const writeEntry = async (
  client: LogClient,
  key: AgentKey,
  type: string,
  payload: JsonObject,
  body: Uint8Array | null,
  route: WriteRoute = ENTRY_ROUTE,
  work?: Work
): Promise<WriteResult> => {
  const { origin, size } = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  if (key.origin !== null && key.origin !== origin) {
    throw usageError(`this key file's chain is on log ${key.origin}, not ${origin}; use another key file for this log`)
  }
  const envelope = await buildWorkedEnvelope(key, origin, type, payload, work ?? { bits: 0 }, client.now ?? Date.now)
  const answer = await sendAndRead(client, key, envelope, body, route)
  if ("_tag" in answer) return recovered(client, key, envelope, size, answer)
  const { response, entry, note } = answer
  if (response.status === route.status) return accepted(client, key, envelope, entry, note, response.headers.get("location"))
  if (response.status >= 400) return refused(client, envelope, response.status, entry, note, response.headers.get("retry-after"))
  throw protocolError(`POST ${route.path}: unexpected status ${response.status}`)
}
