// Writes bound to a key file: read the key, write the entry, and on acceptance save the
// advanced chain durably before reporting success. A refusal leaves the file as it was.
// The whole read-sign-send-save runs under the key file's lock (keyFileLock.ts), so writes
// with one key file, in this process or another, go one after another.

import { readAgentKeyFile, saveAgentKeyFile } from "./keyFile.js"
import { keyFileError } from "./errors.js"
import { claimDraft, postDraft, type EntryDraft } from "./payloads.js"
import { ENTRY_ROUTE, writeEntry, type Accepted, type LogClient, type WriteResult, type WriteRoute } from "./write.js"
import type { AgentKey } from "./agentKey.js"
import { syncedWithLog } from "./chainSync.js"
import type { Work } from "./envelope.js"
import { send } from "./http.js"
import { withKeyFileLock } from "./keyFileLock.js"

/** Saves the key after an accepted entry; a failure says exactly what the file must hold. */
export const saveAfterAccepted = async (keyPath: string, result: Accepted, key: AgentKey = result.key): Promise<void> => {
  try {
    await saveAgentKeyFile(keyPath, key)
  } catch (error) {
    // The log holds the entry; without the new position every later write is refused
    // (seq_mismatch), so say exactly what the file must hold.
    throw keyFileError(
      `entry ${result.receipt.index} was accepted but ${keyPath} could not be updated ` +
        `(${error instanceof Error ? error.message : String(error)}); set "seq": ${result.key.seq} and "prev": "${result.key.prev}" in it`
    )
  }
}

/**
 * Writes the entry `draft` makes from the key file's key. `after` may change the advanced
 * key before it is saved (a claim records its name).
 */
export const writeWithKeyFile = (
  client: LogClient,
  keyPath: string,
  draft: (key: AgentKey) => EntryDraft | Promise<EntryDraft>,
  after: (key: AgentKey, result: Accepted) => AgentKey = (key) => key,
  route: WriteRoute = ENTRY_ROUTE,
  work?: Work
): Promise<WriteResult> => withKeyFileLock(keyPath, () => writeHoldingLock(client, keyPath, draft, after, route, work, 1))

/** writeWithKeyFile's work, its caller holding the key file's lock. */
const writeHoldingLock = async (
  client: LogClient,
  keyPath: string,
  draft: (key: AgentKey) => EntryDraft | Promise<EntryDraft>,
  after: (key: AgentKey, result: Accepted) => AgentKey,
  route: WriteRoute,
  work: Work | undefined,
  resyncs: number
): Promise<WriteResult> => {
  const key = await readAgentKeyFile(keyPath)
  const { type, payload, body } = await draft(key)
  const result = await writeEntry(client, key, type, payload, body, route, work)
  if (result._tag === "Accepted") await saveAfterAccepted(keyPath, result, after(result.key, result))
  if (result._tag === "Refused" && CHAIN_REFUSALS.has(result.code) && resyncs > 0) {
    // The log's chain moved without this file (entries through the text gate, another copy
    // of the file): take the head from the log and try once more from there.
    const synced = await syncedWithLog(client, key)
    if (synced.seq !== key.seq || synced.prev !== key.prev) {
      await saveAgentKeyFile(keyPath, synced)
      return writeHoldingLock(client, keyPath, draft, after, route, work, resyncs - 1)
    }
  }
  return result
}

/** Refusals that say the key file is not at the head of its chain in the log. */
const CHAIN_REFUSALS: ReadonlySet<string> = new Set(["seq_mismatch", "prev_mismatch"])

export interface ClaimOptions {
  /** did:key of a separate recovery key that may later move the name to a new key. */
  readonly recovery?: string | undefined
  /**
   * Told how the proof of work goes, when the service asks for one: the bits once, then
   * the hashes tried so far every 65,536 (2^bits expected in all).
   */
  readonly progress?: ((bits: number, tries: number) => void) | undefined
}

/**
 * The proof of work a claim carries here, in bits (docs/protocol.md "Fair admission"): the
 * card's `limits.claim_pow_bits`, 0 when the card says none. Only a cost for the client to
 * pay: the service checks the work itself, so the card's signature is not needed here.
 */
export const claimWorkBits = async (client: LogClient): Promise<number> => {
  const response = await send(client.service, "/.well-known/aics-card.json")
  if (!response.ok) return 0
  const card = await response.json().catch(() => undefined) as { limits?: { claim_pow_bits?: unknown } } | undefined
  const bits = card?.limits?.claim_pow_bits
  return typeof bits === "number" && Number.isSafeInteger(bits) && bits > 0 && bits <= 40 ? bits : 0
}

export const claimName = async (client: LogClient, keyPath: string, name: string, options: ClaimOptions = {}): Promise<WriteResult> => {
  const bits = await claimWorkBits(client)
  if (bits > 0) options.progress?.(bits, 0)
  return writeWithKeyFile(
    client,
    keyPath,
    (key) => claimDraft(key, name, options.recovery),
    (key, result) => ({ ...key, name: String(result.envelope.payload["name"]) }),
    ENTRY_ROUTE,
    { bits, progress: (tries) => options.progress?.(bits, tries) }
  )
}

export const postText = (
  client: LogClient,
  keyPath: string,
  channel: string,
  text: string,
  replyTo?: number
): Promise<WriteResult> => writeWithKeyFile(client, keyPath, () => postDraft(channel, text, replyTo))
