// A notice closed with outcome `removed` through the real server (its notice_hash salted with
// the register's secret, issue 13 item 13): the owner tombstones the
// post first, then closes the notice naming the tombstone. The report leaf is the policy
// key's and holds the notice hash, the outcome and the tombstone index, nothing else; the
// notice hash is SHA-256(JCS({kind, received, location, explanation})); a `removed` that
// names no tombstone is refused; and nothing the register holds (text, contact, report id)
// is in any public answer: the register itself needs the owner's signature, and no tile,
// bundle, leaf or entry holds it.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { jcs } from "../../../src/domain/envelope/jcs.js"
import { makeAgent, postPayload, type TestAgent } from "../../support/agents.js"
import { ownerOf, sendEntry, signedJson } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
let dataDir: string
let server: RunningServer
let owner: TestAgent
const poster = makeAgent(`removed poster ${Date.now()}`)

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  owner = await ownerOf(server)
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

/** An entry of `agent` to `path` (POST /v2/entries or an owner route); its index. */
const write = async (path: string, agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null) => {
  const sent = await sendEntry(server, ORIGIN, path, agent, type, payload, body)
  expect(sent.status, JSON.stringify(sent.json)).toBe(path === "/v2/entries" ? 202 : 201)
  return sent.index
}

const close = (reportId: string, body: unknown) =>
  signedJson(server, "POST", `/v2/admin/notices/${reportId}/close`, owner.seed, body) as Promise<{ status: number; json: { entry: Record<string, any> } }>

const tag = `${Date.now()}-${Math.random().toString(36).slice(2)}`
const notice = {
  location: `https://example.test/removed/${tag}`,
  explanation: `This post shows my address, marker ${tag}.`,
  name: `Rita Removal ${tag}`,
  email: `rita-${tag}@example.test`,
  accurate: true
}

describe("closing a notice with outcome removed", () => {
  it("tombstones first, then logs a policy-signed report naming the tombstone, and nothing of the register is public", async () => {
    const post = postPayload(`my neighbour lives at 1 Example Road ${tag}`)
    const postIndex = await write("/v2/entries", poster, "post", post.payload, post.body)
    const filed = await fetch(`${server.baseUrl}/notice`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(notice) })
    expect(filed.status).toBe(201)
    const { report_id: reportId, received, kind } = await filed.json() as { report_id: string; received: number; kind: string }

    // `removed` must name a tombstone leaf: the post itself is no tombstone.
    const premature = await close(reportId, { outcome: "removed", tombstone_index: postIndex })
    expect(premature.status).toBe(422)
    expect(premature.json.entry["refused"]).toBe("payload_invalid")
    expect((await close(reportId, { outcome: "removed" })).json.entry["refused"]).toBe("payload_invalid")

    const tombstoneIndex = await write("/v2/admin/tombstones", owner, "tombstone", { target_index: postIndex, reason_code: "privacy" }, null)
    const done = await close(reportId, { outcome: "removed", tombstone_index: tombstoneIndex })
    expect(done.status, JSON.stringify(done.json)).toBe(201)

    // The report leaf, read back with its bundle.
    const { policy_kid: policyKid } = await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { policy_kid: string }
    const bundle = await (await fetch(`${server.baseUrl}/v2/entries/${done.json.entry["index"]}`)).json() as { envelope: { type: string; kid: string; payload: Record<string, unknown> }; body_or_ct: unknown }
    expect(bundle.envelope.type).toBe("report")
    expect(bundle.envelope.kid).toBe(policyKid)
    expect(bundle.body_or_ct).toBeNull()
    // The hash commits to the notice's secret salt, kept in the register with its text: a
    // guess of the notice (even the right one) does not give the public hash; the register does.
    const hashOf = (value: Record<string, unknown>) => encodeU64(nodeCrypto.sha256(utf8(Either.getOrThrow(jcs(value as never)))))
    const guessed = hashOf({ kind, received, location: notice.location, explanation: notice.explanation })
    expect(bundle.envelope.payload["notice_hash"]).not.toBe(guessed)
    const register = JSON.parse(await readFile(join(server.dataDir, "notices", "notices.json"), "utf8")) as Array<{ reportId: string; text: { salt: string } }>
    const salt = register.find((r) => r.reportId === reportId)!.text.salt
    expect(salt).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const hash = hashOf({ kind, received, location: notice.location, explanation: notice.explanation, salt })
    expect(bundle.envelope.payload).toEqual({ kind: "notice", notice_hash: hash, outcome: "removed", tombstone_index: tombstoneIndex })

    // The post's body is hidden for the listed reason; its leaf stays.
    const postBundle = await fetch(`${server.baseUrl}/v2/entries/${postIndex}`)
    expect(postBundle.status).toBe(200)
    expect(postBundle.headers.get("x-aics-body-status")).toBe(`tombstoned;tombstone_index=${tombstoneIndex};reason_code=privacy`)
    const gone = await fetch(`${server.baseUrl}/v2/bodies/${String(post.payload.body_hash)}`)
    expect(gone.status).toBe(410)

    // Nothing of the register is public.
    expect((await fetch(`${server.baseUrl}/v2/admin/notices`)).status).toBe(401)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const needles = [notice.location, tag, notice.name, notice.email, reportId].map((s) => Buffer.from(s))
    const { tiles } = await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { tiles: { size: number; published_size: number } }
    for (let index = 0; index < tiles.size; index++) {
      const bytes = Buffer.from(await (await fetch(`${server.baseUrl}/v2/entries/${index}`)).arrayBuffer())
      // The post's own text held the tag; its body no longer rides in its bundle.
      for (const needle of needles) expect(bytes.includes(needle), `/v2/entries/${index} holds ${needle.toString()}`).toBe(false)
    }
    const bundleTile = Buffer.from(await (await fetch(`${server.baseUrl}/tiles/tile/entries/000.p/${tiles.published_size}`)).arrayBuffer())
    expect(bundleTile.length).toBeGreaterThan(0)
    for (const needle of needles) expect(bundleTile.includes(needle)).toBe(false)
  })
})
