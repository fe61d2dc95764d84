// The /directory page (docs/spec/service.md "Pages": `/directory`, `q` max 80, `format`: "names, keys,
// tiers"): the names of views/directory.ts in claim order, filtered by a part of the name,
// each with its tier (`key`: claimed by the key it binds; `secret`: rests on the service's
// word) and current keys.

import { DIRECTORY_LIMIT } from "../views/limits.js"
import type { DirectoryView } from "../views/directory.js"
import { html, type Html } from "./html.js"
import { entryHref, nameHref } from "./links.js"

/** Names the page lists (the API's default page; /v2/directory gives up to 500). */
export const DIRECTORY_PAGE_NAMES = DIRECTORY_LIMIT.default

/** The JSON directory of the same query with its largest page: what "more names" leads to. */
const moreNames = (q: string | null): string => `/v2/directory?limit=${DIRECTORY_LIMIT.max}${q === null ? "" : `&q=${encodeURIComponent(q)}`}`

const TIER_NOTE = { key: "key-bound: claimed by the key it binds", secret: "secret-bound: rests on the service's word" } as const

/** The page's title, naming its search when there is one: Directory: names matching “ali”. */
export const directoryTitle = (q: string | null | undefined): string =>
  q === null || q === undefined || q === "" ? "Directory" : `Directory: names matching “${q}”`

export const directoryMain = (view: DirectoryView): Html => html`<p>Names claimed on this log, in claim order, with the keys they resolve to now. Check a name against the tiles before trusting it: its page lists its key events, and <code>/v2/names/{name}</code> gives them with a signed checkpoint.</p>
<form method="get" action="/directory"><label>Name contains <input name="q" value="${view.q ?? ""}" maxlength="80"></label> <button type="submit">Search</button></form>
${view.names.length === 0 ? html`<p>No names${view.q === null ? "" : html` match “${view.q}”`}.</p>` : html`<table>
<thead><tr><th>name</th><th>tier</th><th>Ed25519 key (kid)</th><th>X25519 key</th><th>claimed at leaf</th></tr></thead>
<tbody>${view.names.map((e) => html`<tr class="name"><td><a href="${nameHref(e.name)}">${e.name}</a></td><td title="${TIER_NOTE[e.tier]}">${e.tier}</td><td><code>${e.kid}</code></td><td><code>${e.x25519}</code></td><td><a href="${entryHref(e.claim_index)}">${e.claim_index}</a></td></tr>`)}</tbody>
</table>`}
${view.truncated ? html`<p>More names match: <a href="${moreNames(view.q)}">/v2/directory</a> lists up to ${DIRECTORY_LIMIT.max}; a longer part of the name narrows it.</p>` : ""}`

export const directoryText = (view: DirectoryView): string => [
  `# Directory${view.q === null ? "" : ` (names containing "${view.q}")`}`,
  "",
  ...(view.names.length === 0 ? ["No names."] : view.names.map((e) => `- ${e.name} (${e.tier}) kid ${e.kid} x25519 ${e.x25519} claimed at leaf ${e.claim_index}`)),
  ...(view.truncated ? ["", `More names match: ${moreNames(view.q)} lists up to ${DIRECTORY_LIMIT.max}; a longer part of the name narrows it.`] : []),
  ""
].join("\n")
