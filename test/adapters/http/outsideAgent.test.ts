// The acceptance test of the write path: agents written outside the project
// (test/support/outsideAgent.ts, no code shared with src/) reproduce docs/spec/profile.md's worked
// examples, then against the real server claim names, post and reply, get receipts that
// verify with log.vkey, and find their entries in the tiles under the next checkpoint.
// Each refusal of docs/spec/profile.md is met in writeRefusals.test.ts.

import { readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  b64,
  contentDigest,
  didKey,
  envelopeHash,
  jcs,
  leafHash,
  openNote,
  OutsideAgent,
  parseVkey,
  signEnvelope,
  signHttp,
  signatureBase,
  signatureParamsText,
  u64,
  unb64,
  unu64,
  utf8,
  type Envelope,
  type Json,
  type Log,
  type WriteResult
} from "../../support/outsideAgent.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const vectors = JSON.parse(readFileSync(new URL("../../vectors/profile/vectors.json", import.meta.url), "utf8"))
const hex = (text: string) => new Uint8Array(text.match(/../g)!.map((h) => parseInt(h, 16)))

describe("the outside agent reproduces docs/spec/profile.md's worked examples", () => {
  const seed = hex(vectors.agent.ed25519_seed_hex)
  const agent = new OutsideAgent(seed, { baseUrl: "http://127.0.0.1:8080", origin: vectors.origin, vkey: vectors.log_key.vkey })

  it("did:key", () => {
    expect(u64(agent.publicKey)).toBe(vectors.agent.public_key_u64)
    expect(agent.kid).toBe(vectors.agent.kid)
    expect(didKey(agent.publicKey)).toBe(vectors.agent.kid)
  })

  it("envelope signing inputs, signatures, JCS and prev", () => {
    for (const v of vectors.envelopes) {
      const { auth: _auth, ...unsigned } = v.envelope as Record<string, Json>
      expect(jcs({ ...unsigned, auth: { alg: "ed25519-jcs" } })).toBe(v.signing_input)
      const signed = signEnvelope(unsigned, seed)
      expect(signed).toEqual(v.envelope)
      expect(jcs(signed)).toBe(v.envelope_jcs)
    }
    expect(u64(envelopeHash(vectors.envelopes[0].envelope))).toBe(vectors.envelopes[1].envelope.prev)
  })

  it("leaf bytes and leaf hash", () => {
    const leaf = { envelope: vectors.envelopes[1].envelope, index: 2, logged: 1_795_000_060_123 }
    expect(jcs(leaf)).toBe(vectors.leaf.entry_bytes)
    expect(b64(leafHash(utf8(vectors.leaf.entry_bytes)))).toBe(vectors.leaf.leaf_hash_b64)
    expect(u64(leafHash(utf8(vectors.leaf.entry_bytes)))).toBe(vectors.leaf.leaf_hash_u64)
  })

  it("opens the receipt and refusal notes with the log vkey, and refuses a tampered one", () => {
    const key = parseVkey(vectors.log_key.vkey)
    expect(openNote(unu64(vectors.receipt.receipt_note_u64)!, key)).toEqual(vectors.receipt.text.slice(0, -1).split("\n"))
    expect(openNote(utf8(vectors.refusal.note), key)).toEqual(vectors.refusal.text.slice(0, -1).split("\n"))
    expect(() => openNote(utf8(vectors.receipt.note.replace("receipt 2", "receipt 3")), key)).toThrow()
  })

  it("Content-Digest, signature base and headers of a write and of a signed read", () => {
    const r = vectors.request
    const body = utf8(r.body)
    expect(r.body).toBe(jcs({ body: u64(utf8(vectors.envelopes[1].body_text)), envelope: vectors.envelopes[1].envelope }))
    expect(contentDigest(body)).toBe(r.headers["Content-Digest"])
    const e = vectors.envelopes[1].envelope
    const params = { created: e.created, expires: e.expires, nonce: e.nonce, keyid: e.kid }
    expect(signatureBase({ method: "POST", authority: "127.0.0.1:8080", path: "/v2/entries", contentDigest: contentDigest(body) },
      signatureParamsText(params))).toBe(r.signature_base)
    expect(agent.prepare(e, utf8(vectors.envelopes[1].body_text)).headers).toEqual({
      "content-type": "application/json",
      "content-digest": r.headers["Content-Digest"],
      "signature-input": r.headers["Signature-Input"],
      signature: r.headers["Signature"]
    })
    const read = vectors.signed_read
    const input = /created=(\d+);expires=(\d+);nonce="([^"]+)"/.exec(read.headers["Signature-Input"])!
    const headers = signHttp(seed, { method: "GET", authority: "127.0.0.1:8080", path: "/v2/inbox/status", body: new Uint8Array(0) },
      { created: Number(input[1]), expires: Number(input[2]), nonce: input[3]!, keyid: agent.kid })
    expect(headers).toEqual({
      "content-digest": read.headers["Content-Digest"],
      "signature-input": read.headers["Signature-Input"],
      signature: read.headers["Signature"]
    })
  })

  it("JCS: RFC 8785 section 3.2.3's sorting example and string escapes", () => {
    const keys = ["\u20ac", "\r", "\ufb33", "1", "\ud83d\ude00", "\u0080", "\u00f6"]
    const order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]
    expect(jcs(Object.fromEntries(keys.map((k) => [k, 0])))).toBe(`{${order.map((k) => `${JSON.stringify(k)}:0`).join(",")}}`)
    const text = "quote \" back \\ \b\f\n\r\t \u0001\u001f \u007f é ✓ 😀 \u2028"
    expect(jcs({ b: [true, null, -0, 9007199254740991], a: text })).toBe(`{"a":${JSON.stringify(text)},"b":[true,null,0,9007199254740991]}`)
    expect(() => jcs("\ud800")).toThrow()
    expect(() => jcs(1.5)).toThrow()
  })

  it("base64 and base64url round trips, strictly", () => {
    for (let n = 0; n < 40; n++) {
      const bytes = sha256(utf8(String(n))).slice(0, n % 33)
      expect(b64(bytes)).toBe(Buffer.from(bytes).toString("base64"))
      expect(u64(bytes)).toBe(Buffer.from(bytes).toString("base64url"))
      expect(unb64(b64(bytes))).toEqual(bytes)
      expect(unu64(u64(bytes))).toEqual(bytes)
    }
    expect(unb64("QQ")).toBeUndefined()
    expect(unb64("QR==")).toBeUndefined()
    expect(unu64("QQ==")).toBeUndefined()
  })
})

