// Requests to the owner (docs/spec/service.md "Forum, owner requests, tasks":
// `/v2/agora/human-actions` "requests to the owner newest first: posts the owner quoted and
// posts in channel `owner-actions`", `/v2/agora/human-actions/{request_index}` "request
// with quotes, completion, payment"; docs/protocol.md section 12). A request is a post; its
// quotes, payments and completions are tasks/ownerRequests.ts's. Its status is the
// furthest any of its quotes reached (completed, then paid), else its newest quote's
// (quoted or expired), else `open` (no quote yet).

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { quoteOf, quoteStatus, requestView } from "../tasks/ownerRequests.js"
import type { LogState } from "../write/logState.js"
import { postItem, postLeaves } from "./agoraPosts.js"
import { sizeCovering } from "./coverage.js"
import { firstAccepted, fromEnd, mergeDescending } from "./chunks.js"
import type { LeafPage } from "./leafPage.js"

export const OWNER_ACTIONS_CHANNEL = "owner-actions"

export const REQUEST_STATUSES = ["open", "quoted", "expired", "paid", "completed"] as const
export type RequestStatus = typeof REQUEST_STATUSES[number]

const quotesOf = (state: LogState, requestIndex: number): ReadonlyArray<number> =>
  Chunk.toReadonlyArray(Option.getOrElse(HashMap.get(state.tasks.requests, requestIndex), () => Chunk.empty<number>()))

export const requestStatus = (state: LogState, requestIndex: number, now: number): RequestStatus => {
  const statuses = quotesOf(state, requestIndex).map((i) => quoteStatus(quoteOf(state, i)!, now))
  if (statuses.includes("completed")) return "completed"
  if (statuses.includes("paid")) return "paid"
  return statuses.length === 0 ? "open" : statuses[statuses.length - 1]!
}

const requestItem = (state: LogState, requestIndex: number, now: number) => {
  const post = postItem(state, requestIndex, now)!
  const { request_index: _, author: __, channel: ___, quotes } = requestView(state, requestIndex, now)!
  return { request_index: requestIndex, status: requestStatus(state, requestIndex, now), post, quotes }
}

type RequestItem = ReturnType<typeof requestItem>

const requestLeaves = (state: LogState, item: RequestItem): ReadonlyArray<number | null> => [
  ...postLeaves(state, item.post),
  ...item.quotes.flatMap((q) => [q.index, q.payment_index, q.completion_index])
]

const ownerActionsChannel = (state: LogState): Chunk.Chunk<number> =>
  Option.getOrElse(HashMap.get(state.forum.channelPosts, OWNER_ACTIONS_CHANNEL), () => Chunk.empty<number>())

// The quoted posts, newest first, per state: the map is persistent, so one sorted copy
// serves every request made against that state (the owner quotes by hand: they are few;
// they are resident, whole in every slice).
const quotedCache = new WeakMap<LogState["tasks"]["requests"], ReadonlyArray<number>>()
export const quotedDescending = (state: LogState): ReadonlyArray<number> => {
  const cached = quotedCache.get(state.tasks.requests)
  if (cached !== undefined) return cached
  const sorted = [...HashMap.keys(state.tasks.requests)].sort((a, b) => b - a)
  quotedCache.set(state.tasks.requests, sorted)
  return sorted
}

/** True when the owner quoted the post (a resident part: whole in every slice). */
export const isQuoted = (state: LogState, postIndex: number): boolean => HashMap.has(state.tasks.requests, postIndex)

function* unquoted(state: LogState, posts: Iterable<number>): Generator<number> {
  for (const i of posts) if (!isQuoted(state, i)) yield i
}

/**
 * The request leaves a status filter has to look at, newest first. Every status but
 * `open` needs a quote, so those walk the quoted requests only; `open` ones are the
 * channel's posts without a quote (a post outside the channel is a request only once
 * quoted); no filter merges both. The channel may be long: it is walked from its end only
 * as far as the page needs.
 */
const candidates = (state: LogState, status: RequestStatus | undefined): Iterable<number> => {
  if (status === "open") {
    return { [Symbol.iterator]: () => unquoted(state, fromEnd(ownerActionsChannel(state))) }
  }
  if (status !== undefined) return quotedDescending(state)
  const quotedOutside = () => quotedDescending(state).filter((i) => !isInChannel(state, i))[Symbol.iterator]()
  return { [Symbol.iterator]: () => mergeDescending(fromEnd(ownerActionsChannel(state)), quotedOutside()) }
}

/** True when the post is in `owner-actions` (reads its postMeta row). */
export const isInChannel = (state: LogState, postIndex: number): boolean =>
  Option.getOrUndefined(HashMap.get(state.forum.postMeta, postIndex))?.channel === OWNER_ACTIONS_CHANNEL

/** True when the leaf is a request to the owner: a post in `owner-actions`, or one the owner quoted. */
export const isRequest = (state: LogState, index: number): boolean =>
  isInChannel(state, index) || isQuoted(state, index)

/** Whether a request is of the status asked for (any when none is): reads resident parts only. */
export const hasStatus = (state: LogState, status: RequestStatus | undefined, now: number) => (requestIndex: number): boolean =>
  status === undefined || requestStatus(state, requestIndex, now) === status

/** `GET /v2/agora/human-actions` of a page of request leaves, newest first (a state or a slice holding their posts' rows). */
export const humanActionsOfPage = (state: LogState, status: RequestStatus | undefined, page: LeafPage, now: number) => {
  const requests = page.items.map((i) => requestItem(state, i, now))
  return { status: status ?? null, requests, truncated: page.truncated, size: sizeCovering(requests.flatMap((request) => requestLeaves(state, request))) }
}

/** `GET /v2/agora/human-actions`: requests newest first, of one status when given. */
export const humanActionsView = (state: LogState, query: { readonly status: RequestStatus | undefined; readonly limit: number }, now: number) =>
  humanActionsOfPage(state, query.status, firstAccepted(candidates(state, query.status), query.limit, hasStatus(state, query.status, now)), now)

/** `GET /v2/agora/human-actions/{request_index}`: a request with its quotes, or undefined when the leaf is none. */
export const humanActionView = (state: LogState, requestIndex: number, now: number) => {
  if (!isRequest(state, requestIndex)) return undefined
  const request = requestItem(state, requestIndex, now)
  return { request, size: sizeCovering(requestLeaves(state, request)) }
}
