// `aics watch --json` against a harness serving /v2/stream: each event of the stream (a leaf,
// a checkpoint, a second one proved consistent with it, a `dropped`, a connection refused for
// now, the resumption) is printed as one JSON object per line, in snake_case as the
// service's own stream events and every other --json answer (watchEventJson, watch.ts); a
// checkpoint's root in B64 as its note and the stream have it (`root_hash`) and in hex, as
// verify's report gives them (rootHashJson). The CLI runs in process (cli.ts main).
// A checkpoint that does not extend the last one ends the watch: a rewrite when the tiles it
// signs give another root at the last size, the service's error when its tiles do not hash
// to it (they show nothing either way). A check whose fetches fail on the network (a node
// behind a load balancer died) is tried again, as the stream is, said once: no event lost
// or repeated.

import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fromUtf8, toHex } from "../../src/domain/bytes.js"
import { encodeB64 } from "../../src/domain/encoding.js"
import { main } from "../../src/client/cli.js"
import { watchEventJson } from "../../src/client/watch.js"
import { harnessLog } from "../support/harnessLog.js"

const log = harnessLog("watch.example/log", "watched")
const KID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
const leaf = (index: number) => ({ index, type: "post", kid: KID, seq: index, logged: 1_760_000_000_000 + index, payload: { channel: "general", body_hash: "x", size: 1 } })
const sse = (event: string, data: unknown, id?: number) => `event: ${event}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`
const checkpoint = (size: number) => sse("checkpoint", { size, root_hash: encodeB64(log.root(size)), note: fromUtf8(log.note(size)) })

let server: Server
let baseUrl: string
/** The Last-Event-ID of each connection the watcher opened (null: none). */
const connections: Array<string | null> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://x").pathname !== "/v2/stream") {
      response.writeHead(404).end()
      return
    }
    const lastEventId = request.headers["last-event-id"]
    connections.push(typeof lastEventId === "string" ? lastEventId : null)
    switch (connections.length) {
      case 1:
        // A leaf, the checkpoint covering it and a later one of the same size, then dropped.
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end("retry: 2000\n\n" + sse("leaf", leaf(3), 3) + checkpoint(5) + checkpoint(5) +
          sse("dropped", { reason: "the consumer stopped reading", resume_from: 5, last_event_id: 4 }))
        return
      case 2:
        // Busy for now: said once, tried again.
        response.writeHead(503, { "retry-after": "1", "content-type": "application/problem+json" }).end(JSON.stringify({ code: "busy" }))
        return
      default:
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end(sse("leaf", leaf(5), 5))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** Every member name in a JSON value, at any depth (a leaf's payload is the log's own: left out). */
const memberNames = (value: unknown): Array<string> => {
  if (Array.isArray(value)) return value.flatMap(memberNames)
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([name, v]) => [name, ...(name === "payload" ? [] : memberNames(v))])
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/

/** A second harness: a stream of the log's checkpoint of size 5, then `next`'s of size 9, and the tiles of `next` (spoilt: one byte flipped in each). */
let next: { log: typeof log; spoiltTiles: boolean } = { log, spoiltTiles: false }
let rewriteServer: Server
let rewriteUrl: string

beforeAll(async () => {
  rewriteServer = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname
    if (path === "/v2/stream") {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.end(checkpoint(5) + sse("checkpoint", { size: 9, root_hash: encodeB64(next.log.root(9)), note: fromUtf8(next.log.note(9)) }))
      return
    }
    const tile = path.startsWith("/tiles/") ? next.log.tile(path.slice("/tiles/".length)) : undefined
    if (tile === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(next.spoiltTiles ? tile.map((byte, i) => (i === 0 ? byte ^ 1 : byte)) : tile)
  })
  await new Promise<void>((resolve) => rewriteServer.listen(0, "127.0.0.1", resolve))
  const address = rewriteServer.address()
  rewriteUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})

afterAll(async () => {
  rewriteServer.closeAllConnections()
  await new Promise((resolve) => rewriteServer.close(resolve))
})

const watchUntilError = async () => {
  let out = ""
  let err = ""
  const code = await main(["watch", "--server", rewriteUrl, "--vkey", log.vkey], {}, { out: (text) => { out += text }, err: (text) => { err += text } })
  return { code, out, err }
}

describe("aics watch, a checkpoint that does not extend the last one", () => {
  it("ends the watch as a rewrite when the tiles the new checkpoint signs give another root at the last size", async () => {
    const forked = harnessLog("watch.example/log", "forked")
    next = { log: forked, spoiltTiles: false }
    const run = await watchUntilError()
    expect(run.code).toBe(1)
    expect(run.out).toBe(`checkpoint size 5 root ${encodeB64(log.root(5))}: signature ok\n`)
    expect(run.err).toBe(`error (verification): the checkpoint of size 9 does not extend the one of size 5: the log was rewritten (the tiles it signs give the root ${encodeB64(forked.root(5))} at size 5)\n`)
  }, 20_000)

  it("ends the watch with the service's error, not a rewrite, when the tiles do not hash to the new checkpoint", async () => {
    next = { log, spoiltTiles: true }
    const run = await watchUntilError()
    expect(run.code).toBe(1)
    expect(run.err).toBe("error (protocol): the tiles do not hash to the stream's checkpoint of size 9: they show nothing of its consistency with the one of size 5\n")
  }, 20_000)
})

