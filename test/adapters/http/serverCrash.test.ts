// The server killed with SIGKILL while writers keep it busy, ten times over one data
// folder. After each restart every entry answered 202 is in the log at its index with the
// same leaf hash, and the new checkpoint is consistent with the last one seen before the
// kill (RFC 9162 consistency proof from the API, checked here).

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8 } from "../../../src/domain/bytes.js"
import { decodeB64, decodeU64 } from "../../../src/domain/encoding.js"
import { parseCheckpoint } from "../../../src/domain/note/checkpoint.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { verifyConsistency } from "../../../src/domain/tlog/consistency.js"
import { makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import { presignPosts, sendInOrder, type WriteResult } from "../../support/load.js"
import { freePort, removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ROUNDS = 10
const hasher = makeTreeHasher(nodeCrypto.sha256)
let dataDir: string | undefined

afterAll(async () => {
  if (dataDir !== undefined) await removeDir(dataDir)
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("the server under SIGKILL", () => {
  it("keeps every entry answered 202, and its checkpoints stay consistent", async () => {
    dataDir = await tempDataDir()
    const port = await freePort()
    let server: RunningServer = await startServer({ dataDir, port })
    const vkey = parseVerifierKey(nodeCrypto.sha256, (await readFile(join(dataDir, "log.vkey"), "utf8")).trim())!

    const checkpointOf = async (s: RunningServer) => {
      let response = await fetch(`${s.baseUrl}/checkpoint`)
      // The first checkpoint of a new log is at most one merge delay away.
      for (let i = 0; i < 50 && response.status === 404; i++) {
        await sleep(100)
        response = await fetch(`${s.baseUrl}/checkpoint`)
      }
      const note = new Uint8Array(await response.arrayBuffer())
      const opened = Either.getOrThrow(openNote(note, [vkey], nodeCrypto.ed25519))
      return parseCheckpoint(opened.text)!
    }

    const acknowledged: Array<WriteResult> = []
    let lastSeen = await checkpointOf(server)
    for (let round = 0; round < ROUNDS; round++) {
      const writes = presignPosts({ keys: 8, perKey: 400, origin: "localhost/aics", authority: `127.0.0.1:${port}`, label: `crash-${round}` })
      const before = acknowledged.length
      const sending = sendInOrder(server.baseUrl, writes, (r) => {
        if (r.status === 202) acknowledged.push(r)
      })
      // Watch the checkpoints while the writers run, then kill at a random moment once the
      // round's writes are being answered (on a loaded machine the first answers can take
      // longer than the whole random delay).
      const answeredBy = Date.now() + 60_000
      while (acknowledged.length === before) {
        if (Date.now() > answeredBy) throw new Error(`round ${round}: no write answered 202 within 60 s`)
        await sleep(10)
      }
      const killAt = Date.now() + Math.floor(Math.random() * 600)
      while (Date.now() < killAt) {
        lastSeen = await checkpointOf(server).catch(() => lastSeen)
        await sleep(40)
      }
      await server.kill()
      await sending

      server = await startServer({ dataDir, port })
      // Every acknowledged entry is in the log at its index with the same leaf hash.
      for (const r of acknowledged) {
        const index = r.json!.entry["index"] as number
        const proof = await (await fetch(`${server.baseUrl}/v2/tlog/proof/${index}`)).json() as { leaf_hash: string; entry_bytes: string }
        expect(proof.leaf_hash, `entry ${index}`).toBe(r.json!.entry["leaf_hash"])
        expect(JSON.parse(fromUtf8(decodeU64(proof.entry_bytes)!)).index).toBe(index)
      }
      // The checkpoint after the restart is consistent with the last one seen before.
      const now = await checkpointOf(server)
      expect(now.size).toBeGreaterThanOrEqual(lastSeen.size)
      const consistency = await (await fetch(`${server.baseUrl}/v2/tlog/consistency?from=${lastSeen.size}&to=${now.size}`)).json() as { hashes: Array<string> }
      expect(verifyConsistency(hasher, lastSeen.size, now.size, lastSeen.rootHash, now.rootHash,
        consistency.hashes.map((h) => decodeB64(h)!)), `round ${round}: ${lastSeen.size} -> ${now.size}`).toBe(true)
      lastSeen = now
    }
    // Every round killed the server while its writes were being answered.
    expect(acknowledged.length).toBeGreaterThanOrEqual(ROUNDS)
    const health = await (await fetch(`${server.baseUrl}/healthz`)).json() as { status: string }
    expect(health.status).toBe("OK")
    await server.stop()
  }, 240_000)
})
