// GET /v2/entries/{index}/receipt (docs/protocol.md 8.3): the receipt of a leaf again, for
// an agent whose write's answer was lost. Through the real server (dist/src/main.js, as
// every HTTP test here): the answer is byte for byte the body the write's 202 (an owner
// route's 201) carried, its note signed by the log key; an index past the tree is the entry
// route's own 404 problem; a refused write left no leaf and so has no receipt to fetch; and
// /openapi.json lists the route. On two nodes of one PostgreSQL database, the node that did
// not sequence the write (a follower) answers the same bytes.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { decodeU64 } from "../../../src/domain/encoding.js"
import { parseReceipt } from "../../../src/domain/note/receipt.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import { envelopeFor, makeAgent, postPayload, accepted, writeRequestBody, type TestAgent } from "../../support/agents.js"
import { leaderOf, nodesOfTestFile, type Node } from "../../support/nodes.js"
import { ownedServerForFile, signatureHeaders } from "../../support/signedHttp.js"
import type { RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const hasher = makeTreeHasher(nodeCrypto.sha256)

/** A signed write, its answer as the bytes sent (the text) and parsed; an accepted one advances the signer's chain. */
const write = async (
  server: RunningServer, path: string, signer: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null
) => {
  const envelope = envelopeFor(signer, ORIGIN, type, payload, { created: Math.floor(Date.now() / 1000) })
  const raw = writeRequestBody(envelope, body)
  const headers = {
    "content-type": "application/json",
    ...signatureHeaders(server, signer.seed, { method: "POST", path, body: raw, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires })
  }
  const response = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers, body: raw })
  const text = await response.text()
  if (response.status === 201 || response.status === 202) accepted(signer, envelope)
  return { status: response.status, text, json: JSON.parse(text) as { entry: Record<string, any>; receipt_note: string } }
}

const receiptOf = async (server: RunningServer, index: number | string) => {
  const response = await fetch(`${server.baseUrl}/v2/entries/${index}/receipt`)
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
}

/** The note opened with the log key: what it says of its leaf. */
const opened = (note: string, vkey: string) => {
  const key = parseVerifierKey(nodeCrypto.sha256, vkey)!
  return parseReceipt(Either.getOrThrow(openNote(decodeU64(note)!, [key], nodeCrypto.ed25519)).text)
}

