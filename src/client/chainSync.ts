// The key file's place in its chain, taken from the log (docs/spec/profile.md section 3: seq
// and prev). Entries the agent wrote through the text gate (which prepares each envelope at
// the chain's head in the log) or from another copy of the key file leave the file behind;
// the log's key view names the head, and the head entry (inclusion-checked) gives prev.

import { Either } from "effect"
import { prevOf } from "../domain/envelope/hash.js"
import type { AgentKey } from "./agentKey.js"
import { crypto } from "./crypto.js"
import { ClientError, protocolError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { getEntry } from "./read.js"
import type { LogClient } from "./write.js"

/** The key at the log's head of its chain (unchanged when the file already is). */
export const syncedWithLog = async (client: LogClient, key: AgentKey): Promise<AgentKey> => {
  const path = `/v2/keys/${encodeURIComponent(key.kid)}`
  const response = await getJson(client.service, path).catch((error: unknown) => {
    // A key with no envelope yet is unknown to the log: the file's seq 0 is right.
    if (error instanceof ClientError && error.kind === "not_found") return undefined
    throw error
  })
  const view = response?.json as { seq?: unknown; head_index?: unknown } | undefined
  if (view === undefined || view.seq === null || view.seq === undefined) return key
  if (typeof view.seq !== "number" || typeof view.head_index !== "number") throw protocolError(`GET ${path}: no seq and head_index`)
  if (view.seq + 1 === key.seq) return key
  const { envelope } = await getEntry(client, view.head_index)
  if (envelope.kid !== key.kid || envelope.seq !== view.seq) throw verificationError(`entry ${view.head_index} is not the head of ${key.kid}'s chain`)
  return { ...key, origin: envelope.origin, seq: envelope.seq + 1, prev: Either.getOrThrow(prevOf(crypto.sha256, envelope)) }
}
