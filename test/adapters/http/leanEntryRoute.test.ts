// GET /v2/entries/{index} beside HttpApi (src/adapters/http/leanEntryRoute.ts): the same
// service on the same log, started with the lean route on and with it off
// (AICS_LEAN_ROUTES), answers every request byte for byte alike (the Date line aside):
// bundles with and without a body status, the query ignored, an index past the end (404),
// indexes the path schema refuses (422, HttpApi's own answer either way), HEAD, a longer
// path. And with the budgets on, the lean route spends the `requests` budget, sends the same
// RateLimit fields and the same 429, and counts each answer in the metrics as HttpApi's
// routes are counted, a client that leaves while its 429 is held included (429, not 499).

import { connect } from "node:net"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parsePrometheus, total } from "../../support/prometheus.js"
import { seedPosts } from "../../support/seedLog.js"
import { freePort, removeDir, startServer, tempDataDir } from "../../support/server.js"

const ORIGIN = "lean-entries.test/aics"
const SEEDED = 20

let dataDir: string

beforeAll(async () => {
  dataDir = await tempDataDir()
  // First start: keys, charter, leaf 0; then posts seeded while it is stopped.
  const first = await startServer({ dataDir, env: { AICS_ORIGIN: ORIGIN } })
  await first.stop()
  await Effect.runPromise(seedPosts(dataDir, ORIGIN, SEEDED))
}, 60_000)

afterAll(async () => {
  if (dataDir !== undefined) await removeDir(dataDir)
})

/** The whole answer to one request on a connection of its own, as bytes, its Date line removed. */
const exchange = (port: number, method: string, path: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`)
    })
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1").replace(/\r\nDate: [^\r]*/, "")))
  })

/** Sends one request on a connection of its own and closes it after `ms`, answered or not. */
const abandon = (port: number, path: string, ms: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`)
      setTimeout(() => socket.destroy(), ms)
    })
    socket.on("error", reject)
    socket.on("close", () => resolve())
  })

/** The log's size once the publisher covers every seeded leaf. */
const awaitPublished = async (baseUrl: string) => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const response = await fetch(`${baseUrl}/healthz`)
    const health = response.ok ? await response.json() as { tiles: { published_size: number } } : undefined
    if (health?.tiles.published_size === SEEDED + 1) return
    if (Date.now() > deadline) throw new Error(`published ${health?.tiles.published_size} of ${SEEDED + 1} (${response.status})`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Starts the service with `env`, runs `requests` against it in order, stops it. */
const answersWith = async <A>(env: Record<string, string>, requests: (port: number) => Promise<A>): Promise<A> => {
  const server = await startServer({ dataDir, env: { AICS_ORIGIN: ORIGIN, ...env } })
  try {
    await awaitPublished(server.baseUrl)
    return await requests(server.port)
  } finally {
    await server.stop()
  }
}

const REQUESTS: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/v2/entries/0"],
  ["GET", "/v2/entries/1"],
  ["GET", `/v2/entries/${SEEDED}`],
  ["GET", "/v2/entries/7?x=1&index=3"],
  ["GET", `/v2/entries/${SEEDED + 1}`],
  ["GET", "/v2/entries/9007199254740991"],
  ["GET", "/v2/entries/9007199254740992"],
  ["GET", "/v2/entries/007"],
  ["GET", "/v2/entries/-1"],
  ["GET", "/v2/entries/%37"],
  ["GET", "/v2/entries/7/"],
  ["GET", "/v2/entries/"],
  ["HEAD", "/v2/entries/7"],
  ["POST", "/v2/entries/7"]
]

