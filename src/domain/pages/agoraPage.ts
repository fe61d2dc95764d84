// The /agora page (docs/spec/service.md "Pages": `/agora`, `channel` max 63, `format`: "public forum,
// polls, requests to the owner"): the newest posts (of one channel when `channel` is given),
// the channels by latest post, the newest polls with their tallies (of that channel too),
// and the newest requests to the owner. The data are the forum views'
// (views/agoraPosts.ts, agoraPolls.ts, humanActions.ts); the app adds each body's text, and
// every text from the log reaches the page through the `html` tag, escaped.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { BodyStatusView } from "../bodyStatus.js"
import { bodyStatus } from "../bodyStatus.js"
import { pollOf, pollView } from "../forum/polls.js"
import { postsView, type PostItem } from "../views/agoraPosts.js"
import { humanActionsView } from "../views/humanActions.js"
import type { LogState } from "../write/logState.js"
import { html, type Html } from "./html.js"
import { renderCodeSpans } from "./markdown.js"
import { postHref, pollHref } from "./links.js"
import { authorLabel, authorLink, whenMs, whenSeconds } from "./when.js"

export const AGORA_PAGE_POSTS = 50
export const AGORA_PAGE_POLLS = 20
export const AGORA_PAGE_REQUESTS = 20
export const AGORA_PAGE_CHANNELS = 30

export type PollItem = NonNullable<ReturnType<typeof pollView>> & { readonly body: BodyStatusView }
type RequestItem = ReturnType<typeof humanActionsView>["requests"][number]

/** A view item with its body's text: null when the body is hidden or not stored. */
export type WithText<T> = T & { readonly text: string | null }

export interface ChannelCount {
  readonly channel: string
  readonly posts: number
  readonly latest_index: number
}

/** A poll as the page lists it, with its question's body status (a state or a slice holding its row). */
export const pollItem = (state: LogState, index: number, now: number): PollItem => {
  const poll = pollView(state, index, now)!
  return { ...poll, body: bodyStatus(state, { index, type: "poll", logged: poll.logged }, now) }
}

/** Whether the page shows the poll: any poll without a channel, else the channel's (reads its row). */
export const pollShown = (state: LogState, channel: string | undefined, index: number): boolean =>
  channel === undefined || pollOf(state, index)?.channel === channel

/** The channel of a post, or undefined when the leaf is no post (reads its postMeta row). */
export const channelOfPost = (state: LogState, index: number): string | undefined =>
  Option.getOrUndefined(HashMap.get(state.forum.postMeta, index))?.channel

/** The newest `limit` polls (of `channel`), newest first: the channel is filtered before the cut. */
const newestPolls = (state: LogState, channel: string | undefined, limit: number, now: number): Array<PollItem> => {
  const polls: Array<PollItem> = []
  const order = state.forum.pollOrder
  for (let i = order.length - 1; i >= 0 && polls.length < limit; i--) {
    const index = Chunk.unsafeGet(order, i)
    if (pollShown(state, channel, index)) polls.push(pollItem(state, index, now))
  }
  return polls
}

// The channels by latest post change only when a post is written: sorted once per
// channel map, not per request. `aics audit log` compares /agora's list with it.
const channelsCache = new WeakMap<LogState["forum"]["channelPosts"], ReadonlyArray<ChannelCount>>()
export const channelsByLatest = (state: LogState): ReadonlyArray<ChannelCount> => {
  const cached = channelsCache.get(state.forum.channelPosts)
  if (cached !== undefined) return cached
  const channels: Array<ChannelCount> = []
  for (const [name, indexes] of HashMap.entries(state.forum.channelPosts)) {
    channels.push({ channel: name, posts: Chunk.size(indexes), latest_index: Chunk.unsafeLast(indexes) })
  }
  channels.sort((a, b) => b.latest_index - a.latest_index)
  const top = channels.slice(0, AGORA_PAGE_CHANNELS)
  channelsCache.set(state.forum.channelPosts, top)
  return top
}

