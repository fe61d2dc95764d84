// POST /v2/entries beside HttpApi (src/adapters/http/leanWriteRoute.ts): two copies of one
// log, one served with the lean routes on and one with them off, on the same port (the
// requests' signatures cover the authority), are sent the same request bytes, and answer
// alike byte for byte but for what the moment of writing decides (the Date line, and an
// accepted entry's `logged` time, its leaf hash, which hashes that time, and the signed
// receipts, which carry it): accepted posts (202 and Location), a replay, a wrong chain
// position, a body that is not JSON, a body over the limit, a request without a signature,
// a query the signature does not cover, and the requests that are HttpApi's (a trailing
// slash, another method). The receipts are checked with the log key, and their lines
// compared without their time.

import { cp, readFile } from "node:fs/promises"
import { connect } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_WRITE_REQUEST_BYTES } from "../../../src/app/EntryWrites.js"
import { makeAgent } from "../../support/agents.js"
import { signedPost, type SignedWrite } from "../../support/load.js"
import { openNote, parseVkey, unu64, type VerifierKey } from "../../support/outsideAgent.js"
import { freePort, removeDir, startServer, tempDataDir } from "../../support/server.js"

const ORIGIN = "lean-writes.test/aics"

let logDir: string
const copies: Array<string> = []

beforeAll(async () => {
  logDir = await tempDataDir()
  // The first start makes the keys, the charter and leaf 0.
  const first = await startServer({ dataDir: logDir, env: { AICS_ORIGIN: ORIGIN } })
  await first.stop()
}, 60_000)

afterAll(async () => {
  for (const dir of [logDir, ...copies]) if (dir !== undefined) await removeDir(dir)
})

interface RawRequest {
  readonly label: string
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** The whole answer to one request on a connection of its own, as text. */
const exchange = (port: number, request: RawRequest): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    const socket = connect({ host: "127.0.0.1", port }, () => {
      const head = Object.entries({ host: `127.0.0.1:${port}`, ...request.headers, "content-length": String(request.body.length), connection: "close" })
        .map(([name, value]) => `${name}: ${value}\r\n`).join("")
      socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${head}\r\n`)
      socket.write(request.body)
    })
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

const write = (label: string, signed: SignedWrite, path = "/v2/entries"): RawRequest =>
  ({ label, method: "POST", path, headers: signed.headers, body: signed.body })

/** The requests, signed for `authority`, in the order they are sent. */
const requestsFor = (authority: string): Array<RawRequest> => {
  const agent = makeAgent("lean-writer")
  const first = signedPost(agent, "first", { origin: ORIGIN, authority })
  const second = signedPost(agent, "second", { origin: ORIGIN, authority })
  const third = signedPost(agent, "third", { origin: ORIGIN, authority })
  // Another key whose first post is signed at seq 1 (its seq 0 never sent).
  const skipper = makeAgent("lean-skipper")
  signedPost(skipper, "never sent", { origin: ORIGIN, authority })
  const skipping = signedPost(skipper, "out of order", { origin: ORIGIN, authority })
  const json = { "content-type": "application/json" }
  return [
    write("an accepted post", first),
    write("the next post", second),
    write("the same request again", second),
    write("a query the signature does not cover", third, "/v2/entries?x=1"),
    write("a first post at seq 1", skipping),
    { label: "a body that is not JSON", method: "POST", path: "/v2/entries", headers: json, body: new TextEncoder().encode("{not json") },
    { label: "a body over the limit", method: "POST", path: "/v2/entries", headers: json, body: new Uint8Array(MAX_WRITE_REQUEST_BYTES + 1).fill(32) },
    { label: "no signature", method: "POST", path: "/v2/entries", headers: json, body: third.body },
    write("the third post, as signed", third),
    // HttpApi routes a trailing slash to the write route as well; the lean route leaves it to HttpApi.
    write("a trailing slash (HttpApi's)", third, "/v2/entries/"),
    { label: "another method (HttpApi's)", method: "PUT", path: "/v2/entries", headers: json, body: third.body }
  ]
}

interface Answer {
  readonly text: string
  /** The answer with the moment's values replaced, Date line removed. */
  readonly timeless: string
  /** The receipt's lines without its time and signature, if the answer has one. */
  readonly receipt: ReadonlyArray<string> | undefined
}

const answerOf = (text: string, vkey: VerifierKey): Answer => {
  const bodyAt = text.indexOf("\r\n\r\n") + 4
  let timeless = text.replace(/\r\nDate: [^\r]*/, "")
  let receipt: Array<string> | undefined
  const body = text.slice(bodyAt)
  if (body.startsWith("{")) {
    const json = JSON.parse(body) as { entry?: Record<string, unknown>; receipt_note?: string }
    const moments = [json.receipt_note, json.entry?.["logged"], json.entry?.["leaf_hash"]].filter((v) => v !== undefined).map(String)
    for (const moment of moments) timeless = timeless.replaceAll(moment, "<moment>")
    if (json.receipt_note !== undefined) {
      receipt = openNote(unu64(json.receipt_note)!, vkey).filter((line) => !/^(logged|at) \d+$/.test(line) && !line.startsWith("leaf "))
    }
  }
  return { text, timeless, receipt }
}

describe("POST /v2/entries beside HttpApi", () => {
  it("answers every request as HttpApi does, byte for byte but for the moment of writing", async () => {
    const port = await freePort()
    const requests = requestsFor(`127.0.0.1:${port}`)
    const answersWith = async (lean: "on" | "off") => {
      const dataDir = await tempDataDir()
      copies.push(dataDir)
      await cp(logDir, dataDir, { recursive: true })
      const server = await startServer({ dataDir, port, env: { AICS_ORIGIN: ORIGIN, AICS_LEAN_ROUTES: lean } })
      try {
        const vkey = parseVkey(await readFile(join(dataDir, "log.vkey"), "utf8"))
        const answers: Array<Answer> = []
        for (const request of requests) answers.push(answerOf(await exchange(port, request), vkey))
        return answers
      } finally {
        await server.stop()
      }
    }
    const lean = await answersWith("on")
    const api = await answersWith("off")
    requests.forEach(({ label }, i) => {
      expect(lean[i]!.timeless, label).toBe(api[i]!.timeless)
      expect(lean[i]!.receipt, label).toEqual(api[i]!.receipt)
    })
    // What was compared.
    const status = (i: number) => Number(lean[i]!.text.slice(9, 12))
    expect(requests.map((_, i) => status(i))).toEqual([202, 202, 409, 400, 409, 401, 413, 401, 202, 401, 404])
    expect(lean[0]!.text).toMatch(/\r\nlocation: \/v2\/entries\/1\r\n/)
    expect(lean[0]!.receipt).toEqual([ORIGIN, "receipt 1"])
    expect(lean[8]!.receipt).toEqual([ORIGIN, "receipt 3"])
    expect(lean[2]!.text).toContain("\"refused\":")
    expect(lean[6]!.text).toContain("\"refused\":\"entry_too_large\"")
    expect(lean[10]!.text).toContain("\"code\":\"not_found\"")
  }, 120_000)
})