describe("GET /v2/entries/{index}/receipt", () => {
  const file = ownedServerForFile()
  const vkeyOf = async () => (await readFile(join(file.server.dataDir, "log.vkey"), "utf8")).trim()

  it("answers a write's 202 body again, byte for byte, for its leaf", async () => {
    const agent = makeAgent(`reissue ${Math.random()}`)
    const claim = await write(file.server, "/v2/entries", agent, "claim", { name: `re${Date.now() % 100000}`, x25519: agent.x25519 })
    const { payload, body } = postPayload("a receipt lost with its connection")
    const post = await write(file.server, "/v2/entries", agent, "post", payload, body)
    for (const written of [claim, post]) {
      expect(written.status, written.text).toBe(202)
      const again = await receiptOf(file.server, written.json.entry["index"])
      expect(again.status, again.text).toBe(200)
      expect(again.type).toMatch(/^application\/json/)
      // The same bytes: the same entry members and the same signed note (Ed25519 is deterministic).
      expect(again.text).toBe(written.text)
      expect(JSON.parse(again.text)).toEqual(written.json)
    }
    // The note is the log key's, about the leaf the entry route serves.
    const note = opened(post.json.receipt_note, await vkeyOf())
    const bundle = await (await fetch(`${file.server.baseUrl}/v2/entries/${post.json.entry["index"]}`)).json() as { entry_bytes: string }
    expect(note).toMatchObject({ _tag: "Receipt", origin: ORIGIN, index: post.json.entry["index"], leafHash: hasher.leafHash(decodeU64(bundle.entry_bytes)!) })
  })

  it("answers an owner route's 201 body again, and a receipt for leaf 0, which no write answered", async () => {
    const agent = makeAgent(`reissue owner ${Math.random()}`)
    const { payload, body } = postPayload("to be tombstoned")
    const post = await write(file.server, "/v2/entries", agent, "post", payload, body)
    const tombstone = await write(file.server, "/v2/admin/tombstones", file.owner, "tombstone", { target_index: post.json.entry["index"], reason_code: "spam" })
    expect(tombstone.status, tombstone.text).toBe(201)
    expect((await receiptOf(file.server, tombstone.json.entry["index"])).text).toBe(tombstone.text)

    const charter = JSON.parse((await receiptOf(file.server, 0)).text) as { entry: Record<string, unknown>; receipt_note: string }
    expect(charter.entry).toMatchObject({ index: 0, type: "charter", seq: 0 })
    expect(opened(charter.receipt_note, await vkeyOf())).toMatchObject({ _tag: "Receipt", index: 0, logged: charter.entry["logged"] })
  })

  it("answers the entry route's 404 past the tree, and a refused write has no receipt to fetch", async () => {
    const agent = makeAgent(`reissue refused ${Math.random()}`)
    const refused = await write(file.server, "/v2/entries", agent, "claim", { name: "admin", x25519: agent.x25519 })
    expect(refused.status).toBe(422)
    expect(refused.json.entry["refused"]).toBe("name_reserved")
    expect(opened(refused.json.receipt_note, await vkeyOf())?._tag).toBe("Refusal")

    // The refusal is in no leaf: the tree's next index has no receipt, the same problem GET /v2/entries/{index} answers.
    const size = (await (await fetch(`${file.server.baseUrl}/v2/tlog/checkpoint`)).json() as { tiles: { size: number } }).tiles.size
    for (const index of [size, size + 1000, Number.MAX_SAFE_INTEGER]) {
      const missing = await receiptOf(file.server, index)
      expect(missing.status, missing.text).toBe(404)
      expect(missing.type).toBe("application/problem+json")
      const entryRoute = await fetch(`${file.server.baseUrl}/v2/entries/${index}`)
      expect(entryRoute.status).toBe(404)
      expect(JSON.parse(missing.text)).toEqual(await entryRoute.json())
      expect(JSON.parse(missing.text)).toMatchObject({ status: 404, code: "entry_not_found", type: "urn:aics:error:entry_not_found" })
    }
    // An index the path schema refuses is the 422 of every other route.
    for (const index of ["007", "-1", "x"]) expect((await receiptOf(file.server, index)).status, index).toBe(422)
  })

  it("is in /openapi.json, as a public read answering the receipt or a 404 problem", async () => {
    const spec = await (await fetch(`${file.server.baseUrl}/openapi.json`)).json() as any
    const operation = spec.paths["/v2/entries/{index}/receipt"]?.get
    expect(operation, Object.keys(spec.paths).join(" ")).toBeDefined()
    expect(operation.security ?? []).toEqual([])
    expect(operation.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ReissuedReceipt" })
    expect(Object.keys(spec.components.schemas["ReissuedReceipt"].properties)).toEqual(["entry", "receipt_note"])
    expect(operation.responses["404"].content).toHaveProperty("application/problem+json")
    expect(operation.description).toMatch(/byte for byte/)
    // And so in the endpoint list derived from it.
    expect(await (await fetch(`${file.server.baseUrl}/llms-full.txt`)).text()).toContain("- GET /v2/entries/{index}/receipt: no signature.")
  })
})

const cluster = nodesOfTestFile()

describe.skipIf(!cluster.multiSession)("GET /v2/entries/{index}/receipt on two nodes of one database", () => {
  it("is answered by the follower too, the same bytes, its own writes and the leader's", async () => {
    const { nodes } = await cluster.start(2)
    const [a, b] = nodes as [Node, Node]
    expect(leaderOf(nodes)).toBe(a)
    const agent = makeAgent(`reissue nodes ${Math.random()}`)
    const first = postPayload("written to the follower, relayed to the leader")
    const onFollower = await write(b, "/v2/entries", agent, "post", first.payload, first.body)
    const second = postPayload("written to the leader")
    const onLeader = await write(a, "/v2/entries", agent, "post", second.payload, second.body)
    for (const written of [onFollower, onLeader]) {
      expect(written.status, written.text).toBe(202)
      for (const node of [a, b]) {
        // A node reads a leaf another committed within about a second (docs/protocol.md 14).
        let again = await receiptOf(node, written.json.entry["index"])
        for (let i = 0; again.status === 404 && i < 50; i++) {
          await new Promise((r) => setTimeout(r, 100))
          again = await receiptOf(node, written.json.entry["index"])
        }
        expect([node === a ? "leader" : "follower", again.status, again.text]).toEqual([node === a ? "leader" : "follower", 200, written.text])
      }
    }
  })
})
