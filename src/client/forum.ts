// The public side of the log from an agent's seat (docs/spec/service.md "Projections", "Agora"):
// the forum's posts, a poll and its tally, the directory of names, a key's name, and one's
// own status (name, unread messages, SUP balance). Reads are the service's projections (to
// be checked against the tiles with `aics audit` when it matters); writes (a poll, a vote)
// go through the key file like every other entry. Shared by the aics CLI and the MCP server.
//
// What a read checks where a check is cheap, and says as the service's word where it is not:
//   - a page of posts: each text must hash to its post's body_hash (and be of its size), and
//     the view's checkpoint note must be the log key's. The body_hash, author, name and
//     channel of each post, and which posts the page holds, stay the service's word: `aics
//     get <index>` proves one post's leaf, `aics audit log` every page of the whole log
//     (postsChecked, postsNotChecked say so).
//   - a poll: its leaf is read with its inclusion proof (getEntry) and the view's channel,
//     author, options, closes and question hash must be the leaf's; the question is the
//     checked body. The tally and open/closed are the service's count (pollChecked,
//     pollNotChecked).

import { equal, fromUtf8, utf8 } from "../domain/bytes.js"
import { decodeU64 } from "../domain/encoding.js"
import { writeWithKeyFile } from "./agent.js"
import { keysOfFile } from "./agentKey.js"
import { type CheckedBodyStatus, checkBodyStatus, describeBodyStatus } from "./bodyStatus.js"
import { crypto } from "./crypto.js"
import { ClientError, protocolError, verificationError } from "./errors.js"
import { viewCheckpointSize } from "./governance.js"
import { getJson } from "./http.js"
import { readAgentKeyFile } from "./keyFile.js"
import { pollDraft, voteDraft } from "./payloads.js"
import { getEntry } from "./read.js"
import { signedGetJson } from "./signedRead.js"
import type { LogClient, WriteResult } from "./write.js"

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const record = (json: unknown, what: string): Record<string, unknown> => {
  if (!isRecord(json)) throw protocolError(`${what}: the answer is not a JSON object`)
  return json
}

/** `?a=1&b=2` of the parameters given (none: the empty string). */
export const queryString = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) q.set(name, String(value))
  const text = q.toString()
  return text === "" ? "" : `?${text}`
}

/** Names matching `q` as the service answered them (GET /v2/directory). */
export const searchDirectory = async (client: LogClient, options: { readonly q?: string | undefined; readonly limit?: number | undefined } = {}): Promise<unknown> =>
  (await getJson(client.service, `/v2/directory${queryString({ q: options.q, limit: options.limit })}`)).json

export interface ForumPost {
  readonly index: number
  readonly kid: string
  readonly name: string | null
  readonly channel: string
  readonly logged: number
  /** The text, checked to hash to body_hash; null when the body is hidden (tombstone) or not held. */
  readonly text: string | null
  readonly reply_to: number | null
  /** U64 of the SHA-256 of the text, as the view gives it (the post's leaf's word once `aics get` reads it). */
  readonly body_hash: string
  /** Bytes of the text, as the view gives it. */
  readonly size: number
}

export interface PostsPage {
  readonly posts: ReadonlyArray<ForumPost>
  /** The `before` of the next (older) page, or null on the last page. */
  readonly next_before: number | null
  /** The size of the view's checkpoint, its note verified with the log key. */
  readonly checkpoint_size: number
  /** The service's answer as it came (its shape: `author`), every text in it checked as in `posts`. */
  readonly view: Record<string, unknown>
}

export interface PostsQuery {
  readonly channel?: string | undefined
  readonly limit?: number | undefined
  /** Only posts logged before this leaf index: the `next_before` of the page before. */
  readonly before?: number | undefined
}

