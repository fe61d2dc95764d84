// A small Markdown subset rendered to HTML through the `html` tag (docs/spec/service.md "Pages": each
// guidance page is served as Markdown at `.md` and as HTML, from one source). Every piece
// of text is escaped by `html`; the only markup made here is the fixed set of elements
// below, so a source cannot inject markup even if it held some.
//
// The subset: `#`..`###` headings, paragraphs (consecutive lines), `- ` lists, `1. `
// lists, nested by indenting under an item, fenced code blocks (```), and inline `code`,
// **strong** and [text](href) links.
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

/** A list item: its own text, then what is indented under it (a nested list, more text). */
interface ListItem {
  readonly text: string
  readonly children: ReadonlyArray<Block>
}

type Block =
  | { readonly kind: "heading"; readonly level: 1 | 2 | 3; readonly text: string }
  | { readonly kind: "paragraph"; readonly lines: ReadonlyArray<string> }
  | { readonly kind: "list"; readonly ordered: boolean; readonly items: ReadonlyArray<ListItem> }
  | { readonly kind: "code"; readonly lines: ReadonlyArray<string> }

const BULLET = /^- (.*)$/
const NUMBERED = /^\d+\. (.*)$/
const MARKER = /^(- |\d+\. )/

const indentOf = (line: string): number => line.length - line.trimStart().length

/**
 * A list from `lines[start]` on, and the line after it. An item runs on over the lines
 * indented under it; those are parsed again, without their common indent, so a marker
 * among them starts a nested list (of either kind) and other lines continue the item's
 * text. A blank line or a line back at the margin that is no marker of this list ends it.
 */
const parseList = (lines: ReadonlyArray<string>, start: number): readonly [Block, number] => {
  const ordered = NUMBERED.test(lines[start]!)
  const pattern = ordered ? NUMBERED : BULLET
  const items: Array<ListItem> = []
  let i = start
  while (i < lines.length) {
    const item = lines[i]!.match(pattern)
    if (item === null) break
    i++
    const under: Array<string> = []
    while (i < lines.length && lines[i]!.trim() !== "" && indentOf(lines[i]!) > 0) under.push(lines[i++]!)
    const margin = Math.min(...under.map(indentOf))
    const body = under.map((line) => line.slice(margin))
    // The item's text: its line and the lines under it up to the first marker.
    const firstMarker = body.findIndex((line) => MARKER.test(line))
    const textLines = firstMarker < 0 ? body : body.slice(0, firstMarker)
    const rest = firstMarker < 0 ? [] : body.slice(firstMarker)
    items.push({ text: [item[1]!, ...textLines.map((line) => line.trim())].join(" "), children: rest.length === 0 ? [] : parseBlocks(rest.join("\n")) })
  }
  return [{ kind: "list", ordered, items }, i]
}

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
    } else if (MARKER.test(line)) {
      const [list, next] = parseList(lines, i)
      blocks.push(list)
      i = next
    } else {
      const paragraph: Array<string> = []
      while (i < lines.length && lines[i]!.trim() !== "" && !/^(#{1,3} |```|- |\d+\. )/.test(lines[i]!)) paragraph.push(lines[i++]!.trim())
      blocks.push({ kind: "paragraph", lines: paragraph })
    }
  }
  return blocks
}

/** A block's HTML; inside a list item without the line break that follows a block at the top. */
const renderBlock = (block: Block, nested = false): Html => {
  const end = nested ? "" : "\n"
  switch (block.kind) {
    case "heading":
      // The page frame's <h1> is the title, so `#` and `##` both become <h2>.
      return block.level === 3 ? html`<h3>${renderInline(block.text)}</h3>${end}` : html`<h2>${renderInline(block.text)}</h2>${end}`
    case "paragraph":
      return html`<p>${renderInline(block.lines.join(" "))}</p>${end}`
    case "list": {
      const items = block.items.map((item) => html`<li>${renderInline(item.text)}${item.children.map((child) => renderBlock(child, true))}</li>`)
      return block.ordered ? html`<ol>${items}</ol>${end}` : html`<ul>${items}</ul>${end}`
    }
    case "code":
      return html`<pre><code>${block.lines.join("\n")}</code></pre>${end}`
  }
}

/** The HTML of a Markdown source (the subset above). */
export const renderMarkdown = (source: string): Html => html`${parseBlocks(source).map((block) => renderBlock(block))}`

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
