// Contributions of SUP from the agent's side (docs/protocol.md 13.2, 13.3): open an intent and
// check where it says to send funds against the signed card; claim it and check the leaf the
// service wrote for the claim.
//
// - openIntent: POST /v2/sup/contributions/intents with {network, amount} (and a name, if
//   the intent is to fix it). The card (/.well-known/aics-card.json) is verified under
//   the policy key of leaf 0 (read with its inclusion proof) and must list the intent's
//   network, asset and address exactly: the service's answer alone could send funds anywhere.
// - claimIntent: POST /v2/sup/contributions with the JCS claim {intent_id, tx, created,
//   name?}. A 201 carries a leaf: its claim_hash must be SHA-256 of the bytes sent, its
//   receipt must verify under the log key, and the leaf, read back with its inclusion
//   proof, must be the policy key's `sup.credit` (code null) or `sup.refusal` of this
//   claim. A claim short of confirmations (409 tx_unconfirmed) or one the chain could not
//   check (503 chain_unavailable) wrote nothing: they come back as "Later".

import { Either } from "effect"
import { utf8 } from "../domain/bytes.js"
import { verifyCard } from "../domain/card/card.js"
import { decodeU64, encodeU64 } from "../domain/encoding.js"
import { jcs } from "../domain/envelope/jcs.js"
import type { intentView } from "../domain/sup/contributions.js"
import { crypto } from "./crypto.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { getBytes, send } from "./http.js"
import { getEntry } from "./read.js"
import { verifyReceiptNote } from "./receipts.js"
import type { LogClient } from "./write.js"

export const CARD_PATH = "/.well-known/aics-card.json"
export const INTENTS_PATH = "/v2/sup/contributions/intents"
export const CLAIMS_PATH = "/v2/sup/contributions"

/** The 201 answer of an intent (the service's intentView). */
export type Intent = ReturnType<typeof intentView>

export type ClaimOutcome =
  | { readonly _tag: "Credited"; readonly index: number; readonly name: string; readonly amount: number; readonly claimHash: string; readonly detail: string }
  | { readonly _tag: "Refused"; readonly index: number; readonly code: string; readonly claimHash: string; readonly detail: string }
  /** No leaf: claim again later (`missing` confirmations, when the service counted them). */
  | { readonly _tag: "Later"; readonly code: string; readonly detail: string; readonly missing: number | null; readonly retryAfter: number | null }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const jsonOf = async (response: Response, path: string): Promise<Record<string, unknown>> => {
  let json: unknown
  try {
    json = await response.json()
  } catch {
    throw protocolError(`POST ${path}: ${response.status} with an answer that is not JSON`)
  }
  if (!isRecord(json)) throw protocolError(`POST ${path}: ${response.status} with an answer that is not a JSON object`)
  return json
}

const problem = (json: Record<string, unknown>, status: number, path: string) =>
  protocolError(`POST ${path}: ${status} ${String(json["code"] ?? "")}: ${String(json["detail"] ?? "")}`)

const postJson = (client: LogClient, path: string, body: Uint8Array) =>
  send(client.service, path, { method: "POST", headers: { "content-type": "application/json" }, body })

/** The policy key leaf 0 names, read with its inclusion proof. */
const policyKid = async (client: LogClient): Promise<string> => {
  const kid = (await getEntry(client, 0)).envelope.payload["policy_kid"]
  if (typeof kid !== "string") throw verificationError("leaf 0 names no policy key")
  return kid
}

/** The service's card, its signature verified under the policy key leaf 0 names. */
export const signedCard = async (client: LogClient): Promise<Record<string, unknown>> => {
  const bytes = await getBytes(client.service, CARD_PATH)
  if (!verifyCard(bytes, await policyKid(client), crypto.ed25519)) throw verificationError("the card's signature does not verify under the policy key of leaf 0")
  return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>
}

/** The contribution addresses of the signed card, verified under the policy key. */
export const signedContributions = async (client: LogClient): Promise<ReadonlyArray<{ network: string; asset: string; address: string }>> => {
  const card = await signedCard(client) as { contributions?: unknown }
  if (!Array.isArray(card.contributions)) throw verificationError("the signed card lists no contributions")
  return card.contributions as ReadonlyArray<{ network: string; asset: string; address: string }>
}

