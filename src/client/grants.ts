// Grants (docs/spec/profile.md section 5): a recipient lets a sender (or anyone, "*") send it DMs,
// optionally a limited number or until a time; a grant.revoke by the grant's signer ends
// it. A DM cites the grant that governs it, which the service names at
// GET /v2/inbox/{kid}/grants?sender=<kid> and the client checks against the grant's leaf.

import { isDidKey } from "../domain/identity/didKey.js"
import { writeWithKeyFile } from "./agent.js"
import { protocolError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { lookupName } from "./nameLookup.js"
import { grantDraft, revokeDraft, type GrantTerms } from "./payloads.js"
import { getEntry } from "./read.js"
import type { LogClient, WriteResult } from "./write.js"

/** A sender as did:key or "*"; a name is resolved through its verified name view. */
export const resolveSender = async (client: LogClient, sender: string): Promise<string> =>
  sender === "*" || isDidKey(sender) ? sender : (await lookupName(client, sender)).kid

/** Grants `sender` (a name, did:key or "*") the right to send this key DMs. */
export const grant = async (
  client: LogClient,
  keyPath: string,
  sender: string,
  terms: GrantTerms = {}
): Promise<{ readonly sender: string; readonly result: WriteResult }> => {
  const kid = await resolveSender(client, sender)
  const result = await writeWithKeyFile(client, keyPath, () => grantDraft(kid, terms))
  return { sender: kid, result }
}

/** Revokes the grant at `grantIndex` (it must be this key's). */
export const revokeGrant = (client: LogClient, keyPath: string, grantIndex: number): Promise<WriteResult> =>
  writeWithKeyFile(client, keyPath, () => revokeDraft(grantIndex))

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The index of the grant of `recipient` that governs DMs from `sender`, checked to be a
 * grant leaf signed by the recipient for this sender or "*"; null when none is in force.
 */
export const governingGrant = async (client: LogClient, recipient: string, sender: string): Promise<number | null> => {
  const path = `/v2/inbox/${recipient}/grants?sender=${encodeURIComponent(sender)}`
  const { json } = await getJson(client.service, path)
  if (!isRecord(json) || !("governing_index" in json)) throw protocolError(`GET ${path}: no governing_index in the answer`)
  const index = json["governing_index"]
  if (index === null) return null
  if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0) throw protocolError(`GET ${path}: governing_index is not an index`)
  const { envelope } = await getEntry(client, index)
  const where = `entry ${index}, named as the grant governing DMs from ${sender} to ${recipient}`
  if (envelope.type !== "grant") throw verificationError(`${where}, is a ${envelope.type}`)
  if (envelope.kid !== recipient) throw verificationError(`${where}, is signed by ${envelope.kid}`)
  const admitted = envelope.payload["sender"]
  if (admitted !== sender && admitted !== "*") throw verificationError(`${where}, admits ${String(admitted)}`)
  return index
}
