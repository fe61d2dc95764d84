// Accept negotiation for the pages (src/adapters/http/pageResponse.ts; RFC 9110 12.5.1):
// the weights count, the most specific range that matches a type says its weight, and a
// tie goes to the type a range names, then to the server's order. `/` picks HTML or plain
// text with it (negotiatedFormat), and a failed page request an HTML page or its problem
// document (errorAsPage).

import { describe, expect, it } from "vitest"
import { errorAsPage, negotiatedFormat, parseAccept, preferredMediaType } from "../../../src/adapters/http/pageResponse.js"

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

describe("parseAccept", () => {
  it("reads each range with its weight, lower case, leaving out what it cannot read", () => {
    expect(parseAccept("Text/HTML;level=1;q=0.5, */*;q=0.1 ,application/json")).toEqual([
      { type: "text", subtype: "html", q: 0.5 }, { type: "*", subtype: "*", q: 0.1 }, { type: "application", subtype: "json", q: 1 }
    ])
    expect(parseAccept("text/html;q=2, text/plain;q=abc, nonsense, */html, text/, a/b/c, text/csv;Q=0")).toEqual([{ type: "text", subtype: "csv", q: 0 }])
  })
})

describe("preferredMediaType", () => {
  const offers = ["text/plain", "text/html"] as const
  it("takes the weights into account", () => {
    expect(preferredMediaType("text/html;q=0.1, text/plain", offers)).toBe("text/plain")
    expect(preferredMediaType("text/plain;q=0.5, text/html", offers)).toBe("text/html")
    expect(preferredMediaType("text/html;q=0", offers)).toBeUndefined()
    expect(preferredMediaType("text/html;q=0, */*", offers)).toBe("text/plain")
    expect(preferredMediaType("application/json", offers)).toBeUndefined()
  })

  it("weighs a type by the most specific range that matches it", () => {
    expect(preferredMediaType("text/*;q=0.9, text/html;q=0.1", offers)).toBe("text/plain")
    expect(preferredMediaType("*/*;q=0.1, text/html", offers)).toBe("text/html")
    expect(preferredMediaType(BROWSER, offers)).toBe("text/html")
  })

  it("breaks a tie by the type a range names, then by the server's order; no Accept takes the first", () => {
    expect(preferredMediaType("text/html, */*", offers)).toBe("text/html")
    expect(preferredMediaType("*/*", offers)).toBe("text/plain")
    expect(preferredMediaType("text/*", offers)).toBe("text/plain")
    expect(preferredMediaType("text/html, text/plain", offers)).toBe("text/plain")
    expect(preferredMediaType(undefined, offers)).toBe("text/plain")
    expect(preferredMediaType("  ", offers)).toBe("text/plain")
  })
})

describe("negotiatedFormat (GET /)", () => {
  it("answers HTML when Accept prefers it to plain text, plain text otherwise; format wins", () => {
    expect(negotiatedFormat(undefined, BROWSER)).toBe("html")
    expect(negotiatedFormat(undefined, "text/html")).toBe("html")
    expect(negotiatedFormat(undefined, "application/xhtml+xml")).toBe("html")
    expect(negotiatedFormat(undefined, "text/html;q=0.1, text/plain")).toBe("text")
    expect(negotiatedFormat(undefined, "text/plain;q=0.9, text/html;q=0.2")).toBe("text")
    expect(negotiatedFormat(undefined, "TEXT/HTML ; Q=0.1 , text/plain")).toBe("text")
    expect(negotiatedFormat(undefined, "text/html;q=0")).toBe("text")
    expect(negotiatedFormat(undefined, "*/*")).toBe("text")
    expect(negotiatedFormat(undefined, "application/json")).toBe("text")
    expect(negotiatedFormat(undefined, undefined)).toBe("text")
    expect(negotiatedFormat("json", BROWSER)).toBe("json")
  })
})

describe("errorAsPage", () => {
  it("is a page for a browser or format=html, the problem document for everyone else", () => {
    expect(errorAsPage(undefined, BROWSER)).toBe(true)
    expect(errorAsPage(undefined, "text/html")).toBe(true)
    expect(errorAsPage("html", undefined)).toBe(true)
    expect(errorAsPage("pdf", BROWSER)).toBe(true)
    for (const accept of [undefined, "*/*", "application/json", "application/problem+json", "text/html, application/json", "text/html;q=0.9, application/json", "text/plain"]) {
      expect(errorAsPage(undefined, accept), accept).toBe(false)
    }
    expect(errorAsPage("json", BROWSER)).toBe(false)
    expect(errorAsPage("text", BROWSER)).toBe(false)
  })
})
