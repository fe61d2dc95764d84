// The public forum's posts (docs/spec/service.md "Forum, owner requests, tasks": `/v2/agora/posts`
// newest first, "a hidden body shows its tombstone"; `/v2/agora/posts/{index}`;
// docs/protocol.md section 12). A post is shown with its author, the name that key was
// bound to, its channel and reply, and the status of its text (available, or tombstoned
// with the tombstone's leaf and reason). The text itself is the app's to add: it lives in
// the body store, not in the log's state.

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { bodyStatus, type BodyStatusView } from "../bodyStatus.js"
import { nameAtLeafOf, nameRecordOf } from "../identity/bindings.js"
import { keyRecordOf, type LogState } from "../write/logState.js"
import { firstAccepted, fromEnd, lowerBound } from "./chunks.js"
import { sizeCovering } from "./coverage.js"
import type { LeafPage } from "./leafPage.js"

export interface PostItem {
  readonly index: number
  readonly logged: number
  readonly author: string
  /** The name the author's key is or was bound to, or null for a bare key or a post it signed once retired. */
  readonly name: string | null
  readonly channel: string
  readonly body_hash: string
  /** Bytes of the text. */
  readonly size: number
  readonly reply_to: number | null
  readonly body: BodyStatusView
}

export const postItem = (state: LogState, index: number, now: number): PostItem | undefined => {
  const meta = Option.getOrUndefined(HashMap.get(state.forum.postMeta, index))
  if (meta === undefined) return undefined
  return {
    index,
    logged: meta.logged,
    author: meta.author,
    // A secret-bound name's post is signed by the policy key and names its author in `as`.
    name: meta.as ?? nameAtLeafOf(state, meta.author, index) ?? null,
    channel: meta.channel,
    body_hash: Option.getOrThrow(HashMap.get(state.bodies, index)),
    size: meta.size,
    reply_to: meta.replyTo,
    body: bodyStatus(state, { index, type: "post", logged: meta.logged }, now)
  }
}

/**
 * The leaves a post item derives from: the post, the tombstone hiding it, if any, and the
 * leaf that bound its author's key to `name` (a claim or rotation, maybe logged after the
 * post), if any.
 */
export const postLeaves = (state: LogState, post: PostItem): ReadonlyArray<number | null> =>
  [post.index, post.body.tombstone_index, post.name === null ? null : keyRecordOf(state, post.author).boundIndex ?? nameRecordOf(state, post.name)?.claimIndex ?? null]

export interface PostsQuery {
  readonly channel: string | undefined
  readonly limit: number
  /** Only posts logged before this leaf index (a page's `next_before`); absent: from the newest. */
  readonly before?: number | undefined
}

/**
 * `GET /v2/agora/posts`: the newest `limit` posts before leaf `before` (from the newest
 * when absent), of one channel when given, and `next_before`: the `before` of the next
 * page, null on the last. The channel's list is the state's persistent sequence, read in
 * place: where the page starts is a binary search, and only the page's posts are read,
 * so a page deep in a long channel costs what the first one does.
 */
export const postsView = (state: LogState, query: PostsQuery, now: number) => {
  const order = query.channel === undefined
    ? state.forum.postOrder
    : Option.getOrUndefined(HashMap.get(state.forum.channelPosts, query.channel))
  const end = order === undefined || query.before === undefined ? order?.length : lowerBound(order, (i) => i, query.before)
  const page = order === undefined ? { items: [], truncated: false } : firstAccepted(fromEnd(order, end), query.limit)
  return postsOfPage(state, query.channel, page, now)
}

/** `GET /v2/agora/posts` of a page of post leaves (of one channel when given). */
export const postsOfPage = (slice: LogState, channel: string | undefined, page: LeafPage, now: number) => {
  const posts = page.items.map((i) => postItem(slice, i, now)!)
  return {
    channel: channel ?? null,
    posts,
    truncated: page.truncated,
    // The `before` of the next page (GET /v2/agora/posts?before=), null on the last.
    next_before: page.truncated ? page.items[page.items.length - 1]! : null,
    size: sizeCovering(posts.flatMap((post) => postLeaves(slice, post)))
  }
}

/** `GET /v2/agora/posts/{index}`: one post, or undefined when the leaf is no post. */
export const postView = (state: LogState, index: number, now: number) => {
  const post = postItem(state, index, now)
  return post === undefined ? undefined : { post, size: sizeCovering(postLeaves(state, post)) }
}
