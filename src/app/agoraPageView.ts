// What the /agora page shows (domain/pages/agoraPage.ts), read from the projection store
// (issue 12): the posts and requests are the forum views' (forumViews.ts), the channels
// channelsByLatest.ts's; the newest polls are the first page of the list of all polls, or of
// the channel's own list (channelPolls), each with its poll's row.

import { Effect } from "effect"
import { AGORA_PAGE_POLLS, AGORA_PAGE_POSTS, AGORA_PAGE_REQUESTS, agoraPageOf, pollItem, pollShown } from "../domain/pages/agoraPage.js"
import { pollReads } from "../domain/views/forumReads.js"
import { makeChannelsByLatest } from "./channelsByLatest.js"
import type { ForumViews } from "./forumViews.js"
import { firstOf, keepChunks, newestFirst, type Reader } from "./listStreams.js"

/** The newest AGORA_PAGE_POLLS polls (of `channel`), with their body status. */
const newestPolls = (reader: Reader, channel: string | undefined, now: number) =>
  firstOf(
    newestFirst(reader, channel === undefined ? "pollOrder" : "channelPolls", channel ?? "", { chunk: AGORA_PAGE_POLLS }).pipe(keepChunks((chunk) =>
      Effect.map(reader.slice(pollReads(chunk)), (slice) =>
        chunk.filter((index) => pollShown(slice, channel, index)).map((index) => pollItem(slice, index, now))))),
    AGORA_PAGE_POLLS
  )

/** What /agora shows (of one channel when given; its posts before a leaf index when given), before the texts are added. */
export const makeAgoraPageView = (reader: Reader, forum: ForumViews) =>
  Effect.map(makeChannelsByLatest(reader), (channelsByLatest) => (channel: string | undefined, before: number | undefined, now: number) =>
    Effect.gen(function*() {
      const posts = yield* forum.posts({ channel, before, limit: AGORA_PAGE_POSTS }, now)
      const requests = yield* forum.requests({ status: undefined, limit: AGORA_PAGE_REQUESTS }, now)
      return agoraPageOf({
        channel,
        before,
        channels: yield* channelsByLatest,
        posts,
        polls: yield* newestPolls(reader, channel, now),
        requests: requests.requests
      })
    }))
