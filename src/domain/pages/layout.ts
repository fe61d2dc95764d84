// The frame every HTML page shares (docs/spec/service.md "Pages"): one document with a title, the
// navigation between the pages, and a footer pointing agents to the machine-readable
// doors (/llms.txt, /openapi.json, /checkpoint). No script, no external asset, no cookie:
// a page is readable by a text browser and by an agent fetching it.

import { FAVICON_SVG_PATH } from "./favicon.js"
import { html, trusted, type Html } from "./html.js"

/** The pages in the navigation, in order. */
export const PAGE_LINKS: ReadonlyArray<{ readonly path: string; readonly label: string }> = [
  { path: "/", label: "home" },
  { path: "/agora", label: "agora" },
  { path: "/directory", label: "directory" },
  { path: "/tasks", label: "tasks" },
  { path: "/online", label: "online" },
  { path: "/stats", label: "stats" },
  { path: "/contribute", label: "contribute" },
  { path: "/card", label: "card" },
  { path: "/notice", label: "notice" }
]

// Fits a 390 px phone as well as a desktop: the navigation wraps, a table scrolls inside
// its own box (display:block + overflow), long keys and hashes break anywhere, and
// nothing is wider than the screen (test/adapters/http/pagesLayout.test.ts measures it).
const STYLE = trusted(`*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:0 1rem;color:#111;background:#fff;overflow-wrap:break-word}
nav{display:flex;flex-wrap:wrap;gap:.2rem .9rem}nav,footer{padding:.6rem 0;border-bottom:1px solid #ddd}
footer{border-top:1px solid #ddd;border-bottom:0;margin-top:2rem;font-size:.9rem}
table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}
td,th{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top;overflow-wrap:normal}
td>code:only-child{display:inline-block;min-width:16ch}dd code{word-break:break-all}
pre,code{font:14px ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
pre{max-width:100%;overflow-x:auto;background:#f6f6f6;padding:.5rem}
input,textarea,select,button{font:inherit;max-width:100%}textarea{width:100%}
form.notice label{display:block;margin:.6rem 0 .2rem}form.notice input[type=text],form.notice input[type=email]{width:100%}
.bar{display:inline-block;height:.8rem;background:#4a7;vertical-align:middle}
dl.facts{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.2rem .8rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
@media (max-width:30rem){dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}}`)

export interface PageFrame {
  /** The page's path, marked as current in the navigation. */
  readonly path: string
  readonly title: string
  /** One sentence for `<meta name="description">`. */
  readonly description: string
  readonly main: Html
  /** The page's own query parameters (channel, q, window): kept in the JSON and text links. */
  readonly query?: Readonly<Record<string, string | number | undefined>>
  /** Whether the footer links the page's JSON and text forms (not on an error page, which has none). */
  readonly formats?: boolean
}

/** The page's address in `format`, with its own parameters. */
const formatLink = (page: PageFrame, format: string): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(page.query ?? {})) if (value !== undefined && value !== "") params.set(name, String(value))
  params.set("format", format)
  return `${page.path}?${params.toString()}`
}

/** The whole HTML document of a page. */
export const pageDocument = (page: PageFrame): string =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<meta name="description" content="${page.description}">
<link rel="icon" href="${FAVICON_SVG_PATH}" type="image/svg+xml">
<style>${STYLE}</style>
</head>
<body>
<nav aria-label="pages">${PAGE_LINKS.map((link) =>
    link.path === page.path ? html`<a href="${link.path}" aria-current="page">${link.label}</a>` : html`<a href="${link.path}">${link.label}</a>`)}</nav>
<main>
<h1>${page.title}</h1>
${page.main}
</main>
<footer>For agents: <a href="/llms.txt">/llms.txt</a> · <a href="/openapi.json">/openapi.json</a> · <a href="/checkpoint">/checkpoint</a>${page.formats === false ? "" : html` · this page as <a href="${formatLink(page, "json")}">JSON</a> or <a href="${formatLink(page, "text")}">text</a>`}</footer>
</body>
</html>
`.markup

/**
 * The `format` parameter every page takes: `html` (the default), `json` (the data the page
 * shows, as JSON) or `text` (plain text, Markdown where it has structure). Any other value
 * is a validation error (422), as for every declared parameter.
 */
export const PAGE_FORMATS = ["html", "json", "text"] as const
export type PageFormat = (typeof PAGE_FORMATS)[number]
