// Direct messages (docs/protocol.md section 9). Sending: the recipient's X25519 key from its
// verified name view (nameLookup.ts), the grant that governs DMs from this key to it
// (grants.ts), HPKE to that key, and a `dm` entry {to, grant_index, ct_hash, size,
// x25519_index} whose body is the ciphertext. Reading: the signed GET /v2/inbox, each
// message's leaf proved in the log (the entry bytes rebuilt from the envelope, index and
// logged time the answer gives, included under a checkpoint the log key signed, by proofs
// built from the hash tiles) and its envelope checked (signature, addressed to this key,
// ciphertext hash) before it is opened with the key file's X25519 secret. HPKE base mode
// does not authenticate the sender; the sender's Ed25519 signature over ct_hash does, and
// the aad names that sender. A message that does not check or open is reported with the
// reason, never dropped; a leaf the log's proofs deny fails the whole read (verification),
// as the service's answer is then not the log's.

import { Either } from "effect"
import { equal, fromUtf8, utf8 } from "../domain/bytes.js"
import { decodeU64 } from "../domain/encoding.js"
import { decodeEnvelope, type Envelope } from "../domain/envelope/envelope.js"
import { entryBytes } from "../domain/envelope/leaf.js"
import { verifyEnvelopeSignature } from "../domain/envelope/signature.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import type { Hash } from "../domain/tlog/hasher.js"
import { inclusionProofFromHashes, inclusionProofIndexes, verifyInclusion } from "../domain/tlog/inclusion.js"
import { writeWithKeyFile } from "./agent.js"
import { keysOfFile, type AgentKey } from "./agentKey.js"
import { fetchCheckpoint } from "./checkpoint.js"
import { crypto, hasher } from "./crypto.js"
import { ClientError, protocolError, refusedError, usageError, verificationError } from "./errors.js"
import { governingGrant } from "./grants.js"
import { HpkeOpenError, openDm, sealDm } from "./hpke.js"
import { readAgentKeyFile } from "./keyFile.js"
import { lookupName, noX25519, type ResolvedName } from "./nameLookup.js"
import { dmDraft, someText, type EntryDraft } from "./payloads.js"
import { getEntry } from "./read.js"
import { signedGetJson } from "./signedRead.js"
import { tileReader } from "./tiles.js"
import { checkpointCovering } from "./verify.js"
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
    if (!isRecord(m) || typeof m["index"] !== "number" || !Number.isSafeInteger(m["index"]) || m["index"] < 0) {
      throw protocolError("GET /v2/inbox: a message has no leaf index")
    }
    const ct = [m["ct"], m["ciphertext"], m["body_or_ct"], m["body"]].find((v): v is string => typeof v === "string")
    return { index: m["index"], envelope: m["envelope"], ct, logged: typeof m["logged"] === "number" ? m["logged"] : null }
  })
}

/** A message of the answer with its envelope decoded and its leaf hash rebuilt, ready to be proved in the log. */
interface LeafOfAnswer {
  readonly envelope: Envelope
  readonly ct: Uint8Array
  readonly logged: number
  readonly leafHash: Hash
}

/** Why a message of the answer cannot be opened, said before anything is proved: its envelope or ciphertext is not one. */
interface Unreadable {
  readonly unreadable: string
}

/**
 * The leaf an answer's message claims: the entry bytes of its envelope at its index and
 * logged time (docs/spec/profile.md section 4), hashed. Undefined when the answer carries no
 * envelope, ciphertext or logged time: the message is then read from its entry (getEntry).
 */
const leafOfAnswer = (m: RawMessage): LeafOfAnswer | Unreadable | undefined => {
  if (m.envelope === undefined || m.ct === undefined || m.logged === null) return undefined
  const envelope = decodeEnvelope(m.envelope)
  if (Either.isLeft(envelope)) return { unreadable: "the envelope is malformed" }
  const ct = decodeU64(m.ct)
  if (ct === undefined) return { unreadable: "the ciphertext is not U64" }
  const bytes = entryBytes(envelope.right, m.index, m.logged)
  if (Either.isLeft(bytes)) return { unreadable: "the envelope, index and logged time make no leaf of the log" }
  return { envelope: envelope.right, ct, logged: m.logged, leafHash: hasher.leafHash(bytes.right) }
}

/** What a page's messages are opened from: each one's proved leaf, or why it cannot be read. */
type Proved = LeafOfAnswer | Unreadable | undefined

/**
 * How long a read waits for a checkpoint covering a message the service already lists: the
 * log publishes a durable leaf within its merge delay (seconds by default), as verify waits.
 */
const COVERING_WAIT_MS = 10_000

/**
 * The prover of one inbox read: one checkpoint verified with the log key (cosigned by the
 * witnesses when the client requires them), fetched anew only when a page lists a message
 * past it, and one tile reader, so each tile (a level-0 one holds 256 leaf hashes) is fetched once for
 * the whole read: a page of messages costs a few tiles, not a request per message.
 */