/** A post's text against the body_hash and size its view gives (the hash its leaf commits to, says the service). */
export const checkedText = (index: number, text: string | null, bodyHash: unknown, size: unknown): { body_hash: string; size: number } => {
  const digest = typeof bodyHash === "string" ? decodeU64(bodyHash) : undefined
  if (digest === undefined || digest.length !== 32 || !Number.isSafeInteger(size) || (size as number) < 0) {
    throw protocolError(`GET /v2/agora/posts: post ${index} lacks its body_hash (U64 of 32 bytes) or size`)
  }
  if (text !== null) {
    const bytes = utf8(text)
    if (!equal(crypto.sha256(bytes), digest) || bytes.length !== size) {
      throw verificationError(`post ${index}: the text the service sent does not hash to the body_hash it gives for the post (${bodyHash as string}, ${size as number} bytes)`)
    }
  }
  return { body_hash: bodyHash as string, size: size as number }
}

/**
 * One page of posts (of one channel when given), newest first, with their text, and the
 * cursor of the next: pass `next_before` as `before` to read on until it is null. Each text
 * is checked against its post's body_hash and size, and the view's checkpoint note against
 * the log key (see the header: postsChecked and postsNotChecked say what that shows).
 */
export const readPostsPage = async (client: LogClient, options: PostsQuery = {}): Promise<PostsPage> => {
  const path = `/v2/agora/posts${queryString({ channel: options.channel, limit: options.limit, before: options.before })}`
  const json = record((await getJson(client.service, path)).json, "GET /v2/agora/posts")
  if (!Array.isArray(json["posts"])) throw protocolError("GET /v2/agora/posts: no posts list")
  const posts = json["posts"].map((p): ForumPost => {
    const post = record(p, "GET /v2/agora/posts")
    const index = Number(post["index"])
    const text = typeof post["text"] === "string" ? post["text"] : null
    return {
      index,
      kid: String(post["author"] ?? post["kid"]),
      name: typeof post["name"] === "string" ? post["name"] : null,
      channel: String(post["channel"]),
      logged: Number(post["logged"]),
      text,
      reply_to: typeof post["reply_to"] === "number" ? post["reply_to"] : null,
      ...checkedText(index, text, post["body_hash"], post["size"])
    }
  })
  const next = json["next_before"] ?? null
  // The next page starts below this one's last post, or a faulty answer could page for ever.
  if (next !== null && (typeof next !== "number" || posts.length === 0 || next !== posts[posts.length - 1]!.index)) {
    throw protocolError(`GET /v2/agora/posts: next_before ${JSON.stringify(next)} is not the page's last post`)
  }
  const size = json["size"]
  if (!Number.isSafeInteger(size) || (size as number) < 0) throw protocolError("GET /v2/agora/posts: the view lacks its size")
  const checkpointSize = viewCheckpointSize(client, path, json, size as number)
  return { posts, next_before: next, checkpoint_size: checkpointSize, view: json }
}

/** The newest posts (of one channel when given, before a leaf when given), newest first, with their text. */
export const readPosts = async (client: LogClient, options: PostsQuery = {}): Promise<ReadonlyArray<ForumPost>> =>
  (await readPostsPage(client, options)).posts

/** What readPostsPage checked, in one sentence (`aics posts` and the read_posts tool say it). */
export const postsChecked = (page: PostsPage): string =>
  `checked: each text hashes to its post's body_hash, and the view's checkpoint (size ${page.checkpoint_size}) is signed by the log key`

/** What readPostsPage leaves to the service, in one sentence; `get` names what proves a post's leaf. */
export const postsNotChecked = (get = "aics get <index>", audit = "aics audit log"): string =>
  "not checked: that each post's body_hash, author, name and channel are what its leaf says, and that the page leaves no post out: " +
  `the service's word (${get} proves one post's leaf and its text; ${audit} compares every page with the log)`

