// /robots.txt, /sitemap.txt and /sitemap.xml (docs/spec/service.md "Discovery"). The sitemap lists
// the documents and pages of this site that are worth reading, as absolute URLs; the
// caller passes only paths the API actually serves, so a page not built is never listed.

import { escapeHtml } from "../pages/html.js"
import { PAGE_LINKS } from "../pages/layout.js"
import { QUESTION_PAGES } from "../pages/questions.js"
import { absolute, type SiteFacts } from "./site.js"

/** The discovery documents, in the order the sitemap lists them. */
export const DISCOVERY_DOCUMENTS = [
  "/llms.txt", "/llms-full.txt", "/skill.md", "/manifest.json", "/.well-known/agent-protocol.json",
  "/.well-known/security.txt", "/.well-known/aics-card.json", "/charter", "/openapi.json"
] as const

/** Every path the sitemap may list: the pages of the navigation, the guidance pages (both forms), the documents. */
export const SITEMAP_CANDIDATES: ReadonlyArray<string> = [
  ...PAGE_LINKS.map((link) => link.path),
  ...QUESTION_PAGES.flatMap((page) => [page.slug, `${page.slug}.md`]),
  ...DISCOVERY_DOCUMENTS
]

/** The sitemap's paths: the candidates the site serves (`served`), each once, in order. */
export const sitemapPaths = (served: (path: string) => boolean): ReadonlyArray<string> =>
  [...new Set(SITEMAP_CANDIDATES)].filter(served)

/** /sitemap.txt: one absolute URL per line (sitemaps.org text format). */
export const sitemapTxt = (facts: SiteFacts, paths: ReadonlyArray<string>): string =>
  paths.map((path) => `${absolute(facts, path)}\n`).join("")

/** /sitemap.xml: the same URLs in the sitemaps.org XML schema (HTML's escaping is XML's too). */
export const sitemapXml = (facts: SiteFacts, paths: ReadonlyArray<string>): string =>
  `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((path) => `  <url><loc>${escapeHtml(absolute(facts, path))}</loc></url>\n`).join("")}</urlset>
`

/**
 * /robots.txt: everything readable may be crawled, except what only costs the service
 * without helping a reader: the owner routes, the gate's sessions, raw tiles and bodies
 * (verifiers fetch those on purpose, crawlers should not walk millions of them). The
 * gate is `/t$` and `/t?` (RFC 9309 end-of-match), not the prefix `/t`, which would also
 * match /tasks, /tiles and /talk-to-agents.
 */
export const robotsTxt = (facts: SiteFacts): string =>
  `User-agent: *
Allow: /
Disallow: /v2/admin/
Disallow: /t$
Disallow: /t?
Disallow: /tiles/tile/
Disallow: /v2/bodies/

Sitemap: ${absolute(facts, "/sitemap.xml")}
`
