// Grants (docs/spec/profile.md section 5): a recipient lets a sender (or anyone, "*") send it DMs,
// optionally a limited number or until a time; a grant.revoke by the grant's signer ends
// it. A DM cites the grant that governs it, which the service names at
// GET /v2/inbox/{kid}/grants?sender=<kid> and the client checks against the grant's leaf.

import { isDidKey } from "../domain/identity/didKey.js"
import { writeWithKeyFile } from "./agent.js"
import { keysOfFile } from "./agentKey.js"
import { ClientError, protocolError, usageError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { readAgentKeyFile } from "./keyFile.js"
import { lookupName } from "./nameLookup.js"
import { grantDraft, revokeDraft, type GrantTerms } from "./payloads.js"
import { getEntry } from "./read.js"
import type { LogClient, WriteResult } from "./write.js"

/** A sender as did:key or "*"; a name is resolved through its verified name view. */
export const resolveSender = async (client: LogClient, sender: string): Promise<string> => {
  if (sender === "*" || isDidKey(sender)) return sender
  if (sender.startsWith("did:key:")) throw usageError(`${JSON.stringify(sender)} is not a valid did:key of an Ed25519 key (a sender is a name, @name, a did:key or "*")`)
  const resolved = await lookupName(client, sender).catch((error: unknown) => {
    if (error instanceof ClientError && error.kind === "usage" && error.code === undefined) {
      throw usageError(`${JSON.stringify(sender)} is neither a valid name nor a did:key (a sender is a name, @name, a did:key or "*"): ${error.message}`)
    }
    throw error
  })
  // A secret-bound name's kid is the policy key, which speaks for every secret-bound name
  // and signs no DM (docs/protocol.md 17.5): a grant to it would let none of them write.
  if (resolved.tier === "secret") {
    throw usageError(`${resolved.name} is secret-bound: the service's policy key (${resolved.kid}) speaks for it and every other secret-bound name, and sends no DMs; a grant names the sender's own key (${resolved.name} has one once upgraded)`)
  }
  return resolved.kid
}

export interface Granted {
  /** The sender's did:key, or "*". */
  readonly sender: string
  /**
   * The grant written; null when nothing was written because a grant to this sender with
   * no limit and no end was already in force (a second one would admit nothing more).
   */
  readonly result: WriteResult | null
  /** This key's grants to the same sender that were in force before, oldest first. */
  readonly inForce: ReadonlyArray<number>
}

/**
 * Grants `sender` (a name, did:key or "*") the right to send this key DMs. A grant to one of
 * the file's own keys is a usage error (a key needs no leave to write to itself: a note to
 * oneself is a capsule), and an unlimited grant already in force is not written again.
 */
export const grant = async (client: LogClient, keyPath: string, sender: string, terms: GrantTerms = {}): Promise<Granted> => {
  const kid = await resolveSender(client, sender)
  const file = await readAgentKeyFile(keyPath)
  if (keysOfFile(file).some((key) => key.kid === kid)) {
    const own = `${sender} is this key file's own key: a grant lets another key send this one messages`
    throw new ClientError("usage", `${own} (a note to yourself is a capsule: aics capsule put)`, { mcpMessage: `${own} (a note to yourself is a capsule: the capsule_put tool)` })
  }
  const inForce = (await grantsOf(client, file.kid)).filter((g) => g["in_force"] === true && g["sender"] === kid)
  const unlimited = inForce.find((g) => g["limit"] === null && g["until"] === null)
  const indices = inForce.map((g) => Number(g["index"]))
  if (unlimited !== undefined && terms.limit === undefined && terms.until === undefined) return { sender: kid, result: null, inForce: indices }
  const result = await writeWithKeyFile(client, keyPath, () => grantDraft(kid, terms))
  return { sender: kid, result, inForce: indices }
}

/** Revokes the grant at `grantIndex` (it must be this key's). */
export const revokeGrant = (client: LogClient, keyPath: string, grantIndex: number): Promise<WriteResult> =>
  writeWithKeyFile(client, keyPath, () => revokeDraft(grantIndex))

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** The grants `kid` signed (GET /v2/inbox/{kid}/grants), as the service reports them. */
export const grantsOf = async (client: LogClient, kid: string): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const path = `/v2/inbox/${kid}/grants`
  const { json } = await getJson(client.service, path)
  if (!isRecord(json) || !Array.isArray(json["grants"])) throw protocolError(`GET ${path}: no grants list`)
  return json["grants"].filter(isRecord)
}

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
