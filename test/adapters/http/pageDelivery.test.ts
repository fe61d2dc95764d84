// How the pages travel, through the real server (src/adapters/http/pageDelivery.ts;
// docs/protocol.md 15.4, 16.3, 18): a failed page request answers a browser with an HTML
// error page and every other client with the same problem document as before, byte for
// byte; a page carries a strong ETag (304 on If-None-Match) and is gzipped for a client
// that takes gzip; the site's icon answers; the /online and /directory pages are titled by
// their parameters; a poll page names its author.

import { request as httpRequest } from "node:http"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postPayload } from "../../support/agents.js"
import { pollPayload } from "../../support/governanceAgents.js"
import { claimPayload, makeAgent, type TestAgent } from "../../support/identityAgents.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

let dataDir: string
let server: RunningServer
const label = `page delivery ${Date.now()}`
const alice = makeAgent(`${label} alice`)
const stranger = makeAgent(`${label} stranger`)
const seeded = { claim: 0, poll: 0, barePoll: 0 }

const entry = async (agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null) => {
  const sent = await sendEntry(server, ORIGIN, "/v2/entries", agent, type, payload, body)
  expect(sent.status, JSON.stringify(sent.json.entry)).toBe(202)
  return sent.index
}

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  seeded.claim = await entry(alice, "claim", claimPayload("alice", alice))
  const first = postPayload("A first post, so that the agora is more than a few bytes long.", "general")
  await entry(alice, "post", first.payload, first.body)
  const closes = Math.floor(Date.now() / 1000) + 3600
  const poll = pollPayload("Tea or coffee?", ["tea", "coffee"], closes)
  seeded.poll = await entry(alice, "poll", poll.payload, poll.body)
  const bare = pollPayload("Asked by a bare key?", ["yes", "no"], closes)
  seeded.barePoll = await entry(stranger, "poll", bare.payload, bare.body)
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

interface Raw {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The bytes as sent: gzipped when the answer says so. */
  readonly body: Buffer
}

