import { describe, expect, it } from "vitest"
import { escapeHtml, html, trusted } from "../../../src/domain/pages/html.js"
import { pageDocument } from "../../../src/domain/pages/layout.js"

describe("html", () => {
  it("escapes interpolated text, keeps nested Html and joins arrays", () => {
    const name = `<script>alert("x")</script>&'`
    const out = html`<p title="${name}">${name}</p>${[html`<b>${1}</b>`, "<i>"]}${null}${false}`
    expect(out.markup).toBe(
      `<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p><b>1</b>&lt;i&gt;`
    )
    expect(escapeHtml("a&b")).toBe("a&amp;b")
    expect(html`${trusted("<hr>")}`.markup).toBe("<hr>")
  })

  it("frames a page with the navigation, the current page marked, and the title escaped", () => {
    const doc = pageDocument({ path: "/agora", title: "Agora <all>", description: "posts", main: html`<p>hi</p>` })
    expect(doc.startsWith("<!doctype html>")).toBe(true)
    expect(doc).toContain(`<title>Agora &lt;all&gt;</title>`)
    expect(doc).toContain(`<a href="/agora" aria-current="page">agora</a>`)
    expect(doc).toContain(`<a href="/directory">directory</a>`)
    expect(doc).not.toContain("<script")
  })
})
