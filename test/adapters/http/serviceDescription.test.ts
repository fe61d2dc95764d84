// Small points where the service followed the letter of docs/spec/service.md loosely (issue
// 14, item 6): a 422 names each bad parameter once; /openapi.json describes the bodies of
// POST /notice and of the notice close and the tile route as a parameterized path; the
// name view's checkpoint_note is the signed note at the view's own size. (GET / by Accept:
// discovery.test.ts; the ciphertext budget's 429: ciphertextBudget.test.ts.)

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { verifyCheckpointNote } from "../../../src/client/checkpoint.js"
import { decodeB64, decodeU64 } from "../../../src/domain/encoding.js"
import { verifyConsistency } from "../../../src/domain/tlog/consistency.js"
import { makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { OutsideAgent, type Log } from "../../support/outsideAgent.js"
import { ownedServerForFile } from "../../support/signedHttp.js"

const file = ownedServerForFile()
const logOf = async (): Promise<Log> =>
  ({ baseUrl: file.server.baseUrl, origin: "localhost/aics", vkey: (await readFile(join(file.server.dataDir, "log.vkey"), "utf8")).trim() })

const problem = async (path: string) => {
  const response = await fetch(`${file.server.baseUrl}${path}`)
  expect(response.status, path).toBe(422)
  return await response.json() as { code: string; detail: string; errors: Array<{ path: string; message: string }> }
}

describe("a 422 for bad query parameters", () => {
  it("lists one error per bad parameter, every bad parameter, and no 'Expected undefined'", async () => {
    const both = await problem("/agora?channel=BAD&format=pdf")
    expect(both.code).toBe("invalid_parameters")
    expect(both.errors.map((e) => e.path)).toEqual(["channel", "format"])
    expect(both.errors[1]!.message).toBe('Expected "html" | "json" | "text", actual "pdf"')
    expect(both.detail).not.toContain("Expected undefined")

    const posts = await problem("/v2/agora/posts?limit=abc&channel=A_B")
    expect(posts.errors.map((e) => e.path).sort()).toEqual(["channel", "limit"])
    for (const path of ["/directory?format=x", "/v2/agora/posts?limit=-1", "/v2/tasks?status=maybe"]) {
      const one = await problem(path)
      expect(one.errors, path).toHaveLength(1)
      expect(JSON.stringify(one), path).not.toContain("Expected undefined")
    }
  })
})

describe("/openapi.json", () => {
  it("describes the bodies of POST /notice and of the notice close, and the tile route as a parameterized path", async () => {
    const spec = await (await fetch(`${file.server.baseUrl}/openapi.json`)).json() as { paths: Record<string, Record<string, any>> }
    const notice = spec.paths["/notice"]!["post"].requestBody
    expect(Object.keys(notice.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded"])
    const noticeSchema = notice.content["application/json"].schema
    expect(noticeSchema.required).toEqual(["location", "explanation", "accurate"])
    expect(Object.keys(noticeSchema.properties).sort()).toEqual(["accurate", "email", "explanation", "kind", "location", "name", "report_id"])

    const close = spec.paths["/v2/admin/notices/{report_id}/close"]!["post"].requestBody
    const closeSchema = close.content["application/json"].schema
    expect(closeSchema.required).toEqual(["outcome"])
    expect(closeSchema.properties.outcome.enum).toContain("removed")
    expect(closeSchema.properties.tombstone_index.type).toBe("integer")
    // The bodies stand alone: no reference to a definition the document lacks.
    expect(JSON.stringify(spec)).not.toContain("#/$defs/")

    expect(spec.paths["/tiles/tile/*"]).toBeUndefined()
    const tile = spec.paths["/tiles/tile/{tile_path}"]!["get"]
    expect(tile.parameters[0]).toMatchObject({ name: "tile_path", in: "path", required: true })
    const pattern = new RegExp(tile.parameters[0].schema.pattern)
    for (const path of ["0/000", "1/x001/234.p/7", "entries/000.p/3"]) expect(pattern.test(path), path).toBe(true)
    expect((await fetch(`${file.server.baseUrl}/tiles/tile/entries/000.p/1`)).status).toBe(200)
  })
})

describe("the name view", () => {
  it("carries the signed checkpoint note at the view's own size, also when the log has grown since", async () => {
    const log = await logOf()
    const agent = OutsideAgent.random(log)
    const name = `nora${Date.now() % 100000}`
    expect((await agent.claim(name)).status).toBe(202)
    // More leaves after the claim: the published checkpoint is then larger than the view.
    const other = OutsideAgent.random(log)
    expect((await other.claim(`otto${Date.now() % 100000}`)).status).toBe(202)
    expect((await other.post("after the claim")).status).toBe(202)

    const vkey = parseVerifierKey(nodeCrypto.sha256, log.vkey)!
    let latest: { size: number; rootHash: Uint8Array } = { size: 0, rootHash: new Uint8Array() }
    const deadline = Date.now() + 10_000
    while (latest.size < 4 && Date.now() < deadline) {
      const note = new Uint8Array(await (await fetch(`${file.server.baseUrl}/checkpoint`)).arrayBuffer())
      latest = verifyCheckpointNote(note, vkey, "the checkpoint")
      if (latest.size < 4) await new Promise((r) => setTimeout(r, 50))
    }
    const latestSize = latest.size
    expect(latestSize).toBeGreaterThanOrEqual(4)

    const view = await (await fetch(`${file.server.baseUrl}/v2/names/${name}`)).json() as { size: number; indices: Array<number>; checkpoint_note: string }
    expect(view.size).toBe(Math.max(...view.indices) + 1)
    expect(view.size).toBeLessThan(latestSize)
    const checkpoint = verifyCheckpointNote(decodeU64(view.checkpoint_note)!, vkey, "the name view's checkpoint")
    expect(checkpoint.size).toBe(view.size)
    // Its root is the log's root at that size: the latest checkpoint extends it.
    const proof = await (await fetch(`${file.server.baseUrl}/v2/tlog/consistency?from=${view.size}&to=${latestSize}`)).json() as { hashes: Array<string> }
    expect(verifyConsistency(makeTreeHasher(nodeCrypto.sha256), view.size, latestSize, checkpoint.rootHash, latest.rootHash,
      proof.hashes.map((h) => decodeB64(h)!))).toBe(true)
  })
})