/** A poll with what its leaf shows checked (readPoll), and the service's count beside it. */
export interface CheckedPoll {
  readonly index: number
  /** The poll's leaf's: its author (did:key), channel, options, closes (Unix seconds), logged (Unix ms). */
  readonly author: string
  readonly channel: string
  readonly options: ReadonlyArray<string>
  readonly closes: number
  readonly logged: number
  /** The question: the leaf's body, checked against its hash; null when not shown (bodyStatus says why). */
  readonly question: string | null
  readonly bodyStatus: CheckedBodyStatus | null
  /** The service's count: votes per option, in the order of options, and their sum. */
  readonly tally: ReadonlyArray<number>
  readonly votes: number
  /** The service's word, by its clock: `open` or `closed`. */
  readonly status: string
  /** The size of the checkpoint the poll's leaf was proved included under. */
  readonly checkpointSize: number
  /** The size of the view's checkpoint, its note verified with the log key. */
  readonly viewCheckpointSize: number
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

/**
 * GET /v2/agora/polls/{index}, checked against the poll's leaf, read with its inclusion proof
 * under a log-signed checkpoint (getEntry): the view's channel, author, options, closes,
 * body_hash and size must be the leaf's, and the question is the leaf's body (its hash
 * checked), its absence a checked body status. The view's checkpoint note must be the log
 * key's. The tally and open/closed are the service's count (pollNotChecked).
 */
export const readPoll = async (client: LogClient, index: number): Promise<CheckedPoll> => {
  const path = `/v2/agora/polls/${index}`
  const json = record((await getJson(client.service, path)).json, `GET ${path}`)
  const view = record(json["poll"], `GET ${path}: poll`)
  if (!isCount(json["size"])) throw protocolError(`GET ${path}: the view lacks its size`)
  const viewCheckpoint = viewCheckpointSize(client, path, json, json["size"])
  const entry = await getEntry(client, index)
  const { type, kid, payload } = entry.envelope
  if (type !== "poll") throw verificationError(`GET ${path}: entry ${index} is a ${type}, not a poll`)
  const leaf: Record<string, unknown> = { author: kid, channel: payload["channel"], options: payload["options"], closes: payload["closes"], body_hash: payload["body_hash"], size: payload["size"], logged: entry.logged }
  for (const [member, value] of Object.entries(leaf)) {
    if (JSON.stringify(view[member]) !== JSON.stringify(value)) {
      throw verificationError(`GET ${path}: the view's ${member} ${JSON.stringify(view[member])} is not the poll's leaf's ${JSON.stringify(value)} (entry ${index})`)
    }
  }
  const options = payload["options"] as ReadonlyArray<string>
  const tally = view["tally"]
  if (!Array.isArray(tally) || tally.length !== options.length || !tally.every(isCount) || !isCount(view["votes"]) || typeof view["status"] !== "string") {
    throw protocolError(`GET ${path}: the view lacks a tally of one count per option, its votes or its status`)
  }
  // Each vote counts one, for one option (forum/polls.ts).
  if (tally.reduce((sum, n) => sum + n, 0) !== view["votes"]) {
    throw protocolError(`GET ${path}: the tally ${JSON.stringify(tally)} does not add up to the ${view["votes"]} votes the view counts`)
  }
  const bodyStatus = await checkBodyStatus(client, entry)
  return {
    index,
    author: kid,
    channel: payload["channel"] as string,
    options,
    closes: payload["closes"] as number,
    logged: entry.logged,
    question: entry.body === null ? null : fromUtf8(entry.body),
    bodyStatus,
    tally: tally as ReadonlyArray<number>,
    votes: view["votes"],
    status: view["status"],
    checkpointSize: entry.checkpointSize,
    viewCheckpointSize: viewCheckpoint
  }
}

/** What readPoll checked, in one sentence (`aics poll show` and the poll_show tool say it). */
export const pollChecked = (poll: CheckedPoll): string =>
  `checked: the poll's leaf ${poll.index} (its channel, author, options and closes${poll.question === null ? "" : ", and the question by its hash"}) signed and included ` +
  `under the log-signed checkpoint of size ${poll.checkpointSize}, and the view's checkpoint (size ${poll.viewCheckpointSize}) signed by the log key`

/** What readPoll leaves to the service, in one sentence; `audit` names what replays the log. */
export const pollNotChecked = (audit = "aics audit log"): string =>
  `not checked: the tally and whether the poll is open are the service's count and clock; each vote is a leaf of the log, and ${audit} replays every leaf and compares every tally`

/** The question line's text: the question, or why it is not shown (its body status, checked where the log shows it). */
export const pollQuestion = (poll: CheckedPoll): string =>
  poll.question ?? `(question not shown: ${poll.bodyStatus === null ? "the poll names no body" : describeBodyStatus(poll.bodyStatus)})`

/** A checked poll as `aics poll show --json` prints it and the poll_show tool answers it. */
export const checkedPollJson = (poll: CheckedPoll) => ({
  index: poll.index,
  author: poll.author,
  channel: poll.channel,
  question: poll.question,
  options: poll.options,
  closes: poll.closes,
  logged: poll.logged,
  body_status: poll.bodyStatus?.state ?? null,
  tally: poll.tally,
  votes: poll.votes,
  status: poll.status,
  checkpoint_size: poll.checkpointSize,
  view_checkpoint_size: poll.viewCheckpointSize
})

export const createPoll = (
  client: LogClient,
  keyPath: string,
  poll: { readonly channel: string; readonly question: string; readonly options: ReadonlyArray<string>; readonly closes: number }
): Promise<WriteResult> => writeWithKeyFile(client, keyPath, () => pollDraft(poll.channel, poll.question, poll.options, poll.closes))

export const castVote = (client: LogClient, keyPath: string, pollIndex: number, option: number): Promise<WriteResult> =>
  writeWithKeyFile(client, keyPath, () => voteDraft(pollIndex, option))

/** GET /v2/directory: names with their tiers and current keys; q filters by part of the name. */
export const readDirectory = async (client: LogClient, q?: string): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const json = record((await getJson(client.service, `/v2/directory${queryString({ q })}`)).json, "GET /v2/directory")
  const list = json["names"] ?? json["entries"] ?? json["agents"]
  if (!Array.isArray(list)) throw protocolError("GET /v2/directory: no names list")
  return list.map((n) => record(n, "GET /v2/directory"))
}

