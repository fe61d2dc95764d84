// The forum's views read from the projection store (issue 12, "Projections in an indexed
// store"), never from a whole state in memory: GET /v2/agora/posts, /polls, /human-actions
// and their items, and the pages that show the same items. Each reads a page of a list by
// position (listStreams.ts), then the slice holding the rows its items read
// (domain/views/forumReads.ts), and answers with the pure views of domain/views on it:
// the same bytes the views give on the whole state.
//
// Requests to the owner are the posts of channel `owner-actions` and the posts the owner
// quoted (humanActions.ts). The quoted ones are resident (tasks.requests), so a status
// other than `open` needs no list; `open` walks the channel, skipping quoted posts; no
// status merges the channel with the quoted posts outside it, each cut at the page.

import { Effect, Stream } from "effect"
import { pollOf } from "../domain/forum/polls.js"
import { pollItem } from "../domain/pages/agoraPage.js"
import { pollDetail, pollsOfPage } from "../domain/views/agoraPolls.js"
import { postsOfPage, type PostsQuery, postView } from "../domain/views/agoraPosts.js"
import { firstAccepted, mergeDescending } from "../domain/views/chunks.js"
import { pollReads, postMetaReads, postReads } from "../domain/views/forumReads.js"
import {
  hasStatus,
  humanActionsOfPage,
  humanActionView,
  isInChannel,
  isQuoted,
  OWNER_ACTIONS_CHANNEL,
  quotedDescending,
  type RequestStatus
} from "../domain/views/humanActions.js"
import type { LeafPage } from "../domain/views/leafPage.js"
import { POLLS_LISTED } from "../domain/views/limits.js"
import type { StorageError } from "../ports/StorageError.js"
import { positionFrom } from "./listReads.js"
import { firstOf, inChunks, keepChunks, listPage, newestFirst, pageOf, type Reader } from "./listStreams.js"

export type ForumViews = ReturnType<typeof makeForumViews>

export const makeForumViews = (reader: Reader) => {
  /** A slice holding what the post items of these leaves read. */
  const postSlice = (indexes: ReadonlyArray<number>) => reader.sliceFor((slice) => postReads(slice, indexes))

  /** The request leaves of a page of GET /v2/agora/human-actions, newest first. */
  const requestPage = (status: RequestStatus | undefined, limit: number, now: number): Effect.Effect<LeafPage, StorageError> =>
    Effect.gen(function*() {
      const resident = yield* reader.slice([])
      if (status !== undefined && status !== "open") return firstAccepted(quotedDescending(resident), limit, hasStatus(resident, status, now))
      const channel = newestFirst(reader, "channelPosts", OWNER_ACTIONS_CHANNEL, { chunk: limit + 1 })
      if (status === "open") return yield* pageOf(Stream.filter(channel, (i) => !isQuoted(resident, i) && hasStatus(resident, status, now)(i)), limit)
      const quotedOutside = inChunks(quotedDescending(resident), limit + 1).pipe(keepChunks((chunk) =>
        Effect.map(reader.slice(postMetaReads(chunk)), (slice) => chunk.filter((i) => !isInChannel(slice, i)))))
      // Each side is newest first, so the page's leaves are among the first limit + 1 of each.
      const [inside, outside] = yield* Effect.all([firstOf(channel, limit + 1), firstOf(quotedOutside, limit + 1)])
      return firstAccepted(mergeDescending(inside.values(), outside.values()), limit)
    })

  return {
    /** GET /v2/agora/posts: the newest posts, of one channel when given. */
    posts: (query: PostsQuery, now: number) =>
      Effect.gen(function*() {
        const [area, key] = query.channel === undefined ? ["postOrder", ""] as const : ["channelPosts", query.channel] as const
        // A page before a leaf starts where a binary search of the list's positions says.
        const end = query.before === undefined
          ? undefined
          : (yield* positionFrom<number>(reader, area, key, (index) => index, query.before)).position
        const listed = yield* reader.list(area, key, { before: end, limit: query.limit + 1 })
        const page = { items: listed.elements.slice(0, query.limit).map((e) => e.value as number), truncated: listed.elements.length > query.limit }
        return postsOfPage(yield* postSlice(page.items), query.channel, page, now)
      }),
    /** GET /v2/agora/posts/{index}, or undefined when the leaf is no post. */
    post: (index: number, now: number) => Effect.map(postSlice([index]), (slice) => postView(slice, index, now)),
    /** GET /v2/agora/polls: the newest POLLS_LISTED polls. */
    polls: (now: number) =>
      Effect.gen(function*() {
        const page = yield* listPage(reader, "pollOrder", "", POLLS_LISTED)
        return pollsOfPage(yield* reader.slice(pollReads(page.items)), page, now)
      }),
    /** GET /v2/agora/polls/{poll_index}, or undefined when the leaf is no poll. */
    poll: (index: number, now: number) => Effect.map(reader.slice(pollReads([index])), (slice) => pollDetail(slice, index, now)),
    /** The poll with its question's body status (/agora/polls/{index}), or undefined when the leaf is no poll. */
    pollWithBody: (index: number, now: number) =>
      Effect.map(reader.slice(pollReads([index])), (slice) => (pollOf(slice, index) === undefined ? undefined : pollItem(slice, index, now))),
    /** GET /v2/agora/human-actions: requests newest first, of one status when given. */
    requests: (query: { readonly status: RequestStatus | undefined; readonly limit: number }, now: number) =>
      Effect.gen(function*() {
        const page = yield* requestPage(query.status, query.limit, now)
        return humanActionsOfPage(yield* postSlice(page.items), query.status, page, now)
      }),
    /** GET /v2/agora/human-actions/{request_index}, or undefined when the leaf is no request. */
    request: (index: number, now: number) => Effect.map(postSlice([index]), (slice) => humanActionView(slice, index, now))
  }
}
