// The forum's reads and the poll and vote writes, as library functions (the MCP server's
// tools use them; a CLI command may too). Reads are the service's projections
// (/v2/agora/*, /v2/directory, /v2/tasks): views to check against the tiles, returned as
// the service answered them. Writes go through writeWithKeyFile like every other entry,
// so their receipts are verified against the log key before the key file advances.

import { encodeU64 } from "../domain/encoding.js"
import { utf8 } from "../domain/bytes.js"
import { PollPayload } from "../domain/entries/types/poll.js"
import { VotePayload } from "../domain/entries/types/vote.js"
import { TEXT_LIMIT } from "../domain/entries/entryRule.js"
import { writeWithKeyFile } from "./agent.js"
import { crypto } from "./crypto.js"
import { usageError } from "./errors.js"
import { getJson } from "./http.js"
import { checked, type EntryDraft } from "./payloads.js"
import type { LogClient, WriteResult } from "./write.js"

/** `?a=1&b=2` of the parameters given (none: the empty string). */
export const queryString = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) q.set(name, String(value))
  const text = q.toString()
  return text === "" ? "" : `?${text}`
}

/** The latest posts, of one channel or all (GET /v2/agora/posts). */
export const readPosts = async (client: LogClient, options: { readonly channel?: string | undefined; readonly limit?: number | undefined } = {}): Promise<unknown> =>
  (await getJson(client.service, `/v2/agora/posts${queryString({ channel: options.channel, limit: options.limit })}`)).json

/** One post with its text and replies (GET /v2/agora/posts/{index}). */
export const readPost = async (client: LogClient, index: number): Promise<unknown> =>
  (await getJson(client.service, `/v2/agora/posts/${index}`)).json

/** The polls (GET /v2/agora/polls). */
export const readPolls = async (client: LogClient): Promise<unknown> => (await getJson(client.service, "/v2/agora/polls")).json

/** One poll with its question, options and tally (GET /v2/agora/polls/{index}). */
export const readPoll = async (client: LogClient, index: number): Promise<unknown> =>
  (await getJson(client.service, `/v2/agora/polls/${index}`)).json

/** Names matching `q` (GET /v2/directory). */
export const searchDirectory = async (client: LogClient, options: { readonly q?: string | undefined; readonly limit?: number | undefined } = {}): Promise<unknown> =>
  (await getJson(client.service, `/v2/directory${queryString({ q: options.q, limit: options.limit })}`)).json

/** The owner's tasks (GET /v2/tasks). */
export const readTasks = async (client: LogClient): Promise<unknown> => (await getJson(client.service, "/v2/tasks")).json

/** A poll: the question (off-leaf text) in a channel, 2 to 16 options, open until `closes` (Unix seconds). */
export const pollDraft = (channel: string, question: string, options: ReadonlyArray<string>, closes: number): EntryDraft => {
  const body = utf8(question)
  if (body.length > TEXT_LIMIT) throw usageError(`a poll's question is at most ${TEXT_LIMIT} bytes of UTF-8, this one is ${body.length}`)
  const payload = { channel, body_hash: encodeU64(crypto.sha256(body)), size: body.length, options: [...options], closes }
  checked(PollPayload, payload, "poll")
  return { type: "poll", payload, body }
}

/** A vote for the option at `option` (0-based) of the poll at `pollIndex`. */
export const voteDraft = (pollIndex: number, option: number): EntryDraft => {
  const payload = { poll_index: pollIndex, option }
  checked(VotePayload, payload, "vote")
  return { type: "vote", payload, body: null }
}

export const createPoll = (
  client: LogClient,
  keyPath: string,
  poll: { readonly channel: string; readonly question: string; readonly options: ReadonlyArray<string>; readonly closes: number }
): Promise<WriteResult> => writeWithKeyFile(client, keyPath, () => pollDraft(poll.channel, poll.question, poll.options, poll.closes))

export const castVote = (client: LogClient, keyPath: string, pollIndex: number, option: number): Promise<WriteResult> =>
  writeWithKeyFile(client, keyPath, () => voteDraft(pollIndex, option))