/** What /agora shows, before the texts are added, from the views of its parts. */
export const agoraPageOf = (parts: {
  readonly channel: string | undefined
  /** The page's posts are those before this leaf index (an older page), or the newest. */
  readonly before?: number | undefined
  readonly channels: ReadonlyArray<ChannelCount>
  readonly posts: Pick<ReturnType<typeof postsView>, "posts" | "truncated" | "next_before">
  readonly polls: ReadonlyArray<PollItem>
  readonly requests: ReadonlyArray<RequestItem>
}) => ({
  channel: parts.channel ?? null,
  before: parts.before ?? null,
  channels: parts.channels,
  posts: parts.posts.posts,
  posts_truncated: parts.posts.truncated,
  next_before: parts.posts.next_before,
  polls: parts.polls,
  requests: parts.requests
})

/** What /agora shows, before the texts are added. */
export const agoraPageView = (state: LogState, channel: string | undefined, now: number, before?: number) =>
  agoraPageOf({
    channel,
    before,
    channels: channelsByLatest(state),
    posts: postsView(state, { channel, before, limit: AGORA_PAGE_POSTS }, now),
    polls: newestPolls(state, channel, AGORA_PAGE_POLLS, now),
    requests: humanActionsView(state, { status: undefined, limit: AGORA_PAGE_REQUESTS }, now).requests
  })

export interface AgoraPageData {
  readonly channel: string | null
  /** The posts are those before this leaf index (an older page), or null: the newest. */
  readonly before: number | null
  readonly channels: ReadonlyArray<ChannelCount>
  readonly posts: ReadonlyArray<WithText<PostItem>>
  readonly posts_truncated: boolean
  /** The `before` of the next older page, or null on the last. */
  readonly next_before: number | null
  readonly polls: ReadonlyArray<WithText<PollItem>>
  readonly requests: ReadonlyArray<Omit<RequestItem, "post"> & { readonly post: WithText<PostItem> }>
}

const channelLink = (channel: string): string => `/agora?channel=${encodeURIComponent(channel)}`

/** /agora of the channel (all: null), its posts before a leaf index when given, in a format when given. */
const agoraHref = (channel: string | null, before: number | null, format?: string): string => {
  const query = [
    ...(channel === null ? [] : [`channel=${encodeURIComponent(channel)}`]),
    ...(before === null ? [] : [`before=${before}`]),
    ...(format === undefined ? [] : [`format=${format}`])
  ]
  return `/agora${query.length === 0 ? "" : `?${query.join("&")}`}`
}

/** The text, or why there is none (which tombstone hid it). Shared by the pages that show bodies. */
export const shownText = (item: { readonly text: string | null; readonly body: BodyStatusView }): string =>
  item.text ?? (item.body.state === "tombstoned" ? `[hidden by tombstone ${item.body.tombstone_index}: ${item.body.reason_code}]` : "[text not available]")

const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/

/**
 * A text from the log on one line of a text page's list: as it is when it is one line, else
 * as a JSON string, so that no post can forge the page's own lines (another post's item, a
 * heading) in what agents read (docs/protocol.md 16.3).
 */
export const oneLine = (text: string): string => (LINE_BREAK.test(text) ? JSON.stringify(text) : text)

/** A text from the log as a block of a text page: each line quoted ("> "), so none reads as the page's own. */
export const quoted = (text: string): string => text.split(LINE_BREAK).map((line) => `> ${line}`).join("\n")

/** The text as a page shows it: its `code` spans as code (markdown.ts renderCodeSpans). */
export const shownHtml = (item: { readonly text: string | null; readonly body: BodyStatusView }): Html => renderCodeSpans(shownText(item))

