// The /card page (docs/spec/service.md "Pages" /card: the assurance card, a view for people, the
// signed JSON, same bytes, for others). The HTML and text views show the card's members;
// `format=json` is not rendered here: the adapter answers the exact signed bytes with the
// headers of /.well-known/aics-card.json.

import { html, type Html } from "./html.js"
import { factList } from "./itemFacts.js"

export interface CardFacts {
  /** The card as parsed from its signed bytes. */
  readonly card: Readonly<Record<string, unknown>>
  /** U64 SHA-256 of the bytes (X-AICS-Card-SHA256). */
  readonly hash: string
  /** The card policy leaf in force naming that hash, if any (X-AICS-Card-Leaf). */
  readonly leaf: number | undefined
}

/** A member's value as one line of text. */
const valueText = (value: unknown): string =>
  typeof value === "string" ? value : JSON.stringify(value)

const rows = (facts: CardFacts): ReadonlyArray<readonly [string, string]> => [
  ...Object.entries(facts.card).map(([key, value]) => [key, valueText(value)] as const),
  ["sha-256 (U64)", facts.hash],
  ["logged as policy leaf", facts.leaf === undefined ? "none yet" : String(facts.leaf)]
]

const HOW_TO_CHECK = "Check it: the bytes are the JCS form of the JSON, kid is the policy key you pinned from leaf 0 and out of band, and auth.sig verifies over JCS(card with auth.sig removed)."

export const cardText = (facts: CardFacts): string =>
  `The assurance card of this service, signed with the policy key.
Exact bytes: /.well-known/aics-card.json (also /card?format=json).
${HOW_TO_CHECK}

${rows(facts).map(([key, value]) => `${key}: ${value}`).join("\n")}
`

const member = (card: Readonly<Record<string, unknown>>, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, key) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined), card)

const code = (value: unknown): Html | null => (value === undefined || value === null ? null : html`<code>${valueText(value)}</code>`)
const link = (value: unknown): Html | null =>
  typeof value === "string" && /^https?:\/\//.test(value) ? html`<a href="${new URL(value).pathname}">${value}</a>` : code(value)

/** The members the page explains; the rest are listed as they are. */
const EXPLAINED = new Set(["v", "type", "origin", "api", "tiles", "mmd_seconds", "keys", "kid", "retention_days", "notice_period_seconds", "charter", "sup", "contributions", "instance_domain", "auth"])

export const cardMain = (facts: CardFacts): Html => {
  const card = facts.card
  const contributions = Array.isArray(card["contributions"]) ? card["contributions"] as ReadonlyArray<Record<string, unknown>> : []
  const others = Object.entries(card).filter(([key]) => !EXPLAINED.has(key))
  return html`<p>What this service promises, signed with its policy key, in words. The exact signed bytes are at
<a href="/.well-known/aics-card.json">/.well-known/aics-card.json</a> (the same bytes as <code>/card?format=json</code>).</p>
<h2>The log</h2>
${factList([
  ["protocol", `${valueText(card["v"] ?? "")} (${valueText(card["type"] ?? "")})`],
  ["origin", code(card["origin"])],
  ["instance", code(card["instance_domain"])],
  ["API", link(card["api"])],
  ["tiles", Array.isArray(card["tiles"]) ? html`${(card["tiles"] as ReadonlyArray<unknown>).map((t, i) => html`${i === 0 ? "" : ", "}${link(t)}`)}` : null],
  ["merge delay", typeof card["mmd_seconds"] === "number" ? `every accepted write is under a signed checkpoint within ${card["mmd_seconds"]} s` : null]
])}
<h2>Keys</h2>
<p>Take the log key from outside this service too (DNS TXT, the package, the repository): a key this service shows only vouches for itself.</p>
${factList([
  ["log key (checkpoints, receipts)", code(member(card, ["keys", "log_vkey"]))],
  ["policy key (signs this card)", code(member(card, ["keys", "policy_kid"]) ?? card["kid"])],
  ["owner key (tombstones, policies)", code(member(card, ["keys", "owner_kid"]))]
])}
<h2>Promises</h2>
${factList([
  ["retention", typeof card["retention_days"] === "number" ? `direct messages and capsules may expire after ${card["retention_days"]} days; no leaf is ever deleted` : null],
  ["notice period", typeof card["notice_period_seconds"] === "number" ? `a policy change takes effect at least ${Math.round(Number(card["notice_period_seconds"]) / 86_400)} days after it is logged, unless an order requires sooner` : null],
  ["charter", member(card, ["charter", "url"]) === undefined ? null : html`${link(member(card, ["charter", "url"]))}, leaf <a href="/entries/${valueText(member(card, ["charter", "index"]) ?? 0)}">#${valueText(member(card, ["charter", "index"]) ?? 0)}</a>`],
  ["SUP asset", link(member(card, ["sup", "asset_url"]))],
  ["contributions", contributions.length === 0 ? html`none open (<a href="/contribute">/contribute</a>)` : html`${contributions.length} address(es), see <a href="/contribute">/contribute</a>`]
])}
${others.length === 0 ? "" : html`<h2>Other members</h2>${factList(others.map(([key, value]) => [key, code(value)] as const))}`}
<h2>Check it</h2>
<p>${HOW_TO_CHECK}</p>
${factList([
  ["sha-256 (U64)", code(facts.hash)],
  ["logged as policy leaf", facts.leaf === undefined ? "none yet" : html`<a href="/entries/${facts.leaf}">#${facts.leaf}</a>`],
  ["signature", code(member(card, ["auth", "sig"]))]
])}`
}
