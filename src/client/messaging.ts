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
import { lookupName, noX25519, type ResolvedName } from "./nameLookup.js"
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
  // The log refuses a DM to a name without an X25519 key (recipient_unknown, docs/protocol.md 10.2).
  if (to.x25519 === null || to.x25519Index === null) throw refusedError(`${noX25519(to)}; nothing was sent`, { code: "recipient_unknown" })
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

/** One signed GET /v2/inbox page of one key: its raw messages and next_from (checked to advance). */
const inboxPage = async (
  client: LogClient,
  key: AgentKey,
  query: { readonly unreadOnly: boolean; readonly from: number; readonly limit: number | undefined }
): Promise<{ readonly page: ReadonlyArray<RawMessage>; readonly next: number | null }> => {
  const params = new URLSearchParams({ unread_only: String(query.unreadOnly) })
  if (query.from > 0) params.set("from", String(query.from))
  if (query.limit !== undefined) params.set("limit", String(query.limit))
  const json = await signedGetJson(client, key, `/v2/inbox?${params}`)
  const page = inboxMessagesOf(json)
  const next = inboxNextFromOf(json)
  // Each page must end before the next begins, or a faulty answer could loop for ever.
  if (next !== null && (page.length === 0 || next <= page[page.length - 1]!.index)) {
    throw protocolError(`GET /v2/inbox: next_from ${next} does not follow the page it ends`)
  }
  return { page, next }
}

/** What readInbox answers: with `limit`, also the cursor of the next page (next_key and next_from, null when none is left). */
export type InboxRead = Inbox & { readonly next_from?: number | null; readonly next_key?: string | null }

/**
 * Reads this key's inbox (signed, a page at a time: each answer's next_from asks for the
 * next, so an inbox larger than one page is read whole) and decrypts every message.
 * `pageSize` is the `limit` of each page (the service's default when absent). After a
 * rotation the messages sent before it are in the retired key's inbox: each key of the file
 * reads its own, merged in leaf order.
 *
 * With `limit`, one page only: at most `limit` messages, and the cursor of the next page,
 * `next_key` and `next_from` (null when none is left). The keys are paged one at a time,
 * the oldest key the file rotated from first, the current key last: the page reads `key`
 * (the first of them when absent) from leaf `from` (0 when absent), then, while room is
 * left, the keys after it, each from its first message (from `from` without `key`). A signed
 * read marks what it returns read (the service moves that key's cursor to the newest message
 * of the answer, and `unread_only` starts after it), so each key is asked for no more than
 * the page still has room for: every message fetched is returned, none skipped.
 */
export const readInbox = async (
  client: LogClient,
  keyPath: string,
  options: {
    readonly unreadOnly?: boolean
    readonly pageSize?: number
    readonly from?: number
    readonly limit?: number
    /** With `limit`: the key the page starts with (the `next_key` of the page before). */
    readonly key?: string
  } = {}
): Promise<InboxRead> => {
  const file = await readAgentKeyFile(keyPath)
  const unreadOnly = options.unreadOnly === true
  const messages: Array<InboxMessage> = []
  const done = (next: { readonly next_from?: number | null; readonly next_key?: string | null } = {}): InboxRead => {
    messages.sort((a, b) => a.index - b.index)
    return { kid: file.kid, messages, failed: messages.filter((m) => "error" in m).length, ...next }
  }
  if (options.limit === undefined) {
    for (const key of keysOfFile(file)) {
      let from: number | null = options.from ?? 0
      while (from !== null) {
        const { page, next } = await inboxPage(client, key, { unreadOnly, from, limit: options.pageSize })
        for (const m of page) messages.push(await openMessage(client, file, m))
        from = next
      }
    }
    return done()
  }
  const keys = [...keysOfFile(file)].reverse()
  const first = options.key === undefined ? 0 : keys.findIndex((k) => k.kid === options.key)
  if (first < 0) throw usageError(`${options.key} is not a key of this key file (next_key names the file's current key or one it rotated from)`)
  const laterFrom = options.key === undefined ? options.from ?? 0 : 0
  let room = options.limit
  for (let i = first; i < keys.length; i++) {
    const from = i === first ? options.from ?? 0 : laterFrom
    if (room === 0) return done({ next_key: keys[i]!.kid, next_from: from })
    const { page, next } = await inboxPage(client, keys[i]!, { unreadOnly, from, limit: room })
    if (page.length > room) throw protocolError(`GET /v2/inbox: ${page.length} messages for a limit of ${room}`)
    for (const m of page) messages.push(await openMessage(client, file, m))
    room -= page.length
    // This key has more (the page was full, or cut by bytes): the next page goes on with it.
    if (next !== null) return done({ next_key: keys[i]!.kid, next_from: next })
  }
  return done({ next_key: null, next_from: null })
}
