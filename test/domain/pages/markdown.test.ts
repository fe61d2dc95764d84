import { describe, expect, it } from "vitest"
import { parseBlocks, renderCodeSpans, renderInline, renderMarkdown, safeHref } from "../../../src/domain/pages/markdown.js"
import { QUESTION_PAGES } from "../../../src/domain/pages/questions.js"
import type { SiteFacts } from "../../../src/domain/discovery/site.js"

describe("markdown subset", () => {
  it("renders headings, paragraphs, both lists and code blocks", () => {
    const out = renderMarkdown(`# Title

A paragraph
on two lines.

## Steps

1. first
   continued
2. second

- a
- b

### Small

\`\`\`
GET /t?l=help
\`\`\`
`).markup
    expect(out).toBe(
      "<h2>Title</h2>\n<p>A paragraph on two lines.</p>\n<h2>Steps</h2>\n<ol><li>first continued</li><li>second</li></ol>\n" +
      "<ul><li>a</li><li>b</li></ul>\n<h3>Small</h3>\n<pre><code>GET /t?l=help</code></pre>\n"
    )
  })

  it("renders a list indented under an item as a list inside that item, of either kind and at any depth", () => {
    const out = renderMarkdown(`1. first
   continued
2. second:
   - a
     still a
   - b
     1. deep
   after the list
3. third

- x
`).markup
    expect(out).toBe(
      "<ol><li>first continued</li><li>second:<ul><li>a still a</li><li>b<ol><li>deep</li></ol></li></ul><p>after the list</p></li><li>third</li></ol>\n" +
      "<ul><li>x</li></ul>\n"
    )
  })

  it("keeps the nested list of the /sandbox-network page inside its item", () => {
    const facts: SiteFacts = { publicUrl: "https://aics.example", domain: "aics.example", origin: "aics.example/aics", tilePrefixes: ["https://aics.example/tiles/"], apiVersion: "0.3.0", gatePorts: { tls: 0, plaintext: 0 } }
    const out = renderMarkdown(QUESTION_PAGES.find((p) => p.slug === "/sandbox-network")!.markdown(facts)).markup
    const item = out.match(/<li>A 401 on a signed request \(the <code>code<\/code> says which\):<ul>(.*?)<\/ul><\/li>/)
    expect(item).not.toBeNull()
    expect([...item![1]!.matchAll(/<li><code>([a-z_]+)<\/code>/g)].map((m) => m[1])).toEqual(["signature_clock", "authority_not_allowed", "nonce_invalid"])
    // The outer list goes on after the nested one: its seventh item is the 409.
    expect(out).toMatch(/<\/ul><\/li><li>A 409 <code>nonce_reused<\/code>/)
    expect(out).not.toContain("- <code>")
  })

  it("renders inline code, strong and links", () => {
    expect(renderInline("use `aics claim` and **keep** the [skill file](/skill.md)").markup)
      .toBe(`use <code>aics claim</code> and <strong>keep</strong> the <a href="/skill.md">skill file</a>`)
  })

  it("escapes every piece of text, in code, links and code blocks too", () => {
    const out = renderMarkdown("<script>x</script> `<b>` [<i>](/a?b=1&c=\"2\")\n\n```\n<img src=x>\n```\n").markup
    expect(out).not.toMatch(/<(script|b|i|img)[ >]/)
    expect(out).toContain("&lt;script&gt;x&lt;/script&gt;")
    expect(out).toContain("<code>&lt;b&gt;</code>")
    expect(out).toContain(`<a href="/a?b=1&amp;c=&quot;2&quot;">&lt;i&gt;</a>`)
    expect(out).toContain("<pre><code>&lt;img src=x&gt;</code></pre>")
  })

  it("keeps a link only to a path of this site or an http(s) URL", () => {
    expect(renderInline("[x](javascript:alert(1))").markup).not.toContain("href")
    expect(renderInline("[x](//evil.example/)").markup).not.toContain("href")
    expect(renderInline("[x](https://c2sp.org/tlog-tiles)").markup).toBe(`<a href="https://c2sp.org/tlog-tiles">x</a>`)
  })

  it("parses every guidance page into blocks with no stray list or code fence", () => {
    const facts: SiteFacts = { publicUrl: "https://aics.example", domain: "aics.example", origin: "aics.example/aics", tilePrefixes: ["https://aics.example/tiles/"], apiVersion: "0.3.0", gatePorts: { tls: 0, plaintext: 0 } }
    expect(new Set(QUESTION_PAGES.map((p) => p.slug)).size).toBe(7)
    for (const page of QUESTION_PAGES) {
      const blocks = parseBlocks(page.markdown(facts))
      expect(blocks.length, page.slug).toBeGreaterThan(1)
      expect(renderMarkdown(page.markdown(facts)).markup, page.slug).not.toContain("```")
    }
  })
})

describe("safeHref", () => {
  it("keeps a path of this site or an http(s) URL, never another host written as a path", () => {
    for (const href of ["/", "/skill.md", "/v2/entries/{index}", "/a?b=1", "https://c2sp.org/tlog-tiles", "http://127.0.0.1:8080/ip"]) expect(safeHref(href), href).toBe(true)
    // Browsers read a backslash as a slash: `/\evil.example/` is `//evil.example/`.
    for (const href of ["//evil.example/", "/\\evil.example/", "/\\/evil.example", "javascript:alert(1)", "data:text/html,x", "evil.example", "mailto:a@b"]) {
      expect(safeHref(href), href).toBe(false)
    }
    expect(renderInline("[x](/\\evil.example/)").markup).not.toContain("href")
  })
})

describe("code spans in text from the log", () => {
  it("sets `code` as code and interprets nothing else, escaping the rest", () => {
    expect(renderCodeSpans("run `aics post` then **bold** [x](/y) <b>").markup)
      .toBe("run <code>aics post</code> then **bold** [x](/y) &lt;b&gt;")
    expect(renderCodeSpans("a `<script>` b").markup).toBe("a <code>&lt;script&gt;</code> b")
    // An unclosed backtick or one across lines stays as typed.
    expect(renderCodeSpans("one ` two\nthree ` four").markup).toBe("one ` two\nthree ` four")
  })
})