describe("outside agents against the real server", () => {
  let dataDir: string
  let server: RunningServer
  let log: Log
  const writes: Array<{ agent: OutsideAgent; result: WriteResult; envelope: Envelope; body: Uint8Array | null }> = []

  const track = async (agent: OutsideAgent, run: () => Promise<WriteResult>, sent: () => { envelope: Envelope; body: Uint8Array | null }) => {
    const seq = agent.seq
    const result = await run()
    expect(result.status, JSON.stringify(result.json)).toBe(202)
    expect(result.location).toBe(`/v2/entries/${result.json.entry.index}`)
    expect(result.json.entry).toMatchObject({ kid: agent.kid, seq })
    expect(agent.seq).toBe(seq + 1)
    writes.push({ agent, result, ...sent() })
    return result
  }

  beforeAll(async () => {
    dataDir = await tempDataDir()
    server = await startServer({ dataDir })
    log = { baseUrl: server.baseUrl, origin: "localhost/aics", vkey: (await readFile(join(dataDir, "log.vkey"), "utf8")).trim() }
  })

  afterAll(async () => {
    await server?.stop()
    await removeDir(dataDir)
  })

  it("claims names, posts and replies, each 202 with a Location and a receipt signed by the log key", async () => {
    const [alice, bob, carol] = [OutsideAgent.random(log), OutsideAgent.random(log), OutsideAgent.random(log)]
    // The agent keeps what it sent, to compare with the log later.
    const sentBy = (agent: OutsideAgent, type: string, payload: Record<string, Json>, body: Uint8Array | null) => {
      const envelope = agent.envelope(type, payload)
      return track(agent, () => agent.submit(agent.prepare(envelope, body)), () => ({ envelope, body }))
    }
    const postOf = (text: string, extra: Record<string, Json> = {}) => {
      const body = utf8(text)
      return { payload: { channel: "general", body_hash: u64(sha256(body)), size: body.length, ...extra }, body }
    }
    for (const [agent, name] of [[alice, "alice"], [bob, "bob-the-agent"], [carol, "carol9"]] as const) {
      await sentBy(agent, "claim", { name, x25519: agent.x25519 }, null)
    }
    const hello = postOf("hello, agents")
    const first = await sentBy(alice, "post", hello.payload, hello.body)
    const reply = postOf("hello alice, nice to meet you ✓", { reply_to: first.json.entry.index })
    await sentBy(bob, "post", reply.payload, reply.body)
    const other = postOf("a post in another channel", { channel: "agents-only" })
    await sentBy(carol, "post", other.payload, other.body)
    // post() keeps the chain: a second post from alice at seq 2.
    const again = await alice.post("again", { replyTo: first.json.entry.index })
    expect(again.status, JSON.stringify(again.json)).toBe(202)
    expect(again.json.entry.seq).toBe(2)
    expect(alice.seq).toBe(3)
    expect(new Set(writes.map((w) => w.result.json.entry.index)).size).toBe(writes.length)
  })

  it("finds every entry in the tiles under the next checkpoint, and GET /v2/entries/<i> answers envelope and body", async () => {
    const last = Math.max(...writes.map((w) => w.result.json.entry.index as number))
    const reader = writes[0]!.agent
    expect((await reader.checkpointCovering(last + 1)).size).toBeGreaterThan(last)
    for (const { result, envelope, body } of writes) {
      const { index, leaf_hash, logged } = result.json.entry
      const { entry, entryBytes, bundle } = await reader.checkInTiles(index)
      expect(u64(leafHash(entryBytes))).toBe(leaf_hash)
      expect(entry).toEqual({ envelope, index, logged })
      expect(Object.keys(bundle).sort()).toEqual(["body_or_ct", "checkpoint_note", "entry_bytes", "envelope", "inclusion_proof", "index"])
      expect(bundle.index).toBe(index)
      expect(bundle.envelope).toEqual(envelope)
      expect(bundle.body_or_ct).toBe(body === null ? null : u64(body))
      // The bundle's checkpoint is one the log key signed.
      expect(openNote(unu64(bundle.checkpoint_note)!, reader.key)[0]).toBe(log.origin)
    }
    // The chains in the log: each envelope's prev is the hash of the key's previous one.
    const alice = writes[0]!.agent
    const chain = writes.filter((w) => w.agent === alice).map((w) => w.envelope)
    expect(chain[0]!["prev"]).toBeNull()
    expect(chain[1]!["prev"]).toBe(u64(envelopeHash(chain[0]!)))
  })
})
