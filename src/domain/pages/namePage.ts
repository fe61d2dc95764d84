// The page of one name, /names/{name} (docs/spec/service.md "Pages"; the data of GET
// /v2/names/{name}, views/nameView.ts, plus its newest posts, views/namePosts.ts): its
// tier, the keys it resolves to now and the leaves that set them, every key event, and
// what it wrote lately. A projection to check against the tiles, as the JSON says.

import type { PostItem } from "../views/agoraPosts.js"
import type { NameView } from "../views/nameView.js"
import { oneLine, postHtml, shownText, type WithText } from "./agoraPage.js"
import { html, type Html } from "./html.js"
import { factList, jsonNote } from "./itemFacts.js"
import { entryHref } from "./links.js"
import { whenMs } from "./when.js"

export const NAME_PAGE_POSTS = 10

export interface NamePageData extends NameView {
  readonly posts: ReadonlyArray<WithText<PostItem>>
}

const TIER = {
  key: "key-bound: claimed by the key it binds, which signs everything it writes",
  secret: "secret-bound: it rests on the service's word (the policy key signs for it)"
} as const

const leafLink = (index: number | null): Html | string => (index === null ? "none" : html`<a href="${entryHref(index)}">#${index}</a>`)

/** Whether the recovery key can still move the name (docs/protocol.md 10.1), in words. */
const recoveryStanding = (data: NameView): string =>
  data.recovery_stands === false
    ? `no longer stands: it took a name of its own at leaf ${data.recovery_bound_index ?? "?"}, so it rotates no name`
    : "stands: it may move the name to a new key"

const eventKey = (event: NameView["events"][number]): string =>
  event.type === "key.x25519" ? `X25519 ${event.x25519}` : event.type === "key.rotate" ? `${event.prev_kid} → ${event.kid}` : event.kid

export const nameMain = (data: NamePageData): Html => html`${factList([
  ["tier", TIER[data.tier]],
  ["key (Ed25519)", html`<code>${data.kid}</code>, set by leaf ${leafLink(data.kid_index)}`],
  ["X25519 key", html`<code>${data.x25519}</code>, set by leaf ${leafLink(data.x25519_index)}`],
  ["recovery key", data.recovery === null
    ? "none"
    : html`<code>${data.recovery}</code>, named by leaf ${leafLink(data.recovery_index)}; ${data.recovery_stands === false
      ? html`no longer stands: it took a name of its own at leaf ${leafLink(data.recovery_bound_index)}, so it rotates no name`
      : "stands: it may move the name to a new key"}`],
  ["claimed", html`leaf ${leafLink(data.claim_index)}`]
])}
<h2>Key events</h2>
<table class="events"><thead><tr><th>leaf</th><th>event</th><th>logged</th><th>key</th></tr></thead><tbody>${data.events.map((e) =>
  html`<tr><td>${leafLink(e.index)}</td><td>${e.type}</td><td>${whenMs(e.logged)}</td><td><code>${eventKey(e)}</code></td></tr>`)}</tbody></table>
<h2>Recent posts</h2>
${data.posts.length === 0 ? html`<p>No posts yet.</p>` : data.posts.map(postHtml)}
${jsonNote(`/v2/names/${data.name}`)}`

export const nameText = (data: NamePageData): string => [
  `# ${data.name}`,
  "",
  `- tier: ${TIER[data.tier]}`,
  `- key: ${data.kid} (leaf ${data.kid_index})`,
  `- x25519: ${data.x25519} (leaf ${data.x25519_index ?? "none"})`,
  `- recovery: ${data.recovery === null ? "none" : `${data.recovery} (leaf ${data.recovery_index}); ${recoveryStanding(data)}`}`,
  `- claimed: leaf ${data.claim_index}`,
  "",
  "## Key events",
  ...data.events.map((e) => `- #${e.index} ${e.type} at ${whenMs(e.logged)}: ${eventKey(e)}`),
  "",
  "## Recent posts",
  ...(data.posts.length === 0 ? ["No posts yet."] : data.posts.map((p) => `- #${p.index} in #${p.channel} at ${whenMs(p.logged)}: ${oneLine(shownText(p))}`)),
  ""
].join("\n")
