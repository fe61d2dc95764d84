// GET /v2/stream on the wire, against the real service: the events a dispatch shares are
// written to the socket as framed chunks (sseWire.ts), which must be exactly what Node
// would have sent. An HTTP/1.1 client reads well-formed chunks; an HTTP/1.0 client (no
// chunked coding) gets the events unframed; a stream asked for behind another request on
// the same connection (pipelining) starts only after that request's answer. A client that
// accepts gzip gets one gzip stream, whose pieces the dispatcher shares between subscribers,
// ended with a valid trailer when the service ends it.

import { connect } from "node:net"
import { constants, gunzipSync, inflateRawSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { presignPosts, sendInOrder } from "../../support/load.js"
import { pollUntil } from "../../support/poll.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { acceptsGzip } from "../../../src/adapters/http/sseWire.js"

let server: RunningServer | undefined
let dataDir: string | undefined

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
})

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
})

/** A raw connection that sent `request`: what came back so far, and a wait for more. */
const rawRequest = (request: string) => {
  const socket = connect(server!.port, "127.0.0.1")
  let received = ""
  socket.on("data", (chunk: Buffer) => { received += chunk.toString("latin1") })
  socket.write(request)
  return {
    until: async (what: string, done: (received: string) => boolean): Promise<string> => {
      await pollUntil(what, async () => (done(received) ? true : undefined), 20_000)
      return received
    },
    close: () => socket.destroy()
  }
}

/** Sends the raw request and collects what comes back until `done` says so (or a deadline). */
const exchange = async (request: string, done: (received: string) => boolean): Promise<string> => {
  const connection = rawRequest(request)
  try {
    return await connection.until("the stream's events", done)
  } finally {
    connection.close()
  }
}

/** Decodes a chunked body (RFC 9112 7.1), throwing on anything malformed; stops at an incomplete chunk. */
const dechunk = (body: string): string => {
  let out = ""
  let at = 0
  while (at < body.length) {
    const lineEnd = body.indexOf("\r\n", at)
    if (lineEnd < 0) break
    const size = body.slice(at, lineEnd)
    if (!/^[0-9a-f]+$/.test(size)) throw new Error(`not a chunk size: ${JSON.stringify(size.slice(0, 40))}`)
    const length = parseInt(size, 16)
    if (body.length < lineEnd + 2 + length + 2) break
    out += body.slice(lineEnd + 2, lineEnd + 2 + length)
    if (body.slice(lineEnd + 2 + length, lineEnd + 4 + length) !== "\r\n") throw new Error("a chunk not followed by CRLF")
    at = lineEnd + 4 + length
  }
  return out
}

const idsIn = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))

const bodyOf = (received: string) => received.slice(received.indexOf("\r\n\r\n") + 4)

/** The text of a gzip body received so far (its blocks end on sync flushes): the header checked, the rest inflated. */
const inflated = (body: string): string => {
  const bytes = Buffer.from(body, "latin1")
  if (bytes.length < 10) return ""
  expect([...bytes.subarray(0, 3)]).toEqual([0x1f, 0x8b, 0x08])
  return inflateRawSync(bytes.subarray(10), { finishFlush: constants.Z_SYNC_FLUSH }).toString("utf8")
}

