// GET /v2/stream beside HttpApi (src/adapters/http/leanStreamRoute.ts): the same service on
// the same log, started with the lean routes on and off (AICS_LEAN_ROUTES), answers alike,
// the Date line aside: a stream's head and first bytes, as they are and in gzip, with a
// filter and Last-Event-ID; what the route's schemas refuse (HttpApi's 422 either way, a
// repeated parameter included); HEAD; other methods and paths; the 429 past the
// per-address cap. The one difference is when the request is counted: the lean route has
// answered once the head is written (its fiber let go, the stream the hub's), HttpApi's
// handler when the stream ends.

import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parsePrometheus, total } from "../../support/prometheus.js"
import { freePort, removeDir, startServer, tempDataDir } from "../../support/server.js"

const ORIGIN = "lean-stream.test/aics"

let dataDir: string

beforeAll(async () => {
  dataDir = await tempDataDir()
  // First start: keys, charter, leaf 0.
  const first = await startServer({ dataDir, env: { AICS_ORIGIN: ORIGIN } })
  await first.stop()
}, 60_000)

afterAll(async () => {
  if (dataDir !== undefined) await removeDir(dataDir)
})

type Headers = Readonly<Record<string, string>>

const requestText = (port: number, method: string, path: string, headers: Headers, close: boolean) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
  Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
  (close ? "connection: close\r\n" : "") + "\r\n"

const withoutDate = (answer: string) => answer.replace(/\r\nDate: [^\r]*/, "")

/** The whole answer to one request on a connection of its own, as bytes, its Date line removed. */
const exchange = (port: number, method: string, path: string, headers: Headers = {}): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(requestText(port, method, path, headers, true)))
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => resolve(withoutDate(Buffer.concat(chunks).toString("latin1"))))
  })

/**
 * Opens a stream and answers its head and first chunk (the `retry` line, in gzip or not)
 * once both arrived, the socket still open.
 */
const openStream = (port: number, path: string, headers: Headers = {}): Promise<{ readonly start: string; readonly socket: Socket }> =>
  new Promise((resolve, reject) => {
    let received = Buffer.alloc(0)
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(requestText(port, "GET", path, headers, false)))
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk])
      const headEnd = received.indexOf("\r\n\r\n")
      if (headEnd < 0) return
      const body = received.subarray(headEnd + 4)
      const sizeEnd = body.indexOf("\r\n")
      if (sizeEnd < 0) return
      const size = parseInt(body.subarray(0, sizeEnd).toString("latin1"), 16)
      if (body.length < sizeEnd + 2 + size + 2) return
      resolve({ start: withoutDate(received.subarray(0, headEnd + 4 + sizeEnd + 2 + size + 2).toString("latin1")), socket })
    })
    socket.on("error", reject)
    socket.on("end", () => reject(new Error(`the stream ended: ${received.toString("latin1")}`)))
  })

const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Starts the service with `env` (and a metrics listener), runs `requests` against it, stops it. */
const answersWith = async <A>(env: Record<string, string>, requests: (port: number, metricsPort: number) => Promise<A>): Promise<A> => {
  const metricsPort = await freePort()
  const server = await startServer({ dataDir, env: { AICS_ORIGIN: ORIGIN, AICS_METRICS_PORT: String(metricsPort), ...env } })
  try {
    await until("the metrics listener", () => fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => (r.ok ? true : undefined), () => undefined))
    return await requests(server.port, metricsPort)
  } finally {
    await server.stop()
  }
}

const ANSWERED: ReadonlyArray<readonly [string, string, Headers?]> = [
  ["GET", "/v2/stream?type=nope"],
  ["GET", "/v2/stream?type=post&type=dm"],
  ["GET", "/v2/stream?from=007"],
  ["GET", "/v2/stream?from=-1"],
  ["GET", "/v2/stream?channel=Not%20a%20channel"],
  ["GET", "/v2/stream?to=did:key:nope"],
  ["GET", "/v2/stream", { "last-event-id": "abc" }],
  ["GET", "/v2/stream?from=3", { "last-event-id": "1", "Last-Event-ID": "2" }],
  ["HEAD", "/v2/stream"],
  ["HEAD", "/v2/stream?type=post", { "accept-encoding": "gzip" }],
  ["POST", "/v2/stream"],
  ["GET", "/v2/stream/more"]
]

