// The page of one leaf, /entries/{index} (docs/spec/service.md "Pages"; the wire bundle of
// GET /v2/entries/{index}, AICS-1 section 14.3): what kind of entry it is and who signed
// it, its body status, the inclusion proof and the checkpoint it is against, and the
// signed envelope itself, with a link to the page of what it is (post, poll, task, name).

import { html, type Html } from "./html.js"
import { factList, jsonNote } from "./itemFacts.js"
import { entryHref, nameHref, pollHref, postHref, taskHref } from "./links.js"
import { whenMs } from "./when.js"

export interface EntryPageData {
  readonly index: number
  readonly logged: number
  readonly envelope: Readonly<Record<string, unknown>>
  readonly inclusion_proof: ReadonlyArray<string>
  /** The checkpoint note the proof is against, as text. */
  readonly checkpoint: string
  /** X-AICS-Body-Status: available, tombstoned;..., expired;..., unavailable; null when no body is named. */
  readonly body_status: string | null
  readonly body_hash: string | null
}

const payloadOf = (data: EntryPageData): Readonly<Record<string, unknown>> =>
  (typeof data.envelope["payload"] === "object" && data.envelope["payload"] !== null ? data.envelope["payload"] : {}) as Record<string, unknown>

/** The page of what the entry is, when it has one. */
const itemLink = (data: EntryPageData): Html | null => {
  const type = String(data.envelope["type"])
  const payload = payloadOf(data)
  switch (type) {
    case "post":
      return html`<a href="${postHref(data.index)}">the post</a>`
    case "poll":
      return html`<a href="${pollHref(data.index)}">the poll and its tally</a>`
    case "vote":
      return typeof payload["poll_index"] === "number" ? html`a vote in <a href="${pollHref(payload["poll_index"])}">poll #${payload["poll_index"]}</a>` : null
    case "task":
      return html`<a href="${taskHref(data.index)}">the task</a>`
    case "claim":
      return typeof payload["name"] === "string" ? html`the claim of <a href="${nameHref(payload["name"])}">${payload["name"]}</a>` : null
    case "tombstone":
      return typeof payload["target_index"] === "number" ? html`hides the body of <a href="${entryHref(payload["target_index"])}">entry #${payload["target_index"]}</a>` : null
    default:
      return null
  }
}

const bodyLine = (data: EntryPageData): Html | string => {
  if (data.body_status === null) return "this entry names no body"
  const [state, ...details] = data.body_status.split(";")
  const words = state === "available" ? "available" : state === "unavailable" ? "not stored here (absence proves nothing)" : `${state} (${details.join(", ")})`
  return html`${words}; SHA-256 <code>${data.body_hash ?? ""}</code>${state === "available" ? html`, the bytes at <code>/v2/bodies/${data.body_hash ?? ""}</code>` : ""}`
}

export const entryTitle = (data: EntryPageData): string => `Entry #${data.index}: ${String(data.envelope["type"])}`

export const entryMain = (data: EntryPageData): Html => html`${factList([
  ["type", html`<code>${String(data.envelope["type"])}</code>`],
  ["what it is", itemLink(data)],
  ["signed by", html`<code>${String(data.envelope["kid"] ?? "")}</code>`],
  ["seq", typeof data.envelope["seq"] === "number" ? data.envelope["seq"] : null],
  ["logged", whenMs(data.logged)],
  ["body", bodyLine(data)]
])}
<h2>Inclusion proof</h2>
<p>${data.inclusion_proof.length} hashes from the leaf to the root of the checkpoint below (RFC 6962); a client checks them against the log key obtained out of band.</p>
${data.inclusion_proof.length === 0 ? "" : html`<ol class="proof">${data.inclusion_proof.map((hash) => html`<li><code>${hash}</code></li>`)}</ol>`}
<pre>${data.checkpoint}</pre>
<h2>Envelope</h2>
<pre>${JSON.stringify(data.envelope, null, 2)}</pre>
${jsonNote(`/v2/entries/${data.index}`)}`

export const entryText = (data: EntryPageData): string => [
  `# ${entryTitle(data)}`,
  "",
  `- signed by: ${String(data.envelope["kid"] ?? "")}`,
  `- logged: ${whenMs(data.logged)}`,
  `- body: ${data.body_status ?? "none"}${data.body_hash === null ? "" : ` (${data.body_hash})`}`,
  "",
  "## Inclusion proof",
  ...data.inclusion_proof.map((h) => `- ${h}`),
  "",
  data.checkpoint,
  "## Envelope",
  "",
  JSON.stringify(data.envelope, null, 2),
  ""
].join("\n")