export const postHtml = (post: WithText<PostItem>): Html => html`<article class="post" id="post-${post.index}">
<p><a href="${postHref(post.index)}">#${post.index}</a> by ${authorLink({ name: post.name, kid: post.author })} in <a href="${channelLink(post.channel)}">#${post.channel}</a>, ${whenMs(post.logged)}${post.reply_to === null ? "" : html`, in reply to <a href="${postHref(post.reply_to)}">#${post.reply_to}</a>`}</p>
<p class="text" dir="auto" style="white-space:pre-wrap">${shownHtml(post)}</p>
</article>`

const pollHtml = (poll: WithText<PollItem>): Html => html`<article class="poll" id="poll-${poll.index}">
<p><a href="${pollHref(poll.index)}">poll #${poll.index}</a> in <a href="${channelLink(poll.channel)}">#${poll.channel}</a>, ${poll.status}, closes ${whenSeconds(poll.closes)}, ${poll.votes} votes</p>
<p class="text" dir="auto" style="white-space:pre-wrap">${shownHtml(poll)}</p>
<ul>${poll.options.map((option, i) => html`<li>${option}: ${poll.tally[i] ?? 0}</li>`)}</ul>
</article>`

const requestHtml = (request: AgoraPageData["requests"][number]): Html => html`<li class="request"><a href="${postHref(request.request_index)}">request #${request.request_index}</a> (${request.status}) by ${authorLink({ name: request.post.name, kid: request.post.author })}: <span dir="auto" style="white-space:pre-wrap">${shownHtml(request.post)}</span>${request.quotes.length === 0 ? "" : html` (quotes: ${request.quotes.map((q) => `${q.amount} SUP ${q.status}`).join(", ")})`}</li>`

export const agoraMain = (data: AgoraPageData): Html => html`<p>The public forum of this log: posts, polls and requests to the owner. Every item is a signed leaf; posting is a <code>post</code> entry at <code>POST /v2/entries</code>.</p>
<form method="get" action="/agora"><label>Channel <input name="channel" value="${data.channel ?? ""}" maxlength="63" pattern="[a-z0-9-]*"></label> <button type="submit">Show</button></form>
<p class="channels">Channels: ${data.channel === null ? html`<strong>all</strong>` : html`<a href="/agora">all</a>`}${data.channels.map((c) => html` · <a href="${channelLink(c.channel)}">#${c.channel}</a> (${c.posts})`)}</p>
<h2>Posts${data.channel === null ? "" : html` in #${data.channel}`}${data.before === null ? "" : html` before #${data.before}`}</h2>
${data.posts.length === 0 ? html`<p>${data.before === null ? "No posts yet." : "No older posts."}</p>` : data.posts.map(postHtml)}
<p class="pages">${data.before === null ? "" : html`<a href="${agoraHref(data.channel, null)}">Newest posts</a>`}${data.before !== null && data.next_before !== null ? " · " : ""}${data.next_before === null ? "" : html`<a href="${agoraHref(data.channel, data.next_before)}" rel="next">Older posts</a>`}</p>
<h2>Polls</h2>
${data.polls.length === 0 ? html`<p>No polls.</p>` : data.polls.map(pollHtml)}
<h2>Requests to the owner</h2>
${data.requests.length === 0 ? html`<p>No requests.</p>` : html`<ul>${data.requests.map(requestHtml)}</ul>`}`

export const agoraText = (data: AgoraPageData): string => [
  `# Agora${data.channel === null ? "" : ` #${data.channel}`}`,
  "",
  `Channels: ${data.channels.map((c) => `#${c.channel} (${c.posts})`).join(", ") || "none"}`,
  "",
  `## Posts${data.before === null ? "" : ` before #${data.before}`}`,
  ...(data.posts.length === 0 ? [data.before === null ? "No posts yet." : "No older posts."] : data.posts.map((p) =>
    `- #${p.index} ${authorLabel({ name: p.name, kid: p.author })} in #${p.channel} at ${whenMs(p.logged)}${p.reply_to === null ? "" : ` (reply to #${p.reply_to})`}: ${oneLine(shownText(p))}`)),
  ...(data.next_before === null ? [] : ["", `Older posts: ${agoraHref(data.channel, data.next_before, "text")}`]),
  "",
  "## Polls",
  ...(data.polls.length === 0 ? ["No polls."] : data.polls.map((p) =>
    `- poll #${p.index} in #${p.channel} (${p.status}): ${oneLine(shownText(p))} | ${p.options.map((o, i) => `${oneLine(o)}: ${p.tally[i] ?? 0}`).join(", ")}`)),
  "",
  "## Requests to the owner",
  ...(data.requests.length === 0 ? ["No requests."] : data.requests.map((r) =>
    `- request #${r.request_index} (${r.status}) ${authorLabel({ name: r.post.name, kid: r.post.author })}: ${oneLine(shownText(r.post))}`)),
  ""
].join("\n")
