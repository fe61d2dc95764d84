// The HTML error page a browser gets for a failed page request (src/domain/pages/errorPage.ts;
// docs/protocol.md 18), and the site's icon (src/domain/pages/favicon.ts; 15.4).

import { describe, expect, it } from "vitest"
import { errorPageDocument, errorTitle } from "../../../src/domain/pages/errorPage.js"
import { FAVICON_SVG, faviconIco } from "../../../src/domain/pages/favicon.js"
import { pageDocument } from "../../../src/domain/pages/layout.js"
import { html } from "../../../src/domain/pages/html.js"

describe("the error page", () => {
  it("titles the problem by its code when that says more than the status", () => {
    expect(errorTitle({ status: 404, title: "Not found", code: "post_not_found", detail: "" })).toBe("Post not found")
    expect(errorTitle({ status: 404, title: "Not found", code: "not_found", detail: "" })).toBe("Not found")
    expect(errorTitle({ status: 422, title: "Invalid request", code: "invalid_parameters", detail: "" })).toBe("Invalid parameters")
    expect(errorTitle({ status: 503, title: "Service unavailable", code: "", detail: "" })).toBe("Service unavailable")
  })

  it("shows the status, the detail, each bad parameter and the way home, escaping them all, without format links", () => {
    const page = errorPageDocument("/names/x", {
      status: 422, title: "Invalid request", code: "name_invalid", detail: `"<script>" is not a name`,
      errors: [{ path: "name", message: "<b>bad</b>" }, { path: "", message: "whole" }]
    })
    expect(page).toContain("<title>Name invalid</title>")
    expect(page).toContain("<h1>Name invalid</h1>")
    expect(page).toContain(`<p class="problem-detail">&quot;&lt;script&gt;&quot; is not a name</p>`)
    expect(page).toContain("<li><strong>name</strong>: &lt;b&gt;bad&lt;/b&gt;</li><li><strong>request</strong>: whole</li>")
    expect(page).toContain("HTTP 422 Invalid request, code <code>name_invalid</code>")
    expect(page).toContain('<a href="/">Go to the home page</a>')
    expect(page).not.toContain("<script>")
    expect(page).not.toContain("format=json")
    // Other pages keep their JSON and text links.
    expect(pageDocument({ path: "/agora", title: "Agora", description: "d", main: html`` })).toContain('href="/agora?format=json"')
  })
})

describe("the site's icon", () => {
  it("is an SVG, and an ICO of one 32x32 32-bit image of the same drawing", () => {
    expect(FAVICON_SVG).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32">.*<\/svg>\n$/s)
    const ico = Buffer.from(faviconIco())
    expect(ico.length).toBe(22 + 40 + 32 * 32 * 4 + 32 * 4)
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4), ico[6], ico[7], ico.readUInt16LE(12), ico.readUInt32LE(14), ico.readUInt32LE(18)])
      .toEqual([0, 1, 1, 32, 32, 32, ico.length - 22, 22])
    expect([ico.readUInt32LE(22), ico.readInt32LE(26), ico.readInt32LE(30), ico.readUInt16LE(36)]).toEqual([40, 32, 64, 32])
    /** The BGRA of pixel (x, y) counted from the top: rows are stored bottom first. */
    const pixel = (x: number, y: number) => [...ico.subarray(62 + ((31 - y) * 32 + x) * 4, 62 + ((31 - y) * 32 + x) * 4 + 4)]
    expect(pixel(0, 0)).toEqual([0, 0, 0, 0]) // outside the rounded corner
    expect(pixel(3, 28)).toEqual([0x77, 0xaa, 0x44, 255]) // the green square
    expect(pixel(16, 10)).toEqual([255, 255, 255, 255]) // on the first line
  })
})
