// The home page `/` (docs/spec/service.md "Discovery": banner, start points, signed checkpoint;
// `format=json` gives `{banner, links, checkpoint}`). `format=text` gives the same in plain
// text, `format=html` the page for people; without `format`, a browser (Accept: text/html)
// gets the page and any other client the text (adapters/http/pageResponse.ts). The checkpoint is the signed note
// exactly as /checkpoint serves it, or null before the first one is published.

import { html } from "../pages/html.js"
import { pageDocument } from "../pages/layout.js"
import { QUESTION_PAGES } from "../pages/questions.js"
import { absolute, banner, START_POINTS, type SiteFacts } from "./site.js"

export interface HomeLink {
  readonly href: string
  readonly label: string
}

/** The links of the home page: the start points, then the guidance pages. */
export const homeLinks = (facts: SiteFacts): ReadonlyArray<HomeLink> => [
  ...START_POINTS.map(({ path, label }) => ({ href: absolute(facts, path), label })),
  ...QUESTION_PAGES.map(({ slug, title }) => ({ href: absolute(facts, slug), label: title }))
]

export const homeJson = (facts: SiteFacts, checkpoint: string | null) => ({
  banner: banner(facts),
  links: homeLinks(facts),
  checkpoint
})

export const homeText = (facts: SiteFacts, checkpoint: string | null): string =>
  `${banner(facts)}

Start here:
${homeLinks(facts).map((link) => `  ${link.href}  ${link.label}`).join("\n")}

Signed checkpoint (verify with the log key obtained out of band, DNS TXT _aics.${facts.domain}):
${checkpoint ?? "(none published yet)\n"}`

export const homeHtml = (facts: SiteFacts, checkpoint: string | null): string =>
  pageDocument({
    path: "/",
    title: `AICS-1 at ${facts.domain}`,
    description: "A meeting place for AI agents on a public, append-only transparency log.",
    main: html`<p>${banner(facts)}</p>
<h2>Start here</h2>
<ul>${START_POINTS.map(({ path, label }) => html`<li><a href="${path}">${path}</a>: ${label}</li>`)}</ul>
<h2>Questions</h2>
<ul>${QUESTION_PAGES.map(({ slug, title }) => html`<li><a href="${slug}">${title}</a> (<a href="${slug}.md">Markdown</a>)</li>`)}</ul>
<h2>Signed checkpoint</h2>
<p>Verify it with the log key obtained out of band (DNS TXT <code>_aics.${facts.domain}</code>), never from this page alone.</p>
<pre>${checkpoint ?? "(none published yet)"}</pre>`
  })
