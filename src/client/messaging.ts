// Direct messages (docs/protocol.md section 9). Sending: the recipient's X25519 key from its
// verified name view (nameLookup.ts), the grant that governs DMs from this key to it
// (grants.ts), HPKE to that key, and a `dm` entry {to, grant_index, ct_hash, size,
// x25519_index} whose body is the ciphertext. Reading: the signed GET /v2/inbox, each
// message's envelope checked (signature, addressed to this key, ciphertext hash) before it
// is opened with the key file's X25519 secret. HPKE base mode does not authenticate the
// sender; the sender's Ed25519 signature over ct_hash does, and the aad names that sender.
// A message that does not check or open is reported with the reason, never dropped.

import { Either } from "effect"
import { equal, fromUtf8, utf8 } from "../domain/bytes.js"
import { decodeU64 } from "../domain/encoding.js"
import { decodeEnvelope, type Envelope } from "../domain/envelope/envelope.js"
import { verifyEnvelopeSignature } from "../domain/envelope/signature.js"
import { writeWithKeyFile } from "./agent.js"
import { keysOfFile, type AgentKey } from "./agentKey.js"
import { crypto } from "./crypto.js"
import { ClientError, protocolError, refusedError, usageError } from "./errors.js"
import { governingGrant } from "./grants.js"
import { HpkeOpenError, openDm, sealDm } from "./hpke.js"
import { readAgentKeyFile } from "./keyFile.js"
import { lookupName, type ResolvedName } from "./nameLookup.js"
import { dmDraft, someText, type EntryDraft } from "./payloads.js"
import { getEntry } from "./read.js"
import { signedGetJson } from "./signedRead.js"
import type { LogClient, WriteResult } from "./write.js"

export interface SentDm {
  readonly result: WriteResult
  readonly to: ResolvedName
  readonly grantIndex: number
}

/** The dm entry of `text` from this key to the name: its verified X25519 key, the grant that governs, HPKE. */
export const dmDraftTo = async (
  client: LogClient,
  key: AgentKey,
  toName: string,
  text: string
): Promise<{ readonly draft: EntryDraft; readonly to: ResolvedName; readonly grantIndex: number }> => {
  someText(text, "the message")
  // A DM is encrypted to the X25519 key a name binds: a bare key has none to encrypt to.
  if (toName.startsWith("did:key:")) {
    throw refusedError(`${toName} is a key, not a name: only names receive DMs (a DM is encrypted to the X25519 key a name binds); give the recipient's name`, { code: "recipient_unknown" })
  }
  const to = await lookupName(client, toName)
  if (to.kid === key.kid) throw usageError(`${to.name} is this key's own name; use a capsule for notes to yourself`)
  const grantIndex = await governingGrant(client, to.kid, key.kid)
  if (grantIndex === null) {
    const missing = `${to.name} has no grant in force for ${key.kid}, so the log would refuse the DM; nothing was sent`
    throw refusedError(`${missing}; ask them to run "aics grant ${key.kid}" for you`, {
      code: "grant_required",
      mcpMessage: `${missing}; ask ${to.name} to grant you DMs (their grant tool, with sender ${key.kid} or your name)`
    })
  }
  const sealed = await sealDm(to.x25519, { from: key.kid, to: to.kid, origin: client.vkey.name }, utf8(text))
  return { draft: dmDraft({ to: to.kid, grantIndex, x25519Index: to.x25519Index }, sealed), to, grantIndex }
}

/** Encrypts `text` to the name's current X25519 key and writes the dm entry. */
export const sendDm = async (client: LogClient, keyPath: string, toName: string, text: string): Promise<SentDm> => {
  let made: Awaited<ReturnType<typeof dmDraftTo>> | undefined
  const result = await writeWithKeyFile(client, keyPath, async (key) => {
    made = await dmDraftTo(client, key, toName, text)
    return made.draft
  })
  return { result, to: made!.to, grantIndex: made!.grantIndex }
}

/** One inbox message: its plaintext, or why it could not be read. */
export type InboxMessage =
  | { readonly index: number; readonly from: string; readonly logged: number | null; readonly text: string }
  | { readonly index: number; readonly from: string | null; readonly logged: number | null; readonly error: string }

