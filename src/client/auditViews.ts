// The views `aics audit log` compares with the replayed log (audit.ts auditLog), planned
// from the replayed state: the owner's (docs/protocol.md 12.6); the forum's (every page of
// posts, the channel list /agora gives and every page of the channels compared, the polls'
// list and every poll with its tally); and the identity views (auditIdentityViews.ts). Each
// page walk follows the pages the log implies, so a page the service leaves out or cuts
// short is still asked. Channels past the bounds are sampled as names and keys are
// (auditSample.ts), and the report says how many of how many.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import { freezeView } from "../domain/governance/freeze.js"
import { policyView } from "../domain/governance/policyTiming.js"
import { suspensionView } from "../domain/governance/suspension.js"
import { channelsByLatest } from "../domain/pages/agoraPage.js"
import { pollDetail, pollsView } from "../domain/views/agoraPolls.js"
import { postsView } from "../domain/views/agoraPosts.js"
import { AGORA_POSTS_LIMIT } from "../domain/views/limits.js"
import type { LogState } from "../domain/write/logState.js"
import { foldedMembers, reachOfItems, type AuditedView } from "./auditedView.js"
import { identityViews } from "./auditIdentityViews.js"
import { itemsAt, spreadPositions, type Sampled } from "./auditSample.js"
import { protocolError } from "./errors.js"
import { checkedText, queryString } from "./forum.js"

/** The owner's views (docs/protocol.md 12.6): the freeze, the policies, every subject the log ever suspended. */
const governanceViews = (state: LogState): ReadonlyArray<AuditedView> => [
  { path: "/v2/governance/freeze", implied: (s) => freezeView(s) },
  { path: "/v2/governance/policy", implied: (s, at) => policyView(s, at) },
  ...[...HashMap.keys(state.governance.suspensions)].map((subject): AuditedView => ({
    path: `/v2/governance/suspensions/${encodeURIComponent(subject)}`,
    implied: (s, at) => suspensionView(s, subject, at)
  }))
]

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
  implied: (state, at) => postsView(state, { channel, limit: POSTS_PAGE, before }, at),
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

/** Every page of posts (of the channel, when given) the log implies, from the newest logged before its size. */
const postsPages = (state: LogState, channel: string | undefined): Array<AuditedView> => {
  const pages: Array<AuditedView> = []
  for (let before: number | null = state.size; before !== null;) {
    pages.push(postsPageView(channel, before))
    before = postsView(state, { channel, limit: POSTS_PAGE, before }, 0).next_before
  }
  return pages
}

/**
 * The channel list, the one the service gives (/agora's `channels`, in JSON): the
 * AGORA_PAGE_CHANNELS channels with the newest posts, each with its count of posts and
 * latest post. The rest of the page is the posts' and polls' views, compared on their own.
 */
const channelListView: AuditedView = {
  path: "/agora?format=json",
  implied: (state) => ({ channels: channelsByLatest(state) }),
  folded: (json) => ({ channels: json["channels"] }),
  reach: (json) => reachOfItems(json["channels"], ["latest_index"]),
  unsigned: true
}

/** The channels whose pages are compared: those the list shows, and CHANNELS_SAMPLED of all. */
const channelsCompared = (state: LogState, seed: Uint8Array): ReadonlyArray<string> => {
  const all = state.forum.channelPosts
  const sampled = itemsAt(HashMap.keys(all), spreadPositions(HashMap.size(all), CHANNELS_SAMPLED, seed))
  return [...new Set([...channelsByLatest(state).map((c) => c.channel), ...sampled])]
}

export interface PlannedViews {
  readonly views: ReadonlyArray<AuditedView>
  /** How many of the log's names, keys and channels the views compare. */
  readonly sampled: { readonly names: Sampled; readonly keys: Sampled; readonly channels: Sampled }
}

/** The views the audit compares with the log replayed into `state`; `seed` (the audit's own draw) sets the samples. */
export const auditedViews = (state: LogState, seed: Uint8Array): PlannedViews => {
  const channels = channelsCompared(state, seed)
  const identity = identityViews(state, seed)
  return {
    views: [
      ...governanceViews(state),
      ...postsPages(state, undefined),
      { path: "/v2/agora/polls", implied: (s, at) => pollsView(s, at) },
      ...Chunk.toReadonlyArray(state.forum.pollOrder).map((index): AuditedView => ({ path: `/v2/agora/polls/${index}`, implied: (s, at) => pollDetail(s, index, at) })),
      channelListView,
      ...channels.flatMap((channel) => postsPages(state, channel)),
      ...identity.views
    ],
    sampled: {
      names: identity.names,
      keys: identity.keys,
      channels: { compared: channels.length, total: HashMap.size(state.forum.channelPosts) }
    }
  }
}
