// What the /agora page shows (domain/pages/agoraPage.ts), read from the projection store
// (issue 12): the posts and requests are the forum views' (forumViews.ts); the channels by
// latest post and the newest polls of a channel are found by walking the lists of all
// posts and all polls newest first, a chunk at a time, with the rows of each chunk.
//
// The walks stop as soon as the page is full: AGORA_PAGE_CHANNELS distinct channels,
// AGORA_PAGE_POLLS polls of the channel. They read further only when the log holds fewer
// channels than that, or the channel fewer polls: then they read every post (or poll) leaf
// of the list, because the store keeps no list of channels or of a channel's polls.

import { Effect } from "effect"
import {
  AGORA_PAGE_CHANNELS,
  AGORA_PAGE_POLLS,
  AGORA_PAGE_POSTS,
  AGORA_PAGE_REQUESTS,
  agoraPageOf,
  type ChannelCount,
  channelOfPost,
  pollItem,
  pollShown
} from "../domain/pages/agoraPage.js"
import { pollReads, postMetaReads } from "../domain/views/forumReads.js"
import type { ForumViews } from "./forumViews.js"
import { firstOf, keepChunks, newestFirst, type Reader } from "./listStreams.js"

/** Leaves read per chunk of a walk that filters. */
const WALK_CHUNK = 200

/** The channels by latest post, each with its count of posts (the length of its list). */
const channelsByLatest = (reader: Reader) =>
  Effect.gen(function*() {
    // The first post of a channel met walking newest first is its latest.
    const met = new Set<string>()
    const channels = yield* firstOf(
      newestFirst(reader, "postOrder", "", { chunk: WALK_CHUNK }).pipe(keepChunks((chunk) =>
        Effect.map(reader.slice(postMetaReads(chunk)), (slice) =>
          chunk.flatMap((index) => {
            const channel = channelOfPost(slice, index)
            if (channel === undefined || met.has(channel)) return []
            met.add(channel)
            return [channel]
          })))),
      AGORA_PAGE_CHANNELS
    )
    const counts = yield* Effect.forEach(channels, (channel) =>
      Effect.map(reader.list("channelPosts", channel, { limit: 1 }), (page): ChannelCount => ({
        channel,
        posts: page.length,
        latest_index: page.elements[0]!.value as number
      })))
    // A post written between the two reads may have made a channel the latest.
    return counts.sort((a, b) => b.latest_index - a.latest_index)
  })

/** The newest AGORA_PAGE_POLLS polls (of `channel`), with their body status. */
const newestPolls = (reader: Reader, channel: string | undefined, now: number) =>
  firstOf(
    newestFirst(reader, "pollOrder", "", { chunk: channel === undefined ? AGORA_PAGE_POLLS : WALK_CHUNK }).pipe(keepChunks((chunk) =>
      Effect.map(reader.slice(pollReads(chunk)), (slice) =>
        chunk.filter((index) => pollShown(slice, channel, index)).map((index) => pollItem(slice, index, now))))),
    AGORA_PAGE_POLLS
  )

/** What /agora shows (of one channel when given), before the texts are added. */
export const agoraPageView = (reader: Reader, forum: ForumViews) => (channel: string | undefined, now: number) =>
  Effect.gen(function*() {
    const posts = yield* forum.posts({ channel, limit: AGORA_PAGE_POSTS }, now)
    const requests = yield* forum.requests({ status: undefined, limit: AGORA_PAGE_REQUESTS }, now)
    return agoraPageOf({
      channel,
      channels: yield* channelsByLatest(reader),
      posts,
      polls: yield* newestPolls(reader, channel, now),
      requests: requests.requests
    })
  })
