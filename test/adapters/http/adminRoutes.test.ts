// The owner routes through the real server: for every route, unsigned is 401, signed by
// another key is 403 (not_owner), and signed by the owner key is 201 with a receipt, the
// leaf then being in the log. The owner key is the one the first start wrote to owner.key.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { MAX_ADMIN_REQUEST_BYTES } from "../../../src/app/AdminWrites.js"
import { DOCUMENT_LIMIT } from "../../../src/domain/entries/entryRule.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { makeAgent, postPayload, type TestAgent } from "../../support/agents.js"
import { ownerOf, sendEntry } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
let dataDir: string
let server: RunningServer
let owner: TestAgent
let poster: TestAgent
let postIndex: number

/** POSTs the envelope of `signer` for `type` to the path, signed (or not) by `signer`. */
const send = (path: string, signer: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null, signed = true) =>
  sendEntry(server, ORIGIN, path, signer, type, payload, body, signed)

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  owner = await ownerOf(server)
  poster = makeAgent(`admin poster ${Date.now()}`)
  const post = postPayload("a post the owner will act on")
  const written = await send("/v2/entries", poster, "post", post.payload, post.body)
  expect(written.status).toBe(202)
  postIndex = written.json.entry["index"]
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const now = () => Math.floor(Date.now() / 1000)
const document = utf8("# A policy change\n\nPosts are kept forever.\n")
const taskText = utf8("Write a verifier in another language.")
const report = utf8("# Incident audit\n\nNothing was lost.\n")

const ROUTES: ReadonlyArray<{ path: string; type: string; payload: () => Record<string, unknown>; body: Uint8Array | null }> = [
  { path: "/v2/admin/tombstones", type: "tombstone", payload: () => ({ target_index: postIndex, reason_code: "spam" }), body: null },
  { path: "/v2/admin/suspensions", type: "suspension", payload: () => ({ subject: poster.kid, order: encodeU64(nodeCrypto.sha256(utf8("order 1"))) }), body: null },
  { path: "/v2/admin/audits", type: "report", payload: () => ({ kind: "audit", subject: "incident", report_hash: encodeU64(nodeCrypto.sha256(report)) }), body: report },
  {
    path: "/v2/admin/policy", type: "policy",
    payload: () => ({ kind: "change", document_hash: encodeU64(nodeCrypto.sha256(document)), size: document.length, not_before: now() + 40 * 86_400 }),
    body: document
  },
  {
    path: "/v2/admin/tasks", type: "task",
    payload: () => ({ body_hash: encodeU64(nodeCrypto.sha256(taskText)), size: taskText.length, reward: 5, closes: now() + 86_400 }),
    body: taskText
  },
  { path: "/v2/admin/actions", type: "action.quote", payload: () => ({ request_index: postIndex, amount: 3 }), body: null },
  { path: "/v2/admin/freeze", type: "freeze", payload: () => ({ state: "frozen" }), body: null }
]

describe("owner routes", () => {
  for (const route of ROUTES) {
    it(`${route.path}: unsigned 401, another key 403, the owner 201`, async () => {
      const stranger = makeAgent(`stranger ${route.path} ${Date.now()}`)
      const unsigned = await send(route.path, owner, route.type, route.payload(), route.body, false)
      expect(unsigned.status).toBe(401)
      expect(unsigned.json.entry["refused"]).toBe("signature_missing")
      const other = await send(route.path, stranger, route.type, route.payload(), route.body)
      expect(other.status).toBe(403)
      expect(other.json.entry["refused"]).toBe("not_owner")
      const done = await send(route.path, owner, route.type, route.payload(), route.body)
      expect(done.status, JSON.stringify(done.json)).toBe(201)
      expect(done.location).toBe(`/v2/entries/${done.json.entry["index"]}`)
      expect(done.json.entry["type"]).toBe(route.type)
      expect(done.json.entry["kid"]).toBe(owner.kid)
    })
  }

  it("hides a tombstoned body (410 with its reason) while its leaf stays", async () => {
    const post = postPayload("a post the owner will act on")
    const body = await fetch(`${server.baseUrl}/v2/bodies/${post.payload.body_hash}`)
    expect(body.status).toBe(410)
    const gone = await body.json() as Record<string, unknown>
    expect(gone["state"]).toBe("tombstoned")
    expect(gone["reason_code"]).toBe("spam")
    const entry = await fetch(`${server.baseUrl}/v2/entries/${postIndex}`)
    expect(entry.status).toBe(200)
    expect(entry.headers.get("x-aics-body-status")).toMatch(/^tombstoned;tombstone_index=\d+;reason_code=spam$/)
    expect((await entry.json() as Record<string, unknown>)["body_or_ct"]).toBeNull()
  })

  it("takes an owner's document of up to 1 MiB, served byte for byte at /v2/bodies; larger is 413", async () => {
    const document = (length: number) => {
      const bytes = new Uint8Array(length).map((_, i) => (i * 7919) % 251)
      return { bytes, payload: { kind: "audit", subject: "order", report_hash: encodeU64(nodeCrypto.sha256(bytes)) } }
    }
    const largest = document(DOCUMENT_LIMIT)
    const done = await send("/v2/admin/audits", owner, "report", largest.payload, largest.bytes)
    expect(done.status, JSON.stringify(done.json)).toBe(201)
    const served = await fetch(`${server.baseUrl}/v2/bodies/${largest.payload.report_hash}`)
    expect(served.status).toBe(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(largest.bytes))).toBe(true)

    const over = document(DOCUMENT_LIMIT + 1)
    const refused = await send("/v2/admin/audits", owner, "report", over.payload, over.bytes)
    expect([refused.status, refused.json.entry["refused"]]).toEqual([413, "body_too_large"])
    // Past the route's request limit the body is not even read.
    const huge = document(MAX_ADMIN_REQUEST_BYTES)
    const unread = await send("/v2/admin/audits", owner, "report", huge.payload, huge.bytes)
    expect([unread.status, unread.json.entry["refused"]]).toEqual([413, "entry_too_large"])
  })

  it("refuses an entry of another type on a route, and agent entries while frozen", async () => {
    const wrongType = await send("/v2/admin/tombstones", owner, "freeze", { state: "frozen" }, null)
    expect(wrongType.status).toBe(400)
    expect(wrongType.json.entry["refused"]).toBe("unknown_type")
    // The freeze route ran last: agents can no longer write.
    const agent = makeAgent(`after freeze ${Date.now()}`)
    const post = postPayload("while frozen")
    const refused = await send("/v2/entries", agent, "post", post.payload, post.body)
    expect(refused.status).toBe(403)
    expect(refused.json.entry["refused"]).toBe("writes_frozen")
    const health = await (await fetch(`${server.baseUrl}/healthz`)).json() as { status: string; agent_writes_held: boolean; reasons: Array<string> }
    expect(health.status).toBe("DEGRADED")
    expect(health.agent_writes_held).toBe(true)
    expect(health.reasons).toContain("agent_writes_held")
  })
})
