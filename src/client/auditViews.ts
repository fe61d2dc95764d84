// The views `aics audit log` compares with the replayed log (audit.ts auditLog), planned
// from the replay's store (replayStore.ts), whose lists are walked a page at a time: the owner's (docs/protocol.md 12.6); the forum's (every page of
// posts, the channel list /agora gives and every page of the channels compared, the polls'
// list and every poll with its tally); and the identity views (auditIdentityViews.ts). Each
// page walk follows the pages the log implies, so a page the service leaves out or cuts
// short is still asked. Channels past the bounds are sampled as names and keys are
// (auditSample.ts), and the report says how many of how many.

import { Effect, HashMap, Stream } from "effect"
import { freezeView } from "../domain/governance/freeze.js"
import { policyView } from "../domain/governance/policyTiming.js"
import { suspensionView } from "../domain/governance/suspension.js"
import { AGORA_POSTS_LIMIT } from "../domain/views/limits.js"
import type { StorageError } from "../ports/StorageError.js"
import { foldedMembers, reachOfItems, type AuditedView } from "./auditedView.js"
import { identityViews } from "./auditIdentityViews.js"
import { itemsAt, KEYS_PAGE, keysInOrder, spreadPositions, type Sampled } from "./auditSample.js"
import { protocolError } from "./errors.js"
import { checkedText, queryString } from "./forum.js"
import type { ReplayViews } from "./replayStore.js"

/** The owner's views (docs/protocol.md 12.6): the freeze, the policies, every subject the log ever suspended (resident: what the owner wrote). */
const governanceViews = (views: ReplayViews): Effect.Effect<ReadonlyArray<AuditedView>, StorageError> =>
  Effect.map(views.reader.slice([]), (resident) => [
    { path: "/v2/governance/freeze", implied: (v) => Effect.map(v.reader.slice([]), freezeView) },
    { path: "/v2/governance/policy", implied: (v, at) => Effect.map(v.reader.slice([]), (s) => policyView(s, at)) },
    ...[...HashMap.keys(resident.governance.suspensions)].map((subject): AuditedView => ({
      path: `/v2/governance/suspensions/${encodeURIComponent(subject)}`,
      implied: (v, at) => Effect.map(v.reader.slice([]), (s) => suspensionView(s, subject, at))
    }))
  ])

/** Posts a page of the audit's walk holds: the most a page may (docs/protocol.md section 12). */
const POSTS_PAGE = AGORA_POSTS_LIMIT.max
/** Channels compared besides those /agora lists. */
export const CHANNELS_SAMPLED = 30

/**
 * A page of every post (of the channel, when given) logged before `before`, newest first:
 * the posts the log holds and how each one's text stands. Each text served is checked
 * against the post's body_hash and size (which are compared with the log's), then left out
 * of the comparison.
 */
const postsPageView = (channel: string | undefined, before: number): AuditedView => ({
  path: `/v2/agora/posts${queryString({ channel, limit: POSTS_PAGE, before })}`,
  implied: (views, at) => views.forum.posts({ channel, limit: POSTS_PAGE, before }, at),
  folded: (json) => {
    const { posts, ...rest } = foldedMembers(json)
    if (!Array.isArray(posts)) throw protocolError("GET /v2/agora/posts: no posts list")
    return {
      ...rest,
      posts: posts.map((p) => {
        if (typeof p !== "object" || p === null) throw protocolError("GET /v2/agora/posts: a post is not a JSON object")
        const { text, ...post } = p as Record<string, unknown>
        checkedText(Number(post["index"]), typeof text === "string" ? text : null, post["body_hash"], post["size"])
        return post
      })
    }
  }
})

/** Every page of posts (of the channel, when given) the log implies, from the newest logged before `size` (the leaves replayed). */
const postsPages = (views: ReplayViews, size: number, channel: string | undefined): Effect.Effect<Array<AuditedView>, StorageError> =>
  Effect.gen(function*() {
    const pages: Array<AuditedView> = []
    for (let before: number | null = size; before !== null;) {
      pages.push(postsPageView(channel, before))
      before = (yield* views.forum.posts({ channel, limit: POSTS_PAGE, before }, 0)).next_before
    }
    return pages
  })

/** Every poll of the log, oldest first (the list of polls, read newest first a page at a time). */
const pollIndexes = (views: ReplayViews): Effect.Effect<Array<number>, StorageError> =>
  Effect.gen(function*() {
    const indexes: Array<number> = []
    for (let before: number | undefined; ;) {
      const page = yield* views.store.list("pollOrder", "", { before, limit: KEYS_PAGE })
      for (const element of page.elements) indexes.push(element.value as number)
      const last = page.elements[page.elements.length - 1]
      if (last === undefined || last.n === 0) return indexes.reverse()
      before = last.n
    }
  })

/**
 * The channel list, the one the service gives (/agora's `channels`, in JSON): the
 * AGORA_PAGE_CHANNELS channels with the newest posts, each with its count of posts and
 * latest post. The rest of the page is the posts' and polls' views, compared on their own.
 */
const channelListView: AuditedView = {
  path: "/agora?format=json",
  implied: (views) => Effect.map(views.channels, (channels) => ({ channels })),
  folded: (json) => ({ channels: json["channels"] }),
  reach: (json) => reachOfItems(json["channels"], ["latest_index"]),
  unsigned: true
}

/** The channels whose pages are compared: those the list shows, and CHANNELS_SAMPLED of all; and how many there are. */
const channelsCompared = (views: ReplayViews, seed: Uint8Array) =>
  Effect.gen(function*() {
    const all = keysInOrder((query) => views.store.listKeys("channelPosts", query))
    const total = yield* Stream.runCount(all)
    const sampled = yield* itemsAt(all, spreadPositions(total, CHANNELS_SAMPLED, seed))
    const listed = (yield* views.channels).map((c) => c.channel)
    return { channels: [...new Set([...listed, ...sampled])], total }
  })

export interface PlannedViews {
  readonly views: ReadonlyArray<AuditedView>
  /** How many of the log's names, keys and channels the views compare. */
  readonly sampled: { readonly names: Sampled; readonly keys: Sampled; readonly channels: Sampled }
}

/** The views the audit compares with the log replayed into `views`' store (`size` leaves); `seed` (the audit's own draw) sets the samples. */
export const auditedViews = (views: ReplayViews, size: number, seed: Uint8Array): Effect.Effect<PlannedViews, StorageError> =>
  Effect.gen(function*() {
    const channels = yield* channelsCompared(views, seed)
    const identity = yield* identityViews(views, size, seed)
    const channelPages: Array<AuditedView> = []
    for (const channel of channels.channels) channelPages.push(...yield* postsPages(views, size, channel))
    return {
      views: [
        ...yield* governanceViews(views),
        ...yield* postsPages(views, size, undefined),
        { path: "/v2/agora/polls", implied: (v, at) => v.forum.polls(at) },
        ...(yield* pollIndexes(views)).map((index): AuditedView => ({ path: `/v2/agora/polls/${index}`, implied: (v, at) => v.forum.poll(index, at) })),
        channelListView,
        ...channelPages,
        ...identity.views
      ],
      sampled: {
        names: identity.names,
        keys: identity.keys,
        channels: { compared: channels.channels.length, total: channels.total }
      }
    }
  })