export const openIntent = async (client: LogClient, network: string, amount: number, name?: string): Promise<Intent> => {
  if (!Number.isSafeInteger(amount) || amount < 1) throw usageError(`the amount is whole SUP, at least 1, not ${amount}`)
  const body = utf8(JSON.stringify({ network, amount, ...(name === undefined ? {} : { name }) }))
  const response = await postJson(client, INTENTS_PATH, body)
  const json = await jsonOf(response, INTENTS_PATH)
  if (response.status !== 201) throw problem(json, response.status, INTENTS_PATH)
  const intent = json as unknown as Intent
  if (typeof intent.intent_id !== "string" || typeof intent.units !== "string" || intent.network !== network || intent.amount !== amount) {
    throw protocolError(`POST ${INTENTS_PATH}: the 201 answer is not an intent of ${amount} SUP on ${network}`)
  }
  const listed = await signedContributions(client)
  if (!listed.some((c) => c.network === intent.network && c.asset === intent.asset && c.address === intent.address)) {
    throw verificationError(`the signed card does not list ${intent.asset} at ${intent.address} on ${intent.network}: do not send anything`)
  }
  return intent
}

export const claimIntent = async (
  client: LogClient,
  intentId: string,
  tx: string,
  options: { readonly name?: string | undefined; readonly now?: number } = {}
): Promise<ClaimOutcome> => {
  const created = Math.floor((options.now ?? Date.now()) / 1000)
  const text = Either.getOrThrow(jcs({ intent_id: intentId, tx, created, ...(options.name === undefined ? {} : { name: options.name }) }))
  const body = utf8(text)
  const claimHash = encodeU64(crypto.sha256(body))
  const response = await postJson(client, CLAIMS_PATH, body)
  const json = await jsonOf(response, CLAIMS_PATH)
  if (response.status === 409 && json["code"] === "tx_unconfirmed" || response.status === 503) {
    const retry = Number(response.headers.get("retry-after"))
    const missing = json["confirmations_missing"]
    return {
      _tag: "Later", code: String(json["code"]), detail: String(json["detail"] ?? ""),
      missing: typeof missing === "number" ? missing : null, retryAfter: Number.isSafeInteger(retry) && retry > 0 ? retry : null
    }
  }
  if (response.status !== 201 || !isRecord(json["entry"]) || typeof json["receipt_note"] !== "string") throw problem(json, response.status, CLAIMS_PATH)
  if (json["claim_hash"] !== claimHash) throw verificationError("the answer names another claim_hash than SHA-256 of the claim sent")
  const entry = json["entry"]
  const { index, logged } = entry
  const leafHash = typeof entry["leaf_hash"] === "string" ? decodeU64(entry["leaf_hash"]) : undefined
  if (typeof index !== "number" || typeof logged !== "number" || leafHash === undefined) throw protocolError(`POST ${CLAIMS_PATH}: the 201 answer lacks index, logged or leaf_hash`)
  verifyReceiptNote(json["receipt_note"], client.vkey, { index, leafHash, logged })
  // The leaf itself, with its inclusion proof: the policy key's answer to this very claim.
  const [leaf, kid] = [await getEntry(client, index), await policyKid(client)]
  const payload = leaf.envelope.payload
  if (leaf.leafHash !== entry["leaf_hash"] || leaf.envelope.kid !== kid || payload["claim_hash"] !== claimHash) {
    throw verificationError(`entry ${index} is not the policy key's leaf for this claim`)
  }
  const code = json["code"]
  const detail = String(json["detail"] ?? "")
  if (code === null) {
    if (leaf.envelope.type !== "sup.credit" || payload["tx"] !== tx) throw verificationError(`entry ${index} is not a sup.credit of transaction ${tx}`)
    return { _tag: "Credited", index, name: String(payload["name"]), amount: Number(payload["amount"]), claimHash, detail }
  }
  if (leaf.envelope.type !== "sup.refusal" || payload["code"] !== code) throw verificationError(`entry ${index} is not the sup.refusal ${String(code)} of this claim`)
  return { _tag: "Refused", index, code: String(code), claimHash, detail }
}
