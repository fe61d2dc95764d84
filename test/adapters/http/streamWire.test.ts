// GET /v2/stream on the wire, against the real service: the events a dispatch shares are
// written to the socket as framed chunks (sseWire.ts), which must be exactly what Node
// would have sent. An HTTP/1.1 client reads well-formed chunks; an HTTP/1.0 client (no
// chunked coding) gets the events unframed; a stream asked for behind another request on
// the same connection (pipelining) starts only after that request's answer.

import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { presignPosts, sendInOrder } from "../../support/load.js"
import { pollUntil } from "../../support/poll.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

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