/** GET with exactly these headers (fetch adds Accept and Accept-Encoding of its own, and decodes gzip). */
const raw = (path: string, headers: Record<string, string> = {}): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, server.baseUrl)
    const req = httpRequest(url, { method: "GET", headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const flat: Record<string, string | undefined> = {}
        for (const [name, value] of Object.entries(res.headers)) flat[name] = Array.isArray(value) ? value.join(", ") : value
        resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

const titleOf = (html: string): string | undefined => html.match(/<title>([^<]*)<\/title>/)?.[1]

describe("an error answer of a page", () => {
  const problems = () => [
    { path: "/names/nobody-here", status: 404, title: "Name not found" },
    { path: `/agora/posts/${seeded.claim}`, status: 404, title: "Post not found" },
    { path: "/agora/polls/999999", status: 404, title: "Poll not found" },
    { path: "/tasks/999999", status: 404, title: "Task not found" },
    { path: "/online?window=5", status: 422, title: "Invalid parameters" },
    { path: "/agora?channel=NOT%20A%20CHANNEL", status: 422, title: "Invalid parameters" },
    { path: "/agora/posts/abc", status: 422, title: "Invalid parameters" },
    { path: "/no-such-page", status: 404, title: "Not found" }
  ]

  it("is a small HTML page for a browser: the same status, a title saying what went wrong, the detail and the way home", async () => {
    for (const { path, status, title } of problems()) {
      const program = await raw(path, { accept: "application/json" })
      const detail = (JSON.parse(program.body.toString("utf8")) as { detail: string }).detail
      const page = await raw(path, { accept: BROWSER })
      expect(page.status, path).toBe(status)
      expect(page.headers["content-type"], path).toBe("text/html; charset=utf-8")
      expect(page.headers["vary"], path).toMatch(/\bAccept\b/)
      expect(page.headers["content-security-policy"], path).toContain("default-src 'none'")
      expect(page.headers["cache-control"], path).toBe("no-store")
      const html = page.body.toString("utf8")
      expect(titleOf(html), path).toBe(title)
      expect(html, path).toContain(`<p class="problem-detail">${detail.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")}</p>`)
      expect(html, path).toContain('<a href="/">Go to the home page</a>')
      expect(html, path).toContain(`HTTP ${status}`)
    }
    // A 422 names each bad parameter.
    const bad = (await raw("/online?window=5&format=pdf", { accept: BROWSER })).body.toString("utf8")
    expect(bad).toMatch(/<li><strong>window<\/strong>: /)
    expect(bad).toMatch(/<li><strong>format<\/strong>: /)
  })

  it("escapes what the request put in the problem", async () => {
    const page = await raw(`/names/${encodeURIComponent("<script>alert(1)</script>")}`, { accept: BROWSER })
    expect(page.status).toBe(422)
    const html = page.body.toString("utf8")
    expect(html).not.toContain("<script>")
    expect(html).toContain("&lt;script&gt;")
  })

  it("stays the problem document, byte for byte, for every other client and for format=json or text", async () => {
    const expected = JSON.stringify({
      type: "urn:aics:error:name_not_found", title: "Not found", status: 404, code: "name_not_found", detail: "nobody-here is not claimed here"
    })
    for (const headers of [{} as Record<string, string>, { accept: "*/*" }, { accept: "application/json" }, { accept: "application/problem+json" }, { accept: "text/html, application/json" }, { accept: "text/html;q=0.5, application/json" }]) {
      const answer = await raw("/names/nobody-here", headers)
      expect(answer.status, JSON.stringify(headers)).toBe(404)
      expect(answer.headers["content-type"], JSON.stringify(headers)).toBe("application/problem+json")
      expect(answer.body.toString("utf8"), JSON.stringify(headers)).toBe(expected)
      expect(answer.headers["vary"]).toMatch(/\bAccept\b/)
    }
    for (const format of ["json", "text"]) {
      const answer = await raw(`/names/nobody-here?format=${format}`, { accept: BROWSER })
      expect(answer.headers["content-type"], format).toBe("application/problem+json")
      expect(answer.body.toString("utf8"), format).toBe(expected)
    }
    // An API route is no page: a browser reads its problem document as it is.
    const api = await raw("/v2/names/nobody-here", { accept: BROWSER })
    expect(api.status).toBe(404)
    expect(api.headers["content-type"]).toBe("application/problem+json")
    expect(api.headers["vary"]).toBeUndefined()
    // format=html asks for the page whatever Accept says.
    expect((await raw("/names/nobody-here?format=html")).headers["content-type"]).toBe("text/html; charset=utf-8")
  })
})

describe("a page refused for the requests budget (429)", () => {
  let limited: RunningServer
  let limitedDir: string
  beforeAll(async () => {
    limitedDir = await tempDataDir()
    limited = await startServer({ dataDir: limitedDir, env: { AICS_RATE_LIMITS: "on", AICS_LIMIT_REQUESTS_PER_MINUTE: "2", AICS_LIMIT_REFUSAL_DELAY_MS: "0" } })
  })
  afterAll(async () => {
    await limited?.stop()
    await removeDir(limitedDir)
  })

  it("reaches a browser as a page too, Retry-After kept, and a program as its problem document", async () => {
    const get = (address: string, accept: string) =>
      fetch(`${limited.baseUrl}/agora`, { headers: { accept, "x-forwarded-for": address } })
    for (const [address, accept, type] of [["203.0.113.9", BROWSER, "text/html; charset=utf-8"], ["203.0.113.10", "*/*", "application/problem+json"]] as const) {
      let refused: Response | undefined
      for (let i = 0; i < 5 && refused === undefined; i++) {
        const answer = await get(address, accept)
        if (answer.status === 429) refused = answer
        else await answer.arrayBuffer()
      }
      expect(refused?.headers.get("content-type"), address).toBe(type)
      expect(Number(refused?.headers.get("retry-after")), address).toBeGreaterThan(0)
      const body = await refused!.text()
      if (type.startsWith("text/html")) expect(titleOf(body)).toBe("Rate limited")
      else expect(JSON.parse(body)).toMatchObject({ status: 429, code: "rate_limited" })
    }
  })
})

describe("a page's validator and coding", () => {
  it("carries a strong ETag of its bytes and answers a matching If-None-Match with 304", async () => {
    const first = await raw("/agora", { "accept-encoding": "identity" })
    expect(first.status).toBe(200)
    expect(first.headers["content-encoding"]).toBeUndefined()
    const tag = first.headers["etag"]!
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    expect(first.headers["vary"]).toMatch(/Accept-Encoding/)
    expect(first.headers["cache-control"]).toBe("public, max-age=5")
    expect((await raw("/agora", { "accept-encoding": "identity" })).headers["etag"]).toBe(tag)

    for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
      const again = await raw("/agora", { "if-none-match": ifNoneMatch })
      expect(again.status, ifNoneMatch).toBe(304)
      expect(again.body.length, ifNoneMatch).toBe(0)
      expect(again.headers["etag"], ifNoneMatch).toBe(tag)
      expect(again.headers["cache-control"], ifNoneMatch).toBe("public, max-age=5")
    }
    expect((await raw("/agora", { "if-none-match": '"other"' })).status).toBe(200)

    // The page changes as the log grows, and so does its tag (once the post is in the projection).
    const more = postPayload("Another post moves the agora on.", "general")
    await entry(alice, "post", more.payload, more.body)
    let after = await raw("/agora", { "if-none-match": tag })
    for (let i = 0; i < 50 && after.status === 304; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      after = await raw("/agora", { "if-none-match": tag })
    }
    expect(after.status).toBe(200)
    expect(after.headers["etag"]).not.toBe(tag)
    expect(after.body.toString("utf8")).toContain("Another post moves the agora on.")
  })

  it("is gzipped for a client that takes gzip, under an ETag of its own", async () => {
    const plain = await raw("/directory", { "accept-encoding": "identity" })
    const zipped = await raw("/directory", { "accept-encoding": "gzip, deflate, br" })
    expect(zipped.status).toBe(200)
    expect(zipped.headers["content-encoding"]).toBe("gzip")
    expect(zipped.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(zipped.headers["vary"]).toMatch(/Accept-Encoding/)
    expect(Number(zipped.headers["content-length"])).toBe(zipped.body.length)
    expect(zipped.body.length).toBeLessThan(plain.body.length)
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true)
    expect(zipped.headers["etag"]).toBe(plain.headers["etag"]!.replace(/"$/, '-gzip"'))
    expect((await raw("/directory", { "accept-encoding": "gzip", "if-none-match": zipped.headers["etag"]! })).status).toBe(304)
    // gzip;q=0 declines it.
    expect((await raw("/directory", { "accept-encoding": "gzip;q=0" })).headers["content-encoding"]).toBeUndefined()
    // Every format of a page travels the same way.
    const json = await raw("/directory?format=json", { "accept-encoding": "gzip" })
    expect(json.headers["content-encoding"]).toBe("gzip")
    expect(JSON.parse(gunzipSync(json.body).toString("utf8"))).toMatchObject({ names: [{ name: "alice" }] })
  })

  it("leaves the API's answers as they were", async () => {
    const api = await raw("/v2/agora/posts", { "accept-encoding": "gzip" })
    expect(api.status).toBe(200)
    expect(api.headers["content-encoding"]).toBeUndefined()
    expect(api.headers["etag"]).toBeUndefined()
    // The router decodes the path before it matches: a percent-encoded /v2/ is the API still.
    const encoded = await raw("/%762/agora/posts", { "accept-encoding": "gzip" })
    expect(encoded.status).toBe(200)
    expect(encoded.headers["content-encoding"]).toBeUndefined()
    expect(encoded.headers["etag"]).toBeUndefined()
    const missing = await raw("/%762/names/nobody-here", { accept: BROWSER })
    expect(missing.status).toBe(404)
    expect(missing.headers["content-type"]).toMatch(/^application\/problem\+json/)
  })

  it("makes / ask every time (no-cache) and answer 304 while nothing moved, varying with Accept and Accept-Encoding", async () => {
    const home = await raw("/", { accept: BROWSER })
    expect(home.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(home.headers["cache-control"]).toBe("no-cache")
    expect(home.headers["vary"]).toBe("Accept, Accept-Encoding")
    // The checkpoint on / may move between two requests (a merge delay after the last write): ask again then.
    let tag = home.headers["etag"]!
    let again = await raw("/", { accept: BROWSER, "if-none-match": tag })
    for (let i = 0; i < 20 && again.status === 200; i++) {
      tag = again.headers["etag"]!
      await new Promise((resolve) => setTimeout(resolve, 200))
      again = await raw("/", { accept: BROWSER, "if-none-match": tag })
    }
    expect(again.status).toBe(304)
    expect(again.headers["etag"]).toBe(tag)
  })
})

describe("the site's icon", () => {
  it("answers /favicon.ico with a 32x32 ICO and /favicon.svg with the SVG every page links, cached for a week", async () => {
    const ico = await raw("/favicon.ico")
    expect(ico.status).toBe(200)
    expect(ico.headers["content-type"]).toBe("image/x-icon")
    expect(ico.headers["cache-control"]).toBe("public, max-age=604800")
    // ICONDIR: reserved 0, type 1 (icon), one image of 32 by 32 at 32 bits, right after the directory.
    expect([...ico.body.subarray(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 32, 32])
    expect(ico.body.readUInt16LE(12)).toBe(32)
    expect(ico.body.readUInt32LE(14)).toBe(ico.body.length - 22)
    expect(ico.body.readUInt32LE(18)).toBe(22)

    const svg = await raw("/favicon.svg")
    expect(svg.status).toBe(200)
    expect(svg.headers["content-type"]).toBe("image/svg+xml")
    expect(svg.body.toString("utf8")).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    for (const path of ["/", "/agora", `/agora/polls/${seeded.poll}`, "/talk-to-agents", "/no-such-page"]) {
      expect((await raw(path, { accept: BROWSER })).body.toString("utf8"), path).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">')
    }
  })
})

describe("page titles", () => {
  it("name the window of /online and the search of /directory", async () => {
    const titles: ReadonlyArray<readonly [string, string]> = [
      ["/online", "Online in the last 15 minutes"],
      ["/online?window=3600", "Online in the last hour"],
      ["/online?window=86400", "Online in the last 24 hours"],
      ["/online?window=90", "Online in the last 90 seconds"],
      ["/directory", "Directory"],
      ["/directory?q=", "Directory"],
      ["/directory?q=ali", "Directory: names matching “ali”"],
      ["/directory?q=%3Cb%3E", "Directory: names matching “&lt;b&gt;”"]
    ]
    for (const [path, title] of titles) {
      const html = (await raw(path)).body.toString("utf8")
      expect(titleOf(html), path).toBe(title)
      expect(html, path).toContain(`<h1>${title}</h1>`)
    }
  })
})

describe("a poll's page", () => {
  it("names its author as a post's page does, with the key beside the name", async () => {
    const html = (await raw(`/agora/polls/${seeded.poll}`)).body.toString("utf8")
    expect(html).toContain('<dt>by</dt><dd><a href="/names/alice"><strong>alice</strong></a></dd>')
    expect(html).toContain(`<dt>key</dt><dd><code>${alice.kid}</code></dd>`)
    const json = JSON.parse((await raw(`/agora/polls/${seeded.poll}?format=json`)).body.toString("utf8")) as { name: string | null; author: string }
    expect(json).toMatchObject({ name: "alice", author: alice.kid })
    expect((await raw(`/agora/polls/${seeded.poll}?format=text`)).body.toString("utf8")).toContain(`by alice (${alice.kid})`)

    // A key bound to no name is named by the key alone.
    const bare = (await raw(`/agora/polls/${seeded.barePoll}`)).body.toString("utf8")
    expect(bare).toContain(`<dt>by</dt><dd><code>${stranger.kid}</code></dd>`)
    expect(bare).not.toContain("<dt>key</dt>")
  })
})