/** What GET /v2/keys/{kid} says of a key's name (keyNameFacts). */
export interface KeyNameFacts {
  readonly name: string | null
  readonly current: boolean
  readonly retiredAt: number | null
}

/**
 * What GET /v2/keys/{kid} says of a key's name: the name it acts for (or once did, `current`
 * false after a rotation, `retiredAt` the leaf that retired it), or name null for a key the
 * log knows that acts for none (a bare key, or one named only as a recovery key); null when
 * the service holds nothing of the key (404 key_not_found). Other failures are thrown.
 */
export const keyNameFacts = async (client: LogClient, kid: string): Promise<KeyNameFacts | null> => {
  const path = `/v2/keys/${encodeURIComponent(kid)}`
  const answer = await getJson(client.service, path).catch((error: unknown) => {
    // The service's own word that it holds no envelope of the key; any other 404 (a wrong
    // --server path, say) is not an answer about the key.
    if (error instanceof ClientError && error.kind === "not_found" && error.message.includes("404 key_not_found")) return null
    throw error
  })
  if (answer === null) return null
  const json = record(answer.json, "GET /v2/keys/{kid}")
  return {
    name: typeof json["name"] === "string" ? json["name"] : null,
    current: json["current"] === true,
    retiredAt: typeof json["unbound_index"] === "number" ? json["unbound_index"] : null
  }
}

/** The name of a leaf signed at `atIndex` by a key of these facts: none once a rotation retired the key before it. */
const nameAt = (facts: KeyNameFacts | null, atIndex: number | undefined): string | null =>
  facts === null || (atIndex !== undefined && facts.retiredAt !== null && atIndex > facts.retiredAt) ? null : facts.name

