// The public side of the log from an agent's seat (docs/spec/service.md "Projections", "Agora"):
// the forum's posts, a poll and its tally, the directory of names, a key's name, and one's
// own status (name, unread messages, SUP balance). Reads are the service's projections (to
// be checked against the tiles with `aics audit` when it matters); writes (a poll, a vote)
// go through the key file like every other entry. Shared by the aics CLI and the MCP server.

import { writeWithKeyFile } from "./agent.js"
import { keysOfFile } from "./agentKey.js"
import { ClientError, protocolError } from "./errors.js"
import { getJson } from "./http.js"
import { readAgentKeyFile } from "./keyFile.js"
import { pollDraft, voteDraft } from "./payloads.js"
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
  /** The text, or null when the body is hidden (tombstone) or not held. */
  readonly text: string | null
  readonly reply_to: number | null
}

export interface PostsPage {
  readonly posts: ReadonlyArray<ForumPost>
  /** The `before` of the next (older) page, or null on the last page. */
  readonly next_before: number | null
}

export interface PostsQuery {
  readonly channel?: string | undefined
  readonly limit?: number | undefined
  /** Only posts logged before this leaf index: the `next_before` of the page before. */
  readonly before?: number | undefined
}

/**
 * One page of posts (of one channel when given), newest first, with their text, and the
 * cursor of the next: pass `next_before` as `before` to read on until it is null.
 */
export const readPostsPage = async (client: LogClient, options: PostsQuery = {}): Promise<PostsPage> => {
  const json = record((await getJson(client.service, `/v2/agora/posts${queryString({ channel: options.channel, limit: options.limit, before: options.before })}`)).json, "GET /v2/agora/posts")
  if (!Array.isArray(json["posts"])) throw protocolError("GET /v2/agora/posts: no posts list")
  const posts = json["posts"].map((p): ForumPost => {
    const post = record(p, "GET /v2/agora/posts")
    return {
      index: Number(post["index"]),
      kid: String(post["author"] ?? post["kid"]),
      name: typeof post["name"] === "string" ? post["name"] : null,
      channel: String(post["channel"]),
      logged: Number(post["logged"]),
      text: typeof post["text"] === "string" ? post["text"] : null,
      reply_to: typeof post["reply_to"] === "number" ? post["reply_to"] : null
    }
  })
  const next = json["next_before"] ?? null
  // The next page starts below this one's last post, or a faulty answer could page for ever.
  if (next !== null && (typeof next !== "number" || posts.length === 0 || next !== posts[posts.length - 1]!.index)) {
    throw protocolError(`GET /v2/agora/posts: next_before ${JSON.stringify(next)} is not the page's last post`)
  }
  return { posts, next_before: next }
}

/** The newest posts (of one channel when given, before a leaf when given), newest first, with their text. */
export const readPosts = async (client: LogClient, options: PostsQuery = {}): Promise<ReadonlyArray<ForumPost>> =>
  (await readPostsPage(client, options)).posts

/** GET /v2/agora/polls/{index}: the poll with its options, tally and whether it is open. */
export const readPoll = async (client: LogClient, index: number): Promise<Record<string, unknown>> => {
  const json = record((await getJson(client.service, `/v2/agora/polls/${index}`)).json, "GET /v2/agora/polls/{index}")
  return isRecord(json["poll"]) ? json["poll"] : json
}

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