/**
 * A third harness, a node dying under a watcher behind a load balancer: the first stream
 * connection sends a leaf and two checkpoints, then is cut; the check of the second fetches
 * a partial tile the balancer answers 404 for and /checkpoint, which is cut (the node behind
 * it is gone); the tiles answer once more. The next stream connection resends the
 * checkpoint and then the next leaf.
 */
let cutServer: Server
let cutUrl: string
const cutConnections: Array<string | null> = []
let tileRequests = 0

beforeAll(async () => {
  cutServer = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname
    if (path === "/v2/stream") {
      const lastEventId = request.headers["last-event-id"]
      cutConnections.push(typeof lastEventId === "string" ? lastEventId : null)
      response.writeHead(200, { "content-type": "text/event-stream" })
      if (cutConnections.length === 1) response.write(sse("leaf", leaf(3), 3) + checkpoint(5) + checkpoint(9), () => response.socket?.destroy())
      else response.end(checkpoint(9) + sse("leaf", leaf(9), 9))
      return
    }
    if (path === "/checkpoint") {
      request.socket.destroy()
      return
    }
    const tile = path.startsWith("/tiles/") && ++tileRequests > 1 ? log.tile(path.slice("/tiles/".length)) : undefined
    if (tile === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(tile)
  })
  await new Promise<void>((resolve) => cutServer.listen(0, "127.0.0.1", resolve))
  const address = cutServer.address()
  cutUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})

afterAll(async () => {
  cutServer.closeAllConnections()
  await new Promise((resolve) => cutServer.close(resolve))
})

describe("aics watch, a checkpoint's check cut off by a node that died", () => {
  it("tries the check again as it tries the stream, said once, and tells every event of the stream once", async () => {
    let out = ""
    let err = ""
    const code = await main(["watch", "--json", "--count", "2", "--server", cutUrl, "--vkey", log.vkey], {}, {
      out: (text) => { out += text },
      err: (text) => { err += text }
    })
    expect([code, err]).toEqual([0, ""])
    const events = out.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    const root = (size: number) => ({ root_hash: encodeB64(log.root(size)), root_hash_hex: toHex(log.root(size)) })
    expect(events).toEqual([
      { kind: "leaf", index: 3, type: "post", kid: KID, logged: leaf(3).logged, payload: leaf(3).payload },
      { kind: "checkpoint", size: 5, ...root(5), consistent_with: null },
      // The check's /checkpoint was cut: one outage, with the stream's own cut after it.
      { kind: "retrying", reason: expect.stringMatching(/^GET http:\/\/127\.0\.0\.1:\d+\/checkpoint failed: /), in_ms: 2000 },
      { kind: "checkpoint", size: 9, ...root(9), consistent_with: 5 },
      { kind: "reconnected", last_event_id: 8 },
      // The new connection's own event: a stream sends its latest checkpoint on every connection.
      { kind: "checkpoint", size: 9, ...root(9), consistent_with: 9 },
      { kind: "leaf", index: 9, type: "post", kid: KID, logged: leaf(9).logged, payload: leaf(9).payload }
    ])
    expect(cutConnections).toEqual([null, "8"])
  }, 20_000)
})

describe("aics watch --json", () => {
  it("prints each event as one snake_case object per line, a checkpoint's root in U64 and B64", async () => {
    let out = ""
    let err = ""
    const code = await main(["watch", "--json", "--count", "2", "--server", baseUrl, "--vkey", log.vkey], {}, {
      out: (text) => { out += text },
      err: (text) => { err += text }
    })
    expect([code, err]).toEqual([0, ""])
    const events = out.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(events.flatMap(memberNames).filter((name) => !SNAKE.test(name))).toEqual([])
    const root = log.root(5)
    expect(events).toEqual([
      { kind: "leaf", index: 3, type: "post", kid: KID, logged: leaf(3).logged, payload: leaf(3).payload },
      { kind: "checkpoint", size: 5, root_hash: encodeB64(root), root_hash_hex: toHex(root), consistent_with: null },
      { kind: "checkpoint", size: 5, root_hash: encodeB64(root), root_hash_hex: toHex(root), consistent_with: 5 },
      { kind: "dropped", reason: "the consumer stopped reading", resume_from: 5 },
      { kind: "retrying", reason: expect.stringContaining("503"), in_ms: 2000 },
      { kind: "reconnected", last_event_id: 4 },
      { kind: "leaf", index: 5, type: "post", kid: KID, logged: leaf(5).logged, payload: leaf(5).payload }
    ])
    // Resumed after the last position the stream had shown (the checkpoint's size), once the 503 had passed.
    expect(connections).toEqual([null, "4", "4"])
  }, 20_000)

  it("says in its help that a leaf line is the service's unchecked notification, and what proves the leaf", async () => {
    let out = ""
    expect(await main(["help", "watch"], {}, { out: (text) => { out += text }, err: () => undefined })).toBe(0)
    expect(out.replace(/\s+/g, " ")).toContain(`A leaf line is the service's notification and is not checked: "aics get <index>" proves the leaf`)
  })

  it("gives a resumption before any leaf as last_event_id null, never leaving the member out", () => {
    expect(watchEventJson({ kind: "reconnected", lastEventId: undefined })).toEqual({ kind: "reconnected", last_event_id: null })
    expect(JSON.parse(JSON.stringify(watchEventJson({ kind: "reconnected", lastEventId: undefined })))).toEqual({ kind: "reconnected", last_event_id: null })
  })
})
