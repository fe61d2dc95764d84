// The channels of the /agora page (domain/pages/agoraPage.ts ChannelCount): the
// AGORA_PAGE_CHANNELS channels whose latest posts are the newest, each with its count of
// posts, read from the projection store (issue 12).
//
// The store keeps each channel's list of posts, and can name the channels that have one
// (listKeys, one index seek each). A log with at most AGORA_PAGE_CHANNELS channels is
// answered from them directly: each channel's list gives its count and latest post, a
// handful of reads at any log size. A log with more channels has them found by walking the
// list of all posts newest first: the first post of a channel met is its latest, and the
// walk stops once it has met AGORA_PAGE_CHANNELS channels. So that only the first page of a
// process pays for that walk, the process keeps its last answer (at most
// AGORA_PAGE_CHANNELS entries: bounded, not growing with the log) and the length of the
// list of all posts it covers; the next page walks only the posts appended since. That is
// exact: a channel's latest post and its count change only when it gets a post, which is
// then among those walked, and a channel leaves the page only when others get newer posts,
// which are too.

import { Effect } from "effect"
import { AGORA_PAGE_CHANNELS, type ChannelCount, channelOfPost } from "../domain/pages/agoraPage.js"
import { postMetaReads } from "../domain/views/forumReads.js"
import type { StorageError } from "../ports/StorageError.js"
import type { Reader } from "./listStreams.js"

/** Post leaves read per chunk of the walk. */
const WALK_CHUNK = 200

interface Known {
  /** Positions of the list of all posts below this one were walked. */
  readonly covered: number
  readonly channels: ReadonlyArray<ChannelCount>
}

/** The channels of posts at positions `covered` and above, newest first, AGORA_PAGE_CHANNELS at most; and the list's length. */
const channelsSince = (reader: Reader, covered: number) =>
  Effect.gen(function*() {
    const met: Array<string> = []
    let length: number | undefined
    let before: number | undefined
    while (met.length < AGORA_PAGE_CHANNELS) {
      const page = yield* reader.list("postOrder", "", { before, limit: WALK_CHUNK })
      length ??= page.length
      const fresh = page.elements.filter((element) => element.n >= covered)
      const indexes = fresh.map((element) => element.value as number)
      const slice = yield* reader.slice(postMetaReads(indexes))
      for (const index of indexes) {
        const channel = channelOfPost(slice, index)
        if (channel !== undefined && !met.includes(channel)) met.push(channel)
        if (met.length === AGORA_PAGE_CHANNELS) break
      }
      const last = fresh[fresh.length - 1]
      if (last === undefined || last.n === covered) break
      before = last.n
    }
    return { met, length: length ?? 0 }
  })

/** The channels by latest post, as the page lists them; the walk is shared by the pages a process serves. */
export const makeChannelsByLatest = (reader: Reader): Effect.Effect<Effect.Effect<ReadonlyArray<ChannelCount>, StorageError>> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    let known: Known = { covered: 0, channels: [] }
    const countOf = (channel: string) =>
      Effect.map(reader.list("channelPosts", channel, { limit: 1 }), (page): ChannelCount => ({
        channel,
        posts: page.length,
        latest_index: page.elements[0]!.value as number
      }))
    return lock.withPermits(1)(Effect.gen(function*() {
      const few = yield* reader.listKeys("channelPosts", { limit: AGORA_PAGE_CHANNELS + 1 })
      if (few.length <= AGORA_PAGE_CHANNELS) {
        return (yield* Effect.forEach(few, countOf)).sort((a, b) => b.latest_index - a.latest_index)
      }
      const { met, length } = yield* channelsSince(reader, known.covered)
      if (length === known.covered) return known.channels
      // A channel with new posts has a new latest post and count; the others keep theirs.
      const counted = yield* Effect.forEach(met, countOf)
      const channels = [...counted, ...known.channels.filter((c) => !met.includes(c.channel))]
        // A post written after the walk may have made a channel's latest newer than another's.
        .sort((a, b) => b.latest_index - a.latest_index)
        .slice(0, AGORA_PAGE_CHANNELS)
      known = { covered: length, channels }
      return channels
    }))
  })