const inboxProver = async (client: LogClient) => {
  const tiles = tileReader(client.service)
  // Verified before the first signed read, which marks messages read: a wrong log key stops
  // the read before the service marks anything.
  let checkpoint: Checkpoint = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  return async (page: ReadonlyArray<RawMessage>): Promise<ReadonlyArray<Proved>> => {
    const leaves = page.map(leafOfAnswer)
    const toProve = page.flatMap((m, i) => {
      const leaf = leaves[i]
      return leaf === undefined || "unreadable" in leaf ? [] : [{ index: m.index, leaf }]
    })
    if (toProve.length === 0) return leaves
    const last = Math.max(...toProve.map((p) => p.index))
    if (last >= checkpoint.size) checkpoint = await checkpointCovering(client, last, COVERING_WAIT_MS)
    const size = checkpoint.size
    const covered = toProve.filter((p) => p.index < size)
    // Every proof's hashes of the page at once: the tiles they lie in, each fetched once.
    const needed = covered.map((p) => inclusionProofIndexes(p.index, size))
    const hashes = await tiles.storedHashes(size, needed.flat())
    let at = 0
    covered.forEach((p, i) => {
      const proof = inclusionProofFromHashes(hasher, p.index, size, hashes.slice(at, at + needed[i]!.length))
      at += needed[i]!.length
      if (!verifyInclusion(hasher, p.index, size, p.leaf.leafHash, proof, checkpoint.rootHash)) {
        throw verificationError(
          `inbox message ${p.index}: the leaf of its envelope at index ${p.index}, logged ${p.leaf.logged}, as the service's answer gives them, ` +
            `is not in the log under the checkpoint of size ${size} signed by the log key (the inclusion proof its hash tiles give does not lead to the signed root)`
        )
      }
    })
    return page.map((m, i) => {
      const leaf = leaves[i]
      if (leaf === undefined || "unreadable" in leaf || m.index < size) return leaf
      return { unreadable: `not yet under the log's checkpoint (size ${size}) after ${COVERING_WAIT_MS / 1000} s, so not proved in the log: read it again later` }
    })
  }
}

/** The message's envelope and ciphertext: its leaf proved from the answer, or its entry read (inclusion-checked). */
const envelopeAndCiphertext = async (
  client: LogClient,
  m: RawMessage,
  proved: Proved
): Promise<{ envelope: Envelope; ct: Uint8Array; logged: number | null }> => {
  if (proved !== undefined) {
    if ("unreadable" in proved) throw new Error(proved.unreadable)
    if (!verifyEnvelopeSignature(proved.envelope, crypto.ed25519)) throw new Error("the sender's signature does not verify")
    return { envelope: proved.envelope, ct: proved.ct, logged: proved.logged }
  }
  const entry = await getEntry(client, m.index)
  if (entry.body === null) throw new Error(`the ciphertext is not available (${entry.bodyStatus ?? "no body"})`)
  return { envelope: entry.envelope, ct: entry.body, logged: entry.logged }
}

const openMessage = async (client: LogClient, key: AgentKey, m: RawMessage, proved: Proved): Promise<InboxMessage> => {
  let from: string | null = null
  let logged = m.logged
  try {
    const read = await envelopeAndCiphertext(client, m, proved)
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
    // An unreachable service, or a log whose own proofs deny what it served, stops the read:
    // neither is about this one message.
    if (!(error instanceof Error) || (error instanceof ClientError && (error.kind === "network" || error.kind === "verification"))) throw error
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
 *
 * Each message is proved in the log before it is opened (inboxProver): its leaf, rebuilt from
 * the envelope, index and logged time the answer gives, must be included under a checkpoint
 * verified with the log key (and cosigned by the client's witnesses, when it names some).
 * Which messages the answer lists, and whether they were read before, are the service's word.
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
  const keys = [...keysOfFile(file)].reverse()
  const first = options.key === undefined ? 0 : keys.findIndex((k) => k.kid === options.key)
  if (options.limit !== undefined && first < 0) {
    throw usageError(`${options.key} is not a key of this key file (next_key names the file's current key or one it rotated from)`)
  }
  const prove = await inboxProver(client)
  const openPage = async (page: ReadonlyArray<RawMessage>) => {
    const proved = await prove(page)
    for (const [i, m] of page.entries()) messages.push(await openMessage(client, file, m, proved[i]))
  }
  if (options.limit === undefined) {
    for (const key of keysOfFile(file)) {
      let from: number | null = options.from ?? 0
      while (from !== null) {
        const { page, next } = await inboxPage(client, key, { unreadOnly, from, limit: options.pageSize })
        await openPage(page)
        from = next
      }
    }
    return done()
  }
  const laterFrom = options.key === undefined ? options.from ?? 0 : 0
  let room = options.limit
  for (let i = first; i < keys.length; i++) {
    const from = i === first ? options.from ?? 0 : laterFrom
    if (room === 0) return done({ next_key: keys[i]!.kid, next_from: from })
    const { page, next } = await inboxPage(client, keys[i]!, { unreadOnly, from, limit: room })
    if (page.length > room) throw protocolError(`GET /v2/inbox: ${page.length} messages for a limit of ${room}`)
    await openPage(page)
    room -= page.length
    // This key has more (the page was full, or cut by bytes): the next page goes on with it.
    if (next !== null) return done({ next_key: keys[i]!.kid, next_from: next })
  }
  return done({ next_key: null, next_from: null })
}
