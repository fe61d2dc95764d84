// Edges of fair admission (issue 13 items 1 and 7; docs/protocol.md 19.1), on the real
// service driven from several loopback addresses:
//   - a 429 of the `requests` budget, answered before any route, is counted like every
//     other answer (aics_http_requests_total and the owner's statistics share the counter);
//   - every answer carries that budget's RateLimit fields, not only its 429 (HttpApi's app
//     sends its answer before the middleware sees it: admission.ts);
//   - the `gate_sessions` budget is what the card says it is: a session over GET /t that
//     only reads costs none, and one left holding a challenge costs one.

import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Ed25519Key } from "../../support/outsideOwner.js"
import { parsePrometheus, total, type Scrape } from "../../support/prometheus.js"
import { pollUntil } from "../../support/poll.js"
import { freePort, removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const REQUESTS_PER_MINUTE = 40
const GATE_SESSIONS_PER_HOUR = 5

let server: RunningServer
let metricsUrl: string

beforeAll(async () => {
  const metricsPort = await freePort()
  server = await startServer({
    dataDir: await tempDataDir(),
    env: {
      AICS_RATE_LIMITS: "on",
      AICS_TRUSTED_PROXIES: "127.0.0.1/32",
      AICS_LIMIT_REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE),
      AICS_LIMIT_GATE_SESSIONS_PER_HOUR: String(GATE_SESSIONS_PER_HOUR),
      AICS_LIMIT_GATE_LINES_PER_MINUTE: "1000",
      AICS_LIMIT_REFUSAL_DELAY_MS: "0",
      AICS_METRICS_PORT: String(metricsPort)
    }
  })
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  await pollUntil("the metrics listener", async () => (server.output().includes("metrics listening") ? true : undefined), 10_000)
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

/** A GET from `localAddress`: its status, headers and text. */
const getFrom = (path: string, localAddress: string) =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; text: string }>((resolve, reject) => {
    const req = httpRequest(new URL(path, server.baseUrl), { localAddress, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }))
    })
    req.on("error", reject)
    req.end()
  })

const scrape = async (): Promise<Scrape> => parsePrometheus(await (await fetch(metricsUrl)).text())

describe("fair admission's edges", () => {
  it("counts the 429s of the requests budget in aics_http_requests_total", async () => {
    const before = total(await scrape(), "aics_http_requests_total", { status: "429" })
    const statuses: Array<number> = []
    for (let i = 0; i < REQUESTS_PER_MINUTE + 6; i++) statuses.push((await getFrom("/healthz", "127.0.0.21")).status)
    const refused = statuses.filter((s) => s === 429).length
    expect(refused).toBeGreaterThanOrEqual(6)
    expect(statuses.filter((s) => s === 200).length + refused).toBe(statuses.length)
    // Counted as each answer goes out: the scrape after the last one sees them all.
    expect(total(await scrape(), "aics_http_requests_total", { status: "429" }) - before).toBe(refused)
  })

  it("sends the requests budget's RateLimit fields on every answer, not only on its 429", async () => {
    // Routes of HttpApi, whose app sends its answer itself, and the lean GET /v2/entries/{index}.
    for (const path of ["/checkpoint", "/v2/directory?q=abc", "/no/such/route", "/v2/entries/0"]) {
      const answer = await getFrom(path, "127.0.0.24")
      expect(answer.status, path).not.toBe(429)
      expect(answer.headers["ratelimit-policy"], path).toBe(`"requests";q=${REQUESTS_PER_MINUTE};w=60`)
      expect(answer.headers["ratelimit"], path).toMatch(/^"requests";r=\d+;t=\d+$/)
    }
    const remaining = Number(/r=(\d+)/.exec(String((await getFrom("/checkpoint", "127.0.0.24")).headers["ratelimit"]))![1])
    expect(remaining).toBeLessThan(REQUESTS_PER_MINUTE - 4)
  })

  it("spends gate_sessions only on a session kept holding something: reads over GET /t cost none", async () => {
    const address = "127.0.0.22"
    // Twice the budget of read-only sessions (each GET without s opens one): all answered.
    for (let i = 0; i < 2 * GATE_SESSIONS_PER_HOUR; i++) {
      const read = await getFrom("/t?l=whoami", address)
      expect(read.status, read.text).toBe(200)
      expect(read.text).toContain("ok anonymous")
    }
    // Sessions left holding a challenge: the budget's worth, then 429.
    for (let i = 0; i < GATE_SESSIONS_PER_HOUR; i++) {
      const held = await getFrom(`/t?l=${encodeURIComponent(`identify ${Ed25519Key.random().kid}`)}`, address)
      expect(held.status, held.text).toBe(200)
      expect(held.text).toMatch(/^session /)
    }
    const refused = await getFrom(`/t?l=${encodeURIComponent(`identify ${Ed25519Key.random().kid}`)}`, address)
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.text).detail).toContain("gate_sessions")
    // The card says so.
    const card = JSON.parse((await getFrom("/.well-known/aics-card.json", "127.0.0.23")).text)
    const what = card.limits.budgets.find((b: { name: string }) => b.name === "gate_sessions").what as string
    expect(what).toContain("one that only reads costs none")
  })
})
