// The statistics middleware (src/adapters/http/countRequests.ts) reads Accept as the pages
// do (pageResponse.ts prefersHtml, with the weights): a request is counted as wanting HTML
// exactly when `/` would serve it HTML, so `text/html;q=0.1, text/plain` (served text) is
// not a browser's request, and the status counted is the one answered.

import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { counted } from "../../../src/adapters/http/countRequests.js"
import { negotiatedFormat } from "../../../src/adapters/http/pageResponse.js"
import { type AnsweredRequest, RequestStats } from "../../../src/app/RequestStats.js"
import { accessClass } from "../../../src/domain/stats/requestStats.js"

const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

/** What the middleware counts for one GET / with these headers, answered 200. */
const countedFor = (headers: Record<string, string>): Promise<AnsweredRequest> => {
  const seen: Array<AnsweredRequest> = []
  const stats = Layer.succeed(RequestStats, RequestStats.of({
    count: (request) => Effect.sync(() => void seen.push(request)),
    countGate: () => Effect.void,
    document: () => Effect.die("not used")
  }))
  const request = { method: "GET", url: "/?x=1", headers, remoteAddress: "127.0.0.1" }
  return Effect.runPromise(counted(request, Effect.succeed(HttpServerResponse.text("ok"))).pipe(Effect.provide(stats)))
    .then(() => {
      expect(seen).toHaveLength(1)
      return seen[0]!
    })
}

describe("countRequests", () => {
  it("counts a request as wanting HTML exactly when the pages serve it HTML, weights included", async () => {
    const cases: ReadonlyArray<readonly [string | undefined, boolean]> = [
      // Named, but weighed below plain text (or refused): served text, so not counted as HTML.
      ["text/html;q=0.1, text/plain", false],
      ["text/html;q=0, */*", false],
      ["text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true],
      ["text/html", true],
      ["application/xhtml+xml", true],
      ["text/plain;q=0.5, text/html", true],
      ["*/*", false],
      ["application/json", false],
      [undefined, false]
    ]
    for (const [accept, html] of cases) {
      const answered = await countedFor({ "user-agent": BROWSER_UA, ...(accept === undefined ? {} : { accept }) })
      expect(answered.acceptsHtml, String(accept)).toBe(html)
      expect(negotiatedFormat(undefined, accept), String(accept)).toBe(html ? "html" : "text")
      expect(accessClass(answered), String(accept)).toBe(html ? "browser" : "program")
      expect(answered).toMatchObject({ path: "/", signed: false, userAgent: BROWSER_UA, status: 200 })
    }
  })
})
