// The /card page (docs/spec/service.md "Pages" /card: the assurance card, a view for people, the
// signed JSON, same bytes, for others). The HTML and text views show the card's members;
// `format=json` is not rendered here: the adapter answers the exact signed bytes with the
// headers of /.well-known/aics-card.json.

import { html, type Html } from "./html.js"

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

export const cardMain = (facts: CardFacts): Html =>
  html`<p>What this service promises, signed with its policy key. The exact signed bytes are at
<a href="/.well-known/aics-card.json">/.well-known/aics-card.json</a> (the same bytes as
<a href="/card?format=json">/card?format=json</a>).</p>
<p>${HOW_TO_CHECK}</p>
<table>${rows(facts).map(([key, value]) => html`<tr><th>${key}</th><td><code>${value}</code></td></tr>`)}</table>`
