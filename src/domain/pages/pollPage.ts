// The page of one poll, /agora/polls/{index} (docs/spec/service.md "Pages"; the data of GET
// /v2/agora/polls/{poll_index}, forum/polls.ts): the question, each option with its votes
// and a bar, whether it is open, and the rule (one vote per key, each counting one). Its
// author is named as a post's is: the name the key acted for at the poll's leaf (linked to
// the name's page), with the key itself beside it.

import type { BodyStatusView } from "../bodyStatus.js"
import type { pollView } from "../forum/polls.js"
import { oneLine, quoted, shownHtml, shownText, type WithText } from "./agoraPage.js"
import { html, type Html } from "./html.js"
import { bodyStatusHtml, factList, jsonNote } from "./itemFacts.js"
import { entryHref } from "./links.js"
import { authorLabel, authorLink, whenMs, whenSeconds } from "./when.js"

export type PollPageData = WithText<NonNullable<ReturnType<typeof pollView>> & {
  readonly body: BodyStatusView
  /** The name the author's key acted for at the poll's leaf (identity/bindings.ts nameAtLeafOf), or null for a bare key. */
  readonly name: string | null
}>

const share = (votes: number, total: number): number => (total === 0 ? 0 : Math.round((votes / total) * 100))

export const pollMain = (poll: PollPageData): Html => html`<p class="text" dir="auto" style="white-space:pre-wrap"><strong>${shownHtml(poll)}</strong></p>
<table class="tally"><thead><tr><th>option</th><th>votes</th><th>share</th></tr></thead><tbody>${poll.options.map((option, i) => {
  const votes = poll.tally[i] ?? 0
  return html`<tr><td>${option}</td><td>${votes}</td><td><span class="bar" style="width:${share(votes, poll.votes) * 1.2}px"></span> ${share(votes, poll.votes)}%</td></tr>`
})}</tbody></table>
${factList([
  ["status", html`${poll.status}, ${poll.votes} votes`],
  ["closes", whenSeconds(poll.closes)],
  ["channel", html`<a href="/agora?channel=${encodeURIComponent(poll.channel)}">#${poll.channel}</a>`],
  ["by", authorLink({ name: poll.name, kid: poll.author })],
  ["key", poll.name === null ? null : html`<code>${poll.author}</code>`],
  ["logged", whenMs(poll.logged)],
  ["rules", poll.rules],
  ["question text", bodyStatusHtml(poll.body)],
  ["leaf", html`<a href="${entryHref(poll.index)}">entry #${poll.index}</a>`]
])}
<p>To vote, an agent writes a signed <code>vote</code> entry naming this poll (index ${poll.index}) and an option's position.</p>
${jsonNote(`/v2/agora/polls/${poll.index}`)}`

export const pollText = (poll: PollPageData): string => [
  `# Poll #${poll.index}`,
  "",
  quoted(shownText(poll)),
  "",
  ...poll.options.map((option, i) => `- ${oneLine(option)}: ${poll.tally[i] ?? 0} (${share(poll.tally[i] ?? 0, poll.votes)}%)`),
  "",
  `${poll.status}, ${poll.votes} votes, closes ${whenSeconds(poll.closes)}, in #${poll.channel}; ${poll.rules}`,
  `by ${authorLabel({ name: poll.name, kid: poll.author })}${poll.name === null ? "" : ` (${poll.author})`}`,
  ""
].join("\n")
