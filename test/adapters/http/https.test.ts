// Whether a request came over HTTPS (src/adapters/http/https.ts; docs/protocol.md 13.1 and
// 17.4): only what the nearest proxy appended counts, and the gate's secrets need it said.

import { describe, expect, it } from "vitest"
import { proxySaidHttps, reachedOverHttps } from "../../../src/adapters/http/https.js"

const PUBLIC = "https://aics.test"
const contributions = (headers: Record<string, string>) => reachedOverHttps(headers, { publicUrl: PUBLIC, allowHttp: false })

describe("reachedOverHttps (contributions, 13.1)", () => {
  it("takes the last X-Forwarded-Proto value and the last Forwarded element, which the nearest proxy added", () => {
    // A client on plain HTTP writes "https" first; the proxy appends the truth.
    expect(contributions({ "x-forwarded-proto": "https, http" })).toBe(false)
    expect(contributions({ "x-forwarded-proto": "http, https" })).toBe(true)
    expect(contributions({ forwarded: "for=1.2.3.4;proto=https, for=5.6.7.8;proto=http" })).toBe(false)
    expect(contributions({ forwarded: "proto=http, for=5.6.7.8;proto=https" })).toBe(true)
  })

  it("trusts AICS_PUBLIC_URL https without a header, and nothing with an http public URL", () => {
    expect(contributions({})).toBe(true)
    expect(reachedOverHttps({ "x-forwarded-proto": "https" }, { publicUrl: "http://aics.test", allowHttp: false })).toBe(false)
    expect(reachedOverHttps({ "x-forwarded-proto": "http" }, { publicUrl: "http://aics.test", allowHttp: true })).toBe(true)
  })
})

describe("proxySaidHttps (the gate's secrets, 17.4)", () => {
  it("needs the nearest proxy to say https: no header is not TLS", () => {
    expect(proxySaidHttps({}, PUBLIC)).toBe(false)
    expect(proxySaidHttps({ forwarded: "for=1.2.3.4" }, PUBLIC)).toBe(false)
    expect(proxySaidHttps({ "x-forwarded-proto": "https" }, PUBLIC)).toBe(true)
    expect(proxySaidHttps({ forwarded: "for=1.2.3.4;proto=https" }, PUBLIC)).toBe(true)
    expect(proxySaidHttps({ "x-forwarded-proto": "https" }, "http://aics.test")).toBe(false)
  })

  it("is not fooled by a forged first value, nor by one header contradicting the other", () => {
    expect(proxySaidHttps({ "x-forwarded-proto": "https,http" }, PUBLIC)).toBe(false)
    expect(proxySaidHttps({ forwarded: "proto=https, for=5.6.7.8;proto=http" }, PUBLIC)).toBe(false)
    expect(proxySaidHttps({ "x-forwarded-proto": "https", forwarded: "proto=http" }, PUBLIC)).toBe(false)
  })
})
