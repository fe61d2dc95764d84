// One entry write, end to end: origin from the verified checkpoint, the envelope at the
// key's chain position, the signed POST, and the answer checked before anything is kept.
//   202      the receipt note must be the log key's, for this index, this logged time and
//            the leaf hash the client computes itself from its own envelope; only then
//            does the chain advance (the caller saves the returned key).
//   refusal  the refusal note must be the log key's, for this code and this envelope; the
//            result is a value (the chain does not advance), not an exception.
// Anything else (a problem document, a reply that does not verify) is a ClientError.

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
import { buildEnvelope, type Work } from "./envelope.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import type { Service } from "./http.js"
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

/** The {entry, receipt_note} answer, or a protocol error quoting what came instead. */
export const readAnswer = async (response: Response, path: string = ENTRIES_PATH): Promise<{ entry: Record<string, unknown>; note: string }> => {
  let json: unknown
  try {
    json = await response.json()
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

const refused = (client: LogClient, envelope: Envelope, status: number, entry: Record<string, unknown>, note: string): Refused => {
  const { refused: code, detail } = entry
  if (typeof code !== "string" || typeof detail !== "string") throw protocolError(`a ${status} answer lacks refused or detail`)
  const hash = Either.getOrThrow(envelopeHash(crypto.sha256, envelope))
  if (entry["envelope_hash"] !== encodeU64(hash)) throw verificationError("the refusal names another envelope hash")
  verifyRefusalNote(note, client.vkey, { code, envelopeHash: hash })
  return { _tag: "Refused", envelope, code, status, detail, envelopeHash: encodeU64(hash), receiptNote: note }
}

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
  const { origin } = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  if (key.origin !== null && key.origin !== origin) {
    throw usageError(`this key file's chain is on log ${key.origin}, not ${origin}; use another key file for this log`)
  }
  const nowSeconds = Math.floor((client.now ?? Date.now)() / 1000)
  const envelope = buildEnvelope(key, origin, type, payload, nowSeconds, work)
  const response = await postEnvelope(client.service, key.seed, envelope, body, route.path)
  const { entry, note } = await readAnswer(response, route.path)
  if (response.status === route.status) return accepted(client, key, envelope, entry, note, response.headers.get("location"))
  if (response.status >= 400) return refused(client, envelope, response.status, entry, note)
  throw protocolError(`POST ${route.path}: unexpected status ${response.status}`)
}
