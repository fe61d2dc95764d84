// The agent key file: created once with mode 0600, never overwritten, read back strictly,
// and advanced durably past each accepted entry.

import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { x25519 } from "@noble/curves/ed25519.js"
import { Either } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { advanceChain, generateAgentKey, switchToKey, type AgentKey, type StoredReceipt } from "../../src/client/agentKey.js"
import { buildEnvelope } from "../../src/client/envelope.js"
import { ClientError } from "../../src/client/errors.js"
import { createAgentKeyFile, readAgentKeyFile, saveAgentKeyFile } from "../../src/client/keyFile.js"
import { claimDraft } from "../../src/client/payloads.js"
import { envelopeHash, prevOf } from "../../src/domain/envelope/hash.js"
import { verifyEnvelopeSignature } from "../../src/domain/envelope/signature.js"
import { decodeU64, encodeU64 } from "../../src/domain/encoding.js"

let dir: string
let path: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "aics-client-"))
  path = join(dir, "agent.json")
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const receiptFor = (index: number, seq: number): StoredReceipt => ({
  index,
  leaf_hash: encodeU64(new Uint8Array(32).fill(index)),
  logged: 1_795_000_000_000 + index,
  type: "claim",
  seq,
  receipt_note: encodeU64(new Uint8Array([1, 2, 3]))
})

const expectKeyFileError = async (promise: Promise<unknown>, message: RegExp) => {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(ClientError)
  expect((error as ClientError).kind).toBe("key_file")
  expect((error as ClientError).message).toMatch(message)
}

describe("agent keys", () => {
  it("generates an Ed25519 did:key and a matching X25519 pair at seq 0", () => {
    const key = generateAgentKey()
    expect(key.kid).toMatch(/^did:key:z6Mk/)
    expect(key.x25519Public).toBe(encodeU64(x25519.getPublicKey(key.x25519Secret)))
    expect([key.seq, key.prev, key.origin, key.receipts]).toEqual([0, null, null, []])
    expect(generateAgentKey().kid).not.toBe(key.kid)
  })

  it("builds envelopes at the chain position, signed, fresh nonce, 300 s lifetime", () => {
    const key = generateAgentKey()
    const e1 = buildEnvelope(key, "localhost/aics", "claim", claimDraft(key, "Alice").payload, 1_795_000_000)
    const e2 = buildEnvelope(key, "localhost/aics", "claim", claimDraft(key, "alice").payload, 1_795_000_000)
    expect(verifyEnvelopeSignature(e1, nobleCrypto.ed25519)).toBe(true)
    expect(e1).toMatchObject({ seq: 0, prev: null, kid: key.kid, created: 1_795_000_000, expires: 1_795_000_300 })
    expect(e1.payload).toEqual({ name: "alice", x25519: key.x25519Public })
    expect(decodeU64(e1.nonce)!.length).toBe(16)
    expect(e1.nonce).not.toBe(e2.nonce)
  })
})

