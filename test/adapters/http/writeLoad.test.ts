// End to end under load: the real server, 20 keys writing 10,000 entries concurrently.
// Every receipt verifies with log.vkey, every entry's leaf is in the tiles under the next
// checkpoint, and each key's chain is unbroken in the log.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { equal, fromUtf8 } from "../../../src/domain/bytes.js"
import { decodeU64 } from "../../../src/domain/encoding.js"
import { parseReceipt } from "../../../src/domain/note/receipt.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { verifyLogFromTiles } from "../../support/independentVerifier.js"
import { presignPosts, sendInOrder, type WriteResult } from "../../support/load.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const KEYS = 20
const PER_KEY = 500

let dataDir: string
let server: RunningServer
let vkey: string
let results: Array<WriteResult>

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  const writes = presignPosts({ keys: KEYS, perKey: PER_KEY, origin: "localhost/aics", authority: `127.0.0.1:${server.port}` })
  results = await sendInOrder(server.baseUrl, writes)
}, 180_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("20 keys writing 10,000 entries at once", () => {
  it("accepts every write with a receipt that verifies with log.vkey", () => {
    expect(results.length).toBe(KEYS * PER_KEY)
    const statuses = new Map<number, number>()
    for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
    expect(Object.fromEntries(statuses)).toEqual({ 202: KEYS * PER_KEY })
    const key = parseVerifierKey(nodeCrypto.sha256, vkey)!
    const indexes = new Set<number>()
    for (const r of results) {
      const opened = openNote(decodeU64(r.json!.receipt_note)!, [key], nodeCrypto.ed25519)
      expect(Either.isRight(opened)).toBe(true)
      const receipt = parseReceipt(Either.getOrThrow(opened).text)!
      expect(receipt._tag).toBe("Receipt")
      if (receipt._tag !== "Receipt") continue
      expect(receipt.index).toBe(r.json!.entry["index"])
      expect(receipt.leafHash).toEqual(decodeU64(r.json!.entry["leaf_hash"]))
      indexes.add(receipt.index)
    }
    // One leaf per write, indexes 1..10000 (leaf 0 is the charter).
    expect(indexes.size).toBe(KEYS * PER_KEY)
    expect(Math.min(...indexes)).toBe(1)
    expect(Math.max(...indexes)).toBe(KEYS * PER_KEY)
  })

  it("includes every entry under the next checkpoint, with unbroken chains", async () => {
    let verified = await verifyLogFromTiles(server.baseUrl, vkey)
    for (let i = 0; i < 50 && verified.size < KEYS * PER_KEY + 1; i++) {
      await new Promise((r) => setTimeout(r, 100))
      verified = await verifyLogFromTiles(server.baseUrl, vkey)
    }
    expect(verified.size).toBe(KEYS * PER_KEY + 1)
    for (const r of results) {
      const index = r.json!.entry["index"] as number
      expect(equal(verified.tiles.leafHash(index), decodeU64(r.json!.entry["leaf_hash"])!)).toBe(true)
    }
    // Each key's entries appear in seq order in the log.
    const lastSeq = new Map<string, { seq: number; index: number }>()
    for (const r of [...results].sort((a, b) => a.json!.entry["index"] - b.json!.entry["index"])) {
      const prior = lastSeq.get(r.write.kid)
      expect(r.write.seq).toBe(prior === undefined ? 0 : prior.seq + 1)
      lastSeq.set(r.write.kid, { seq: r.write.seq, index: r.json!.entry["index"] })
    }
    void fromUtf8
  })
})
