// A receipt fetched again (docs/protocol.md 8.3): an agent whose connection dropped after
// its write was answered 202 finds its leaf (the key view's head_index, the gate's
// last_accepted) and asks GET /v2/entries/{index}/receipt for the answer it lost. Nothing
// of that answer is taken on the service's word:
//   - the receipt note must be the log key's (the out-of-band key), for this index, the
//     answer's leaf hash and logged time (verifyReceiptNote, as a write's 202 is checked);
//   - the `entry` members the note does not sign (type, kid, seq) must be those of the leaf
//     itself: the entry is read with its inclusion proof under a verified checkpoint
//     (getEntry), and its leaf hash must be the receipt's.
// A refusal note is never re-issued (a refusal is in no leaf), so a note that is one fails.
// keepReissuedReceipt then puts it where the key file keeps receipts (`aics receipt`): with
// the key that signed the entry, the current one or one the file rotated from.

import { decodeU64 } from "../domain/encoding.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { advanceChain, type AgentKey, type StoredReceipt } from "./agentKey.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { readAgentKeyFile, saveAgentKeyFile } from "./keyFile.js"
import { withKeyFileLock } from "./keyFileLock.js"
import { getEntry } from "./read.js"
import { verifyReceiptNote } from "./receipts.js"
import type { LogClient } from "./write.js"

export interface ReissuedReceipt {
  /** What a key file keeps of an accepted entry (agentKey.ts), as the write's 202 would have left it. */
  readonly receipt: StoredReceipt
  /** The key that signed the entry (the answer's `entry.kid`, checked against the leaf). */
  readonly kid: string
  /** The logged envelope, read with its inclusion proof. */
  readonly envelope: Envelope
  /** Size of the verified checkpoint the leaf was proved included in. */
  readonly checkpointSize: number
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0

/** GET /v2/entries/{index}/receipt, verified against the log key and the leaf itself. A 404 is a ClientError of kind not_found. */
export const fetchReceipt = async (client: LogClient, index: number): Promise<ReissuedReceipt> => {
  if (!Number.isSafeInteger(index) || index < 0) throw usageError(`not an entry index: ${index}`)
  const path = `/v2/entries/${index}/receipt`
  const { json } = await getJson(client.service, path)
  const entry = isRecord(json) && isRecord(json["entry"]) ? json["entry"] : undefined
  const note = isRecord(json) ? json["receipt_note"] : undefined
  if (entry === undefined || typeof note !== "string") throw protocolError(`GET ${path}: not {entry, receipt_note}`)
  const { logged, type, kid, seq } = entry
  const leafHash = typeof entry["leaf_hash"] === "string" ? decodeU64(entry["leaf_hash"]) : undefined
  if (entry["index"] !== index || !isCount(logged) || leafHash?.length !== 32 || typeof type !== "string" || typeof kid !== "string" || !isCount(seq)) {
    throw protocolError(`GET ${path}: the entry lacks index ${index}, leaf_hash, logged, type, kid or seq`)
  }
  // The log's signed word: leaf `index` has this hash and was logged then.
  verifyReceiptNote(note, client.vkey, { index, leafHash, logged })
  // The leaf itself, under a checkpoint: the receipt's hash, and the type, key and seq the answer names.
  const read = await getEntry(client, index)
  if (read.leafHash !== entry["leaf_hash"] || read.logged !== logged) {
    throw verificationError(`the receipt of entry ${index} and the entry in the log disagree on its leaf hash or logged time`)
  }
  if (read.envelope.type !== type || read.envelope.kid !== kid || read.envelope.seq !== seq) {
    throw verificationError(`the receipt answer of entry ${index} names another type, key or seq than the leaf`)
  }
  return {
    receipt: { index, leaf_hash: read.leafHash, logged, type, seq, receipt_note: note },
    kid,
    envelope: read.envelope,
    checkpointSize: read.checkpointSize
  }
}

/**
 * What became of a re-issued receipt in a key file: `added` to the receipts of the key that
 * signed the entry; `held` already (a receipt of that index); `not_ours`, the entry is no key's
 * of this file; `other_log`, the file's chain is of another log.
 */
export type KeptReceipt = "added" | "held" | "not_ours" | "other_log"

const withReceipt = (receipts: ReadonlyArray<StoredReceipt>, receipt: StoredReceipt): ReadonlyArray<StoredReceipt> =>
  [...receipts, receipt].sort((a, b) => a.seq - b.seq)

/**
 * The key file's key with the re-issued receipt kept as its write's 202 would have left it:
 * among the receipts of the key that signed the entry, and, for the current key when the
 * file's chain is behind that entry (its answer lost, the chain never saved past it), the
 * chain advanced past it (advanceChain), as the 202 would have. Pure.
 */
export const keptReissued = (key: AgentKey, reissued: ReissuedReceipt): { readonly key: AgentKey; readonly kept: KeptReceipt } => {
  const { receipt, kid, envelope } = reissued
  if (key.origin !== null && key.origin !== envelope.origin) return { key, kept: "other_log" }
  const held = (receipts: ReadonlyArray<StoredReceipt>) => receipts.some((r) => r.index === receipt.index)
  if (kid === key.kid) {
    if (held(key.receipts)) return { key, kept: "held" }
    if (envelope.seq >= key.seq) {
      const advanced = advanceChain(key, envelope, receipt)
      // A claim's answer would also have named the key's name (agent.ts, claimName).
      const named = envelope.type === "claim" && typeof envelope.payload["name"] === "string" ? { name: envelope.payload["name"] } : {}
      return { key: { ...advanced, ...named, receipts: withReceipt(key.receipts, receipt) }, kept: "added" }
    }
    return { key: { ...key, receipts: withReceipt(key.receipts, receipt) }, kept: "added" }
  }
  const at = key.previous.findIndex((p) => p.kid === kid)
  if (at < 0) return { key, kept: "not_ours" }
  const previous = key.previous[at]!
  if (held(previous.receipts)) return { key, kept: "held" }
  return {
    key: { ...key, previous: key.previous.map((p, i) => (i === at ? { ...p, receipts: withReceipt(p.receipts, receipt) } : p)) },
    kept: "added"
  }
}

/** keptReissued on the key file at `keyPath`, under its lock (keyFileLock.ts), saved when added. */
export const keepReissuedReceipt = (keyPath: string, reissued: ReissuedReceipt): Promise<{ readonly key: AgentKey; readonly kept: KeptReceipt }> =>
  withKeyFileLock(keyPath, async () => {
    const result = keptReissued(await readAgentKeyFile(keyPath), reissued)
    if (result.kept === "added") await saveAgentKeyFile(keyPath, result.key)
    return result
  })