describe("the key file", () => {
  it("is created with mode 0600 and reads back the same key", async () => {
    const key = generateAgentKey()
    await createAgentKeyFile(path, key)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect(await readAgentKeyFile(path)).toEqual(key)
    const json = JSON.parse(await readFile(path, "utf8"))
    expect(json).toMatchObject({ type: "ed25519", kid: key.kid, seq: 0, prev: null, origin: null, receipts: [] })
  })

  it("is never overwritten", async () => {
    const first = generateAgentKey()
    await createAgentKeyFile(path, first)
    const before = await readFile(path)
    await expectKeyFileError(createAgentKeyFile(path, generateAgentKey()), /already exists/)
    expect(await readFile(path)).toEqual(before)
    // Any file at the path counts, not only key files.
    const other = join(dir, "notes.txt")
    await writeFile(other, "mine")
    await expectKeyFileError(createAgentKeyFile(other, first), /already exists/)
    expect(await readFile(other, "utf8")).toBe("mine")
  })

  it("advances the chain durably after each accepted entry, keeping mode 0600", async () => {
    let key: AgentKey = generateAgentKey()
    await createAgentKeyFile(path, key)
    const e0 = buildEnvelope(key, "localhost/aics", "claim", claimDraft(key, "alice").payload, 1_795_000_000)
    key = advanceChain(key, e0, receiptFor(3, 0))
    await saveAgentKeyFile(path, key)
    let read = await readAgentKeyFile(path)
    expect(read.seq).toBe(1)
    expect(read.prev).toBe(Either.getOrThrow(prevOf(nobleCrypto.sha256, e0)))
    expect(read.prev).toBe(encodeU64(Either.getOrThrow(envelopeHash(nobleCrypto.sha256, e0))))
    expect(read.origin).toBe("localhost/aics")
    expect(read.receipts).toEqual([receiptFor(3, 0)])

    const e1 = buildEnvelope(read, "localhost/aics", "post", { channel: "general", body_hash: read.prev!, size: 0 }, 1_795_000_001)
    expect([e1.seq, e1.prev]).toEqual([1, read.prev])
    key = advanceChain(read, e1, receiptFor(7, 1))
    await saveAgentKeyFile(path, key)
    read = await readAgentKeyFile(path)
    expect(read).toEqual(key)
    expect(read.seq).toBe(2)
    expect(read.receipts.map((r) => r.index)).toEqual([3, 7])
    expect((await stat(path)).mode & 0o777).toBe(0o600)
  })

  it("refuses a file others can read, a missing file and inconsistent members", async () => {
    await expectKeyFileError(readAgentKeyFile(path), /no key file/)
    const key = generateAgentKey()
    await createAgentKeyFile(path, key)
    await chmod(path, 0o644)
    await expectKeyFileError(readAgentKeyFile(path), /readable by others/)
    await chmod(path, 0o600)
    // A folder, and a file that is not JSON, are said to be no key file (not EISDIR or a parser's words).
    await expectKeyFileError(readAgentKeyFile(dirname(path)), /this is a folder, not a key file/)
    const notJson = `${path}.txt`
    await writeFile(notJson, "not json", { mode: 0o600 })
    await expectKeyFileError(readAgentKeyFile(notJson), /not a key file: it is not JSON/)

    const json = JSON.parse(await readFile(path, "utf8"))
    const tampered = async (change: (j: Record<string, any>) => void, message: RegExp) => {
      const copy = structuredClone(json)
      change(copy)
      await writeFile(path, JSON.stringify(copy), { mode: 0o600 })
      await expectKeyFileError(readAgentKeyFile(path), message)
    }
    await tampered((j) => { j["x25519"].public = encodeU64(new Uint8Array(32)) }, /x25519\.public/)
    await tampered((j) => { j["prev"] = encodeU64(new Uint8Array(32)) }, /prev/)
    await tampered((j) => { j["seq"] = 1 }, /prev/)
    await tampered((j) => { j["seq"] = -1 }, /seq/)
    await tampered((j) => { j["receipts"] = [{ index: 1 }] }, /receipt/)
    await tampered((j) => { j["kid"] = generateAgentKey().kid }, /kid does not match/)
  })

  it("keeps the name, a pending rotation key and the previous keys across a save", async () => {
    const key = generateAgentKey()
    await createAgentKeyFile(path, key)
    const pending = { ...(await readAgentKeyFile(path)), name: "alice", next: new Uint8Array(32).fill(7) }
    await saveAgentKeyFile(path, pending)
    expect(await readAgentKeyFile(path)).toEqual(pending)
    const switched = switchToKey(advanceChain(pending, buildEnvelope(pending, "localhost/aics", "post", { channel: "general", body_hash: encodeU64(new Uint8Array(32)), size: 0 }, 1_795_000_000), receiptFor(5, 0)), pending.next, 6, "rotate")
    await saveAgentKeyFile(path, switched)
    const read = await readAgentKeyFile(path)
    expect(read).toEqual(switched)
    expect(read).toMatchObject({ seq: 0, prev: null, name: "alice", next: null, receipts: [] })
    expect(read.previous.map((p) => [p.kid, p.seq, p.retired_by, p.how, p.receipts.length])).toEqual([[key.kid, 1, 6, "rotate", 1]])
    expect(read.x25519Public).toBe(key.x25519Public)
  })

  it("reads files written before names and rotations were recorded", async () => {
    const key = generateAgentKey()
    await createAgentKeyFile(path, key)
    const json = JSON.parse(await readFile(path, "utf8"))
    delete json["name"]
    delete json["next"]
    delete json["previous"]
    await writeFile(path, JSON.stringify(json), { mode: 0o600 })
    expect(await readAgentKeyFile(path)).toMatchObject({ name: null, next: null, previous: [] })
    json["previous"] = [{ kid: key.kid }]
    await writeFile(path, JSON.stringify(json), { mode: 0o600 })
    await expectKeyFileError(readAgentKeyFile(path), /previous key/)
  })
})
