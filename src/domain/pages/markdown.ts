// A small Markdown subset rendered to HTML through the `html` tag (docs/spec/service.md "Pages": each
// guidance page is served as Markdown at `.md` and as HTML, from one source). Every piece
// of text is escaped by `html`; the only markup made here is the fixed set of elements
// below, so a source cannot inject markup even if it held some.
//
// The subset: `#`..`###` headings, paragraphs (consecutive lines), `- ` lists, `1. `
// lists, fenced code blocks (```), and inline `code`, **strong** and [text](href) links.
// A link's href is kept only when it is a path on this site (`/...`) or an http(s) URL.

import { html, type Html } from "./html.js"

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g

// `//host` and `/\host` are both taken by browsers as another host (the WHATWG URL parser
// reads a backslash as a slash), so a path of this site starts with one slash and neither.
export const safeHref = (href: string): boolean => /^\/(?![/\\])/.test(href) || /^https?:\/\//.test(href)

/** Inline markup of one run of text. */
export const renderInline = (text: string): Html => {
  const parts: Array<Html | string> = []
  let last = 0
  for (const match of text.matchAll(INLINE)) {
    parts.push(text.slice(last, match.index))
    const [whole, code, strong, label, href] = match
    if (code !== undefined) parts.push(html`<code>${code}</code>`)
    else if (strong !== undefined) parts.push(html`<strong>${strong}</strong>`)
    else if (label !== undefined && href !== undefined && safeHref(href)) parts.push(html`<a href="${href}">${label}</a>`)
    else parts.push(whole)
    last = match.index + whole.length
  }
  parts.push(text.slice(last))
  return html`${parts}`
}

type Block =
  | { readonly kind: "heading"; readonly level: 1 | 2 | 3; readonly text: string }
  | { readonly kind: "paragraph"; readonly lines: ReadonlyArray<string> }
  | { readonly kind: "list"; readonly ordered: boolean; readonly items: ReadonlyArray<string> }
  | { readonly kind: "code"; readonly lines: ReadonlyArray<string> }

const BULLET = /^- (.*)$/
const NUMBERED = /^\d+\. (.*)$/

/** The blocks of a Markdown source, in order. A list item continues on indented lines. */
export const parseBlocks = (source: string): ReadonlyArray<Block> => {
  const lines = source.replace(/\r\n/g, "\n").split("\n")
  const blocks: Array<Block> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line.trim() === "") {
      i++
    } else if (line.startsWith("```")) {
      const code: Array<string> = []
      i++
      while (i < lines.length && !lines[i]!.startsWith("```")) code.push(lines[i++]!)
      i++
      blocks.push({ kind: "code", lines: code })
    } else if (/^#{1,3} /.test(line)) {
      const level = line.indexOf(" ") as 1 | 2 | 3
      blocks.push({ kind: "heading", level, text: line.slice(level + 1).trim() })
      i++
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      const ordered = NUMBERED.test(line)
      const pattern = ordered ? NUMBERED : BULLET
      const items: Array<string> = []
      while (i < lines.length) {
        const current = lines[i]!
        const item = current.match(pattern)
        if (item !== null) items.push(item[1]!)
        else if (/^\s+\S/.test(current) && items.length > 0) items[items.length - 1] += ` ${current.trim()}`
        else break
        i++
      }
      blocks.push({ kind: "list", ordered, items })
    } else {
      const paragraph: Array<string> = []
      while (i < lines.length && lines[i]!.trim() !== "" && !/^(#{1,3} |```|- |\d+\. )/.test(lines[i]!)) paragraph.push(lines[i++]!.trim())
      blocks.push({ kind: "paragraph", lines: paragraph })
    }
  }
  return blocks
}

const renderBlock = (block: Block): Html => {
  switch (block.kind) {
    case "heading":
      // The page frame's <h1> is the title, so `#` and `##` both become <h2>.
      return block.level === 3 ? html`<h3>${renderInline(block.text)}</h3>\n` : html`<h2>${renderInline(block.text)}</h2>\n`
    case "paragraph":
      return html`<p>${renderInline(block.lines.join(" "))}</p>\n`
    case "list": {
      const items = block.items.map((item) => html`<li>${renderInline(item)}</li>`)
      return block.ordered ? html`<ol>${items}</ol>\n` : html`<ul>${items}</ul>\n`
    }
    case "code":
      return html`<pre><code>${block.lines.join("\n")}</code></pre>\n`
  }
}

/** The HTML of a Markdown source (the subset above). */
export const renderMarkdown = (source: string): Html => html`${parseBlocks(source).map(renderBlock)}`

/**
 * Text from the log (a post, a poll's question, a task) with its `code` spans set as code
 * and nothing else interpreted: agents write Markdown, and a person should not read its
 * backticks, but a post makes no links or other markup on a page.
 */
export const renderCodeSpans = (text: string): Html => {
  const parts: Array<Html | string> = []
  let last = 0
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    parts.push(text.slice(last, match.index), html`<code>${match[1]!}</code>`)
    last = match.index + match[0].length
  }
  parts.push(text.slice(last))
  return html`${parts}`
}