const STREAMS: ReadonlyArray<readonly [string, Headers?]> = [
  ["/v2/stream"],
  ["/v2/stream", { "accept-encoding": "gzip, deflate" }],
  ["/v2/stream?type=post,dm&channel=general&from=0", { "last-event-id": "0" }],
  ["/v2/stream?unknown=1&to=did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"]
]

describe("GET /v2/stream beside HttpApi", () => {
  it("answers every request alike, and opens every stream with the same head and first bytes", async () => {
    const run = (port: number) => (async () => {
      const answers: Array<string> = []
      for (const [method, path, headers] of ANSWERED) answers.push(await exchange(port, method, path, headers))
      for (const [path, headers] of STREAMS) {
        const { start, socket } = await openStream(port, path, headers)
        socket.destroy()
        answers.push(start)
      }
      return answers
    })()
    const lean = await answersWith({ AICS_LEAN_ROUTES: "on" }, run)
    const api = await answersWith({ AICS_LEAN_ROUTES: "off" }, run)
    const names = [...ANSWERED.map(([method, path]) => `${method} ${path}`), ...STREAMS.map(([path]) => `GET ${path} (stream)`)]
    names.forEach((name, i) => expect(lean[i], name).toBe(api[i]))
    // What was compared: HttpApi's 422s, HEAD's head, the streams' heads and first chunks.
    for (let i = 0; i < 8; i++) expect(lean[i], names[i]).toMatch(/^HTTP\/1\.1 422 /)
    expect(lean[8]).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: text\/event-stream; charset=utf-8\r\n/)
    const [plain, gzip] = [lean[ANSWERED.length]!, lean[ANSWERED.length + 1]!]
    expect(plain).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Transfer-Encoding: chunked\r\n\r\nd\r\nretry: 2000\n\n\r\n$/)
    expect(gzip).toMatch(/\r\ncontent-encoding: gzip\r\n/)
  }, 120_000)

  it("refuses a stream past the address's cap with the same 429, and counts an open stream once its head is sent", async () => {
    const run = (port: number, metricsPort: number) => (async () => {
      const metrics = async () => parsePrometheus(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())
      const opened = (after: Awaited<ReturnType<typeof metrics>>, before: Awaited<ReturnType<typeof metrics>>) =>
        total(after, "aics_http_requests_total", { group: "other", status: "200" }) - total(before, "aics_http_requests_total", { group: "other", status: "200" })
      const before = await metrics()
      const { socket } = await openStream(port, "/v2/stream")
      // The metrics are read after the head arrived: a lean route has counted it by then.
      const countedWhileOpen = opened(await metrics(), before)
      const refusal = await exchange(port, "GET", "/v2/stream")
      socket.destroy()
      const countedAfter = await until("the stream counted", async () => {
        const moved = opened(await metrics(), before)
        return moved > 0 ? moved : undefined
      })
      return { refusal, countedWhileOpen, countedAfter }
    })()
    const env = { AICS_STREAMS_PER_ADDRESS: "1", AICS_LIMIT_REFUSAL_DELAY_MS: "0" }
    const lean = await answersWith({ ...env, AICS_LEAN_ROUTES: "on" }, run)
    const api = await answersWith({ ...env, AICS_LEAN_ROUTES: "off" }, run)
    expect(lean.refusal).toMatch(/^HTTP\/1\.1 429 /)
    expect(lean.refusal).toContain("\"code\":\"too_many_streams\"")
    expect(lean.refusal).toMatch(/\r\nretry-after: 10\r\n/)
    expect(lean.refusal).toBe(api.refusal)
    // The lean route answered at the head; HttpApi's handler when the stream ended.
    expect(lean).toMatchObject({ countedWhileOpen: 1, countedAfter: 1 })
    expect(api).toMatchObject({ countedWhileOpen: 0, countedAfter: 1 })
  }, 120_000)
})