describe("the live stream on the wire", () => {
  let first = 0
  let count = 0

  beforeAll(async () => {
    first = ((await (await fetch(`${server!.baseUrl}/healthz`)).json()) as { tree_size: number }).tree_size
    const results = await sendInOrder(server!.baseUrl, presignPosts({ keys: 3, perKey: 10, origin: "localhost/aics", authority: `127.0.0.1:${server!.port}`, label: "wire" }))
    expect(results.filter((r) => r.status !== 202)).toEqual([])
    count = results.length
  })

  it("HTTP/1.1: well-formed chunks holding every event", async () => {
    const host = `127.0.0.1:${server!.port}`
    const received = await exchange(`GET /v2/stream?from=${first} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      (text) => idsIn(text).at(-1) === first + count - 1)
    const [head, body] = [received.slice(0, received.indexOf("\r\n\r\n")), received.slice(received.indexOf("\r\n\r\n") + 4)]
    expect(head).toMatch(/^HTTP\/1\.1 200/)
    expect(head.toLowerCase()).toContain("transfer-encoding: chunked")
    const events = dechunk(body)
    expect(events.startsWith("retry: ")).toBe(true)
    expect(idsIn(events)).toEqual(Array.from({ length: count }, (_, i) => first + i))
  })

  it("HTTP/1.0: the events unframed", async () => {
    const received = await exchange(`GET /v2/stream?from=${first} HTTP/1.0\r\n\r\n`, (text) => idsIn(text).at(-1) === first + count - 1)
    const head = received.slice(0, received.indexOf("\r\n\r\n"))
    const body = received.slice(received.indexOf("\r\n\r\n") + 4)
    expect(head.toLowerCase()).not.toContain("transfer-encoding")
    expect(body.startsWith("retry: 2000\n\nevent: leaf\n")).toBe(true)
    expect(idsIn(body)).toEqual(Array.from({ length: count }, (_, i) => first + i))
  })

  it("pipelined behind another request: its answer first, then the stream", async () => {
    const host = `127.0.0.1:${server!.port}`
    const received = await exchange(
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\nGET /v2/stream?from=${first} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      (text) => idsIn(text).at(-1) === first + count - 1)
    const healthEnd = received.indexOf("\r\n\r\n")
    const healthHead = received.slice(0, healthEnd)
    expect(healthHead).toMatch(/^HTTP\/1\.1 200/)
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(healthHead)![1])
    const rest = received.slice(healthEnd + 4 + length)
    expect(rest).toMatch(/^HTTP\/1\.1 200/)
    expect(rest.toLowerCase()).toContain("content-type: text/event-stream")
    const events = dechunk(rest.slice(rest.indexOf("\r\n\r\n") + 4))
    expect(idsIn(events)).toEqual(Array.from({ length: count }, (_, i) => first + i))
  })
  it("live: subscribers at the head in HTTP/1.1 and HTTP/1.0 both get the next writes", async () => {
    const host = `127.0.0.1:${server!.port}`
    const chunked = rawRequest(`GET /v2/stream?type=post HTTP/1.1\r\nHost: ${host}\r\n\r\n`)
    const plain = rawRequest(`GET /v2/stream?type=post HTTP/1.0\r\n\r\n`)
    try {
      for (const c of [chunked, plain]) await c.until("the stream's head", (text) => text.includes("retry: "))
      const results = await sendInOrder(server!.baseUrl, presignPosts({ keys: 2, perKey: 5, origin: "localhost/aics", authority: host, label: "live" }))
      expect(results.filter((r) => r.status !== 202)).toEqual([])
      const written = results.map((r) => r.json!.entry["index"] as number).sort((a, b) => a - b)
      const last = written.at(-1)!
      const viaChunks = await chunked.until("the live events (HTTP/1.1)", (text) => idsIn(text).at(-1) === last)
      expect(idsIn(dechunk(viaChunks.slice(viaChunks.indexOf("\r\n\r\n") + 4)))).toEqual(written)
      const unframed = await plain.until("the live events (HTTP/1.0)", (text) => idsIn(text).at(-1) === last)
      expect(idsIn(unframed)).toEqual(written)
    } finally {
      chunked.close()
      plain.close()
    }
  })
})

describe("the live stream in gzip", () => {
  let first = 0
  let count = 0
  const gzipIds = (received: string) => idsIn(inflated(dechunk(bodyOf(received))))

  beforeAll(async () => {
    first = ((await (await fetch(`${server!.baseUrl}/healthz`)).json()) as { tree_size: number }).tree_size
    const results = await sendInOrder(server!.baseUrl, presignPosts({ keys: 2, perKey: 6, origin: "localhost/aics", authority: `127.0.0.1:${server!.port}`, label: "gzip" }))
    expect(results.filter((r) => r.status !== 202)).toEqual([])
    count = results.length
  })

  it("negotiates gzip from Accept-Encoding", () => {
    expect(acceptsGzip(undefined)).toBe(false)
    expect(acceptsGzip("identity")).toBe(false)
    expect(acceptsGzip("gzip, deflate, br")).toBe(true)
    expect(acceptsGzip("br;q=1.0, GZIP;q=0.5")).toBe(true)
    expect(acceptsGzip("gzip;q=0")).toBe(false)
    expect(acceptsGzip("*")).toBe(true)
    expect(acceptsGzip("*;q=0.1, gzip;q=0")).toBe(false)
    expect(acceptsGzip("x-gzip")).toBe(true)
  })

  it("HTTP/1.1 with gzip accepted: chunks of one gzip stream holding every event", async () => {
    const host = `127.0.0.1:${server!.port}`
    const received = await exchange(`GET /v2/stream?from=${first} HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: gzip\r\n\r\n`,
      (text) => text.includes("\r\n\r\n") && gzipIds(text).at(-1) === first + count - 1)
    const head = received.slice(0, received.indexOf("\r\n\r\n")).toLowerCase()
    expect(head).toContain("content-encoding: gzip")
    expect(head).toContain("vary: accept-encoding")
    const events = inflated(dechunk(bodyOf(received)))
    // The retry line first; a checkpoint published meanwhile may come before the first leaf.
    expect(events.startsWith("retry: 2000\n\nevent: ")).toBe(true)
    expect(idsIn(events)).toEqual(Array.from({ length: count }, (_, i) => first + i))
  })

  it("gzip refused (q=0): the events as they are", async () => {
    const host = `127.0.0.1:${server!.port}`
    const received = await exchange(`GET /v2/stream?from=${first} HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: gzip;q=0\r\n\r\n`,
      (text) => idsIn(text).at(-1) === first + count - 1)
    const head = received.slice(0, received.indexOf("\r\n\r\n")).toLowerCase()
    expect(head).not.toContain("content-encoding")
    expect(head).toContain("vary: accept-encoding")
    expect(idsIn(dechunk(bodyOf(received)))).toEqual(Array.from({ length: count }, (_, i) => first + i))
  })

  it("HTTP/1.0 with gzip accepted: the gzip stream unframed", async () => {
    const received = await exchange(`GET /v2/stream?from=${first} HTTP/1.0\r\nAccept-Encoding: gzip\r\n\r\n`,
      (text) => text.includes("\r\n\r\n") && idsIn(inflated(bodyOf(text))).at(-1) === first + count - 1)
    expect(idsIn(inflated(bodyOf(received)))).toEqual(Array.from({ length: count }, (_, i) => first + i))
  })

  it("live: subscribers in gzip and as they are get the same events from the same dispatches", async () => {
    const host = `127.0.0.1:${server!.port}`
    const zipped = [1, 2].map(() => rawRequest(`GET /v2/stream?type=post HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: gzip\r\n\r\n`))
    const plain = rawRequest(`GET /v2/stream?type=post HTTP/1.1\r\nHost: ${host}\r\n\r\n`)
    try {
      for (const z of zipped) await z.until("the gzip stream's head", (text) => text.includes("\r\n\r\n") && inflated(dechunk(bodyOf(text))).includes("retry: "))
      await plain.until("the stream's head", (text) => text.includes("retry: "))
      const results = await sendInOrder(server!.baseUrl, presignPosts({ keys: 3, perKey: 4, origin: "localhost/aics", authority: host, label: "gzip-live" }))
      expect(results.filter((r) => r.status !== 202)).toEqual([])
      const written = results.map((r) => r.json!.entry["index"] as number).sort((a, b) => a - b)
      for (const z of zipped) expect(gzipIds(await z.until("the live events (gzip)", (text) => gzipIds(text).at(-1) === written.at(-1)))).toEqual(written)
      expect(idsIn(dechunk(bodyOf(await plain.until("the live events", (text) => idsIn(text).at(-1) === written.at(-1)))))).toEqual(written)
    } finally {
      for (const z of zipped) z.close()
      plain.close()
    }
  })
})

describe("a gzip stream the service ends", () => {
  it("ends with the last event and a valid trailer (CRC-32 and length)", async () => {
    const dir = await tempDataDir()
    const own = await startServer({ dataDir: dir })
    try {
      const socket = connect(own.port, "127.0.0.1")
      let received = ""
      let closed = false
      socket.on("data", (chunk: Buffer) => { received += chunk.toString("latin1") })
      socket.on("close", () => { closed = true })
      socket.write(`GET /v2/stream HTTP/1.1\r\nHost: 127.0.0.1:${own.port}\r\nAccept-Encoding: gzip\r\n\r\n`)
      await pollUntil("the gzip stream's head", async () => (received.includes("\r\n\r\n") && inflated(dechunk(bodyOf(received))).includes("retry: ") ? true : undefined), 20_000)
      await own.stop()
      await pollUntil("the stream's end", async () => (closed || received.endsWith("0\r\n\r\n") ? true : undefined), 20_000)
      const whole = gunzipSync(Buffer.from(dechunk(bodyOf(received)), "latin1")).toString("utf8")
      expect(whole.startsWith("retry: 2000\n\n")).toBe(true)
      expect(whole).toMatch(/event: dropped\n/)
      expect(received.endsWith("0\r\n\r\n")).toBe(true)
      socket.destroy()
    } finally {
      await own.stop()
      await removeDir(dir)
    }
  }, 60_000)
})