describe("GET /v2/entries/{index} beside HttpApi", () => {
  it("answers every request byte for byte as HttpApi does", async () => {
    const run = (port: number) => Effect.runPromise(Effect.forEach(REQUESTS, ([method, path]) => Effect.promise(() => exchange(port, method, path))))
    const lean = await answersWith({ AICS_LEAN_ROUTES: "on" }, run)
    const api = await answersWith({ AICS_LEAN_ROUTES: "off" }, run)
    REQUESTS.forEach(([method, path], i) => expect(lean[i], `${method} ${path}`).toBe(api[i]))
    // What was compared: bundles with their body status, a 404, HttpApi's 422s.
    expect(lean[1]).toMatch(/^HTTP\/1\.1 200 OK\r\nx-aics-body-status: available\r\ncontent-type: application\/json\r\n/)
    expect(lean[1]).toContain("\"inclusion_proof\":[")
    expect(lean[3]).toContain("\"index\":7,")
    expect(lean[4]).toMatch(/^HTTP\/1\.1 404 /)
    expect(lean[4]).toContain("\"code\":\"entry_not_found\"")
    expect(lean[6]).toMatch(/^HTTP\/1\.1 422 /)
    expect(lean[7]).toMatch(/^HTTP\/1\.1 422 /)
  }, 120_000)

  it("spends the requests budget, sends its RateLimit fields and 429, and counts each answer, as HttpApi's routes do", async () => {
    const budgets = {
      AICS_RATE_LIMITS: "on",
      // Loopback is then a client like any other, with its own budgets.
      AICS_TRUSTED_PROXIES: "10.0.0.0/8",
      AICS_LIMIT_REQUESTS_PER_MINUTE: "30",
      AICS_LIMIT_REFUSAL_DELAY_MS: "0"
    }
    const run = async (port: number, metricsPort: number) => {
      const before = parsePrometheus(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())
      const answers: Array<string> = []
      // Until the budget is spent (the reads of /healthz before spent some of it).
      for (let i = 0; i < 40 && !answers.at(-1)?.startsWith("HTTP/1.1 429"); i++) answers.push(await exchange(port, "GET", "/v2/entries/3"))
      const after = parsePrometheus(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())
      const moved = (status: string) =>
        total(after, "aics_http_requests_total", { group: "entries", status }) - total(before, "aics_http_requests_total", { group: "entries", status })
      return { answers, counted: { ok: moved("200"), refused: moved("429") } }
    }
    const withMetrics = async (lean: string) => {
      const metricsPort = await freePort()
      return answersWith({ ...budgets, AICS_LEAN_ROUTES: lean, AICS_METRICS_PORT: String(metricsPort) }, async (port) => {
        const deadline = Date.now() + 10_000
        while (!(await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.ok, () => false))) {
          if (Date.now() > deadline) throw new Error("no metrics listener")
          await new Promise((r) => setTimeout(r, 50))
        }
        return run(port, metricsPort)
      })
    }
    const lean = await withMetrics("on")
    const api = await withMetrics("off")
    const refusal = lean.answers.at(-1)!
    expect(refusal).toMatch(/^HTTP\/1\.1 429 /)
    expect(refusal).toContain("\"code\":\"rate_limited\"")
    expect(refusal).toMatch(/\r\nretry-after: \d+\r\n/)
    const admittedAnswer = lean.answers[0]!
    expect(admittedAnswer).toMatch(/^HTTP\/1\.1 200 /)
    expect(admittedAnswer).toMatch(/\r\nratelimit-policy: "requests";q=30;w=60\r\n/)
    expect(admittedAnswer).toMatch(/\r\nratelimit: "requests";r=\d+;t=\d+\r\n/)
    // What is left of the budget and the seconds to wait depend on how many reads of
    // /healthz the start took and on timing; everything else is the same.
    const untimed = (answer: string) =>
      answer.replace(/r=\d+;t=\d+/g, "r=_;t=_").replace(/retry-after: \d+/, "retry-after: _").replace(/retry in \d+ s/, "retry in _ s")
    expect(untimed(lean.answers[0]!)).toBe(untimed(api.answers[0]!))
    expect(untimed(refusal)).toBe(untimed(api.answers.at(-1)!))
    expect(lean.counted).toEqual({ ok: lean.answers.length - 1, refused: 1 })
    expect(api.counted).toEqual({ ok: api.answers.length - 1, refused: 1 })
  }, 120_000)

  it("counts a client that leaves while its 429 is held as refused, as HttpApi's routes do", async () => {
    const DELAY_MS = 600
    const run = async (lean: string) => {
      const metricsPort = String(await freePort())
      return answersWith({
        AICS_RATE_LIMITS: "on",
        AICS_TRUSTED_PROXIES: "10.0.0.0/8",
        AICS_LIMIT_REQUESTS_PER_MINUTE: "5",
        AICS_LIMIT_REFUSAL_DELAY_MS: String(DELAY_MS),
        AICS_LEAN_ROUTES: lean,
        AICS_METRICS_PORT: metricsPort
      }, async (port) => {
        const metrics = async () => parsePrometheus(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())
        // Spend the budget, then ask once more and leave before the held 429 is sent.
        for (let i = 0; i < 10; i++) await exchange(port, "GET", "/v2/entries/3")
        const before = await metrics()
        await abandon(port, "/v2/entries/3", 100)
        const moved = async () => {
          const after = await metrics()
          const of = (status: string) => total(after, "aics_http_requests_total", { group: "entries", status }) - total(before, "aics_http_requests_total", { group: "entries", status })
          return { refused: of("429"), left: of("499") }
        }
        const deadline = Date.now() + 10_000
        let counted = await moved()
        while (counted.refused + counted.left === 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50))
          counted = await moved()
        }
        return counted
      })
    }
    expect(await run("off")).toEqual({ refused: 1, left: 0 })
    expect(await run("on")).toEqual({ refused: 1, left: 0 })
  }, 120_000)
})