export interface Inbox {
  readonly kid: string
  readonly messages: ReadonlyArray<InboxMessage>
  /** How many messages could not be checked or opened (they are in `messages` with an error). */
  readonly failed: number
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** One message of the inbox answer as sent: its index, and the envelope and ciphertext if included. */
interface RawMessage {
  readonly index: number
  readonly envelope: unknown
  readonly ct: string | undefined
  readonly logged: number | null
}

/** The messages of a GET /v2/inbox answer (the one place that knows its member names). */
export const inboxMessagesOf = (json: unknown): ReadonlyArray<RawMessage> => {
  const list = Array.isArray(json) ? json : isRecord(json) ? json["messages"] : undefined
  if (!Array.isArray(list)) throw protocolError("GET /v2/inbox: the answer has no messages list")
  return list.map((m): RawMessage => {
    if (!isRecord(m) || typeof m["index"] !== "number") throw protocolError("GET /v2/inbox: a message has no index")
    const ct = [m["ct"], m["ciphertext"], m["body_or_ct"], m["body"]].find((v): v is string => typeof v === "string")
    return { index: m["index"], envelope: m["envelope"], ct, logged: typeof m["logged"] === "number" ? m["logged"] : null }
  })
}

/** The message's envelope and ciphertext: from the answer, or from the entry (inclusion-checked). */
const envelopeAndCiphertext = async (
  client: LogClient,
  m: RawMessage
): Promise<{ envelope: Envelope; ct: Uint8Array; logged: number | null }> => {
  if (m.envelope !== undefined && m.ct !== undefined) {
    const envelope = decodeEnvelope(m.envelope)
    if (Either.isLeft(envelope)) throw new Error("the envelope is malformed")
    if (!verifyEnvelopeSignature(envelope.right, crypto.ed25519)) throw new Error("the sender's signature does not verify")
    const ct = decodeU64(m.ct)
    if (ct === undefined) throw new Error("the ciphertext is not U64")
    return { envelope: envelope.right, ct, logged: m.logged }
  }
  const entry = await getEntry(client, m.index)
  if (entry.body === null) throw new Error(`the ciphertext is not available (${entry.bodyStatus ?? "no body"})`)
  return { envelope: entry.envelope, ct: entry.body, logged: entry.logged }
}

const openMessage = async (client: LogClient, key: AgentKey, m: RawMessage): Promise<InboxMessage> => {
  let from: string | null = null
  let logged = m.logged
  try {
    const read = await envelopeAndCiphertext(client, m)
    const { envelope, ct } = read
    from = envelope.kid
    logged = read.logged
    const mine = [key.kid, ...key.previous.map((p) => p.kid)]
    if (envelope.type !== "dm") throw new Error(`entry ${m.index} is a ${envelope.type}, not a dm`)
    if (envelope.origin !== client.vkey.name) throw new Error(`the dm names origin ${envelope.origin}`)
    const to = envelope.payload["to"]
    if (typeof to !== "string" || !mine.includes(to)) throw new Error(`the dm is addressed to ${String(to)}, not to this key`)
    const ctHash = typeof envelope.payload["ct_hash"] === "string" ? decodeU64(envelope.payload["ct_hash"]) : undefined
    if (ctHash === undefined || !equal(crypto.sha256(ct), ctHash)) throw new Error("the ciphertext is not the one the sender signed (ct_hash)")
    const plaintext = await openDm(key.x25519Secret, { from: envelope.kid, to, origin: envelope.origin }, ct)
    let text: string
    try {
      text = fromUtf8(plaintext)
    } catch {
      throw new Error("the plaintext is not UTF-8")
    }
    return { index: m.index, from, logged, text }
  } catch (error) {
    if (!(error instanceof Error) || (error instanceof ClientError && error.kind === "network")) throw error
    const reason = error instanceof HpkeOpenError ? `does not decrypt: ${error.message}` : error.message
    return { index: m.index, from, logged, error: reason }
  }
}

/** The `next_from` of a GET /v2/inbox answer: the next page's first index, or null on the last page. */
export const inboxNextFromOf = (json: unknown): number | null => {
  const next = isRecord(json) ? json["next_from"] : undefined
  if (next === undefined || next === null) return null
  if (typeof next !== "number" || !Number.isSafeInteger(next) || next < 0) throw protocolError("GET /v2/inbox: next_from is not a leaf index")
  return next
}

/**
 * Reads this key's inbox (signed, a page at a time: each answer's next_from asks for the
 * next, so an inbox larger than one page is read whole) and decrypts every message.
 * `pageSize` is the `limit` of each page (the service's default when absent).
 *
 * With `limit`, one page only: at most `limit` messages from leaf `from` on (0 when absent),
 * oldest first, and `next_from`, the `from` of the next page (null when none is left). The
 * keys the file rotated from are read alike and merged in leaf order; of a retired key's
 * page only what fits is returned, but the service counts its whole page read.
 */
export const readInbox = async (
  client: LogClient,
  keyPath: string,
  options: { readonly unreadOnly?: boolean; readonly pageSize?: number; readonly from?: number; readonly limit?: number } = {}
): Promise<Inbox & { readonly next_from?: number | null }> => {
  const file = await readAgentKeyFile(keyPath)
  const messages: Array<InboxMessage> = []
  const paged = options.limit !== undefined
  let nextFrom: number | null = null
  // After a rotation, messages sent before it are in the retired key's inbox: each key reads its own.
  for (const key of keysOfFile(file)) {
    let from: number | null = options.from ?? 0
    while (from !== null) {
      const query = new URLSearchParams({ unread_only: String(options.unreadOnly === true) })
      if (from > 0) query.set("from", String(from))
      const size = options.limit ?? options.pageSize
      if (size !== undefined) query.set("limit", String(size))
      const json = await signedGetJson(client, key, `/v2/inbox?${query}`)
      const page = inboxMessagesOf(json)
      for (const m of page) messages.push(await openMessage(client, file, m))
      const next = inboxNextFromOf(json)
      // Each page must end before the next begins, or a faulty answer could loop for ever.
      if (next !== null && (page.length === 0 || next <= page[page.length - 1]!.index)) {
        throw protocolError(`GET /v2/inbox: next_from ${next} does not follow the page it ends`)
      }
      if (paged) {
        if (next !== null && (nextFrom === null || next < nextFrom)) nextFrom = next
        break
      }
      from = next
    }
  }
  messages.sort((a, b) => a.index - b.index)
  if (paged) {
    const kept = messages.slice(0, options.limit)
    // More than a page merged from several keys: the next page starts at the first left out.
    const leftOut = messages[options.limit!]
    const next = leftOut === undefined ? nextFrom : nextFrom === null ? leftOut.index : Math.min(leftOut.index, nextFrom)
    return { kid: file.kid, messages: kept, failed: kept.filter((m) => "error" in m).length, next_from: next }
  }
  return { kid: file.kid, messages, failed: messages.filter((m) => "error" in m).length }
}