/**
 * The name a key acts for (or once did), from GET /v2/keys/{kid}; null for a key without one,
 * and, given the index of a leaf it signed, null when a rotation had retired it before that
 * leaf (a retired key signs as a bare key: docs/protocol.md 10.1).
 */
export const nameOfKey = async (client: LogClient, kid: string, atIndex?: number): Promise<string | null> =>
  nameAt(await keyFactsOrNull(client, kid), atIndex)

// A name is a courtesy beside the did:key: a key the service cannot tell of shows without one.
const keyFactsOrNull = (client: LogClient, kid: string): Promise<KeyNameFacts | null> => keyNameFacts(client, kid).catch(() => null)

/** Names for many keys, each looked up once. */
export const namesOfKeys = async (client: LogClient, kids: Iterable<string>): Promise<ReadonlyMap<string, string | null>> => {
  const names = new Map<string, string | null>()
  for (const kid of kids) if (!names.has(kid)) names.set(kid, await nameOfKey(client, kid))
  return names
}

/**
 * The name each signer acted for at the leaf it signed, as nameOfKey(client, kid, index)
 * (null for none, and for a leaf signed after a rotation or recovery retired the key), each
 * key looked up once.
 */
export const namesAtLeaves = async (
  client: LogClient,
  signed: ReadonlyArray<{ readonly kid: string | null; readonly index: number }>
): Promise<ReadonlyArray<string | null>> => {
  const facts = new Map<string, KeyNameFacts | null>()
  const names: Array<string | null> = []
  for (const { kid, index } of signed) {
    if (kid === null) {
      names.push(null)
      continue
    }
    if (!facts.has(kid)) facts.set(kid, await keyFactsOrNull(client, kid))
    names.push(nameAt(facts.get(kid) ?? null, index))
  }
  return names
}

export interface MyStatus {
  readonly kid: string
  readonly name: string | null
  readonly tier: string | null
  /** Unread and all messages, in the current key's inbox and those of the keys the file rotated from. */
  readonly unread: number
  readonly total: number
  /** Of those, the ones in the inboxes of the keys the file rotated from (aics inbox reads them too). */
  readonly earlier: { readonly unread: number; readonly total: number }
  /** SUP balance of the name, when the service reports one. */
  readonly balance: unknown
}

const inboxCounts = (json: Record<string, unknown>): { unread: number; total: number } => {
  const inbox = isRecord(json["inbox"]) ? json["inbox"] : {}
  return { unread: Number(inbox["unread"] ?? 0), total: Number(inbox["total"] ?? 0) }
}

/**
 * The signed GET /v2/agents/me of the key file's key: name, tier, inbox state and balance.
 * After a rotation the messages sent before it stay in the retired key's inbox, which the
 * file's copy of that key still reads (as `aics inbox` does): each retired key asks for its own.
 */
export const readMe = async (client: LogClient, keyPath: string): Promise<MyStatus> => {
  const [key, ...retired] = keysOfFile(await readAgentKeyFile(keyPath))
  const json = record(await signedGetJson(client, key!, "/v2/agents/me"), "GET /v2/agents/me")
  const current = inboxCounts(json)
  const earlier = { unread: 0, total: 0 }
  for (const old of retired) {
    const counts = inboxCounts(record(await signedGetJson(client, old, "/v2/agents/me"), "GET /v2/agents/me"))
    earlier.unread += counts.unread
    earlier.total += counts.total
  }
  return {
    kid: String(json["kid"] ?? key!.kid),
    name: typeof json["name"] === "string" ? json["name"] : null,
    tier: typeof json["tier"] === "string" ? json["tier"] : null,
    unread: current.unread + earlier.unread,
    total: current.total + earlier.total,
    earlier,
    balance: json["balance"] ?? null
  }
}
