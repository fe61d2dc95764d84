// AICS_SUP_ASSET_FILE: the operator's descriptor is served byte for byte, its hash becomes
// asset_hash in /v2/sup and in the card; a file that is not JSON stops the start.

import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8, utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { removeDir, startServer, tempDataDir } from "../../support/server.js"

const dirs: Array<string> = []
afterAll(async () => { for (const dir of dirs) await removeDir(dir) })

describe("the SUP asset descriptor from a file", () => {
  it("serves the file's exact bytes and names them by hash in /v2/sup and the card", async () => {
    const dataDir = await tempDataDir()
    dirs.push(dataDir)
    const bytes = utf8(`{ "name": "SUP",  "note": "spacing kept as written" }\n`)
    const file = join(dataDir, "asset.json")
    await writeFile(file, bytes)
    const server = await startServer({ dataDir, env: { AICS_SUP_ASSET_FILE: file } })
    try {
      const hash = encodeU64(nodeCrypto.sha256(bytes))
      const served = await fetch(`${server.baseUrl}/v2/sup/asset`)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes)
      expect(served.headers.get("x-aics-asset-sha256")).toBe(hash)
      expect((await (await fetch(`${server.baseUrl}/v2/sup`)).json() as { asset_hash: string }).asset_hash).toBe(hash)
      const card = JSON.parse(fromUtf8(new Uint8Array(await (await fetch(`${server.baseUrl}/.well-known/aics-card.json`)).arrayBuffer())))
      expect(card.sup.asset_hash).toBe(hash)
    } finally {
      await server.stop()
    }
  })

  it("refuses to start with a file that is not JSON, naming the variable", async () => {
    const dataDir = await tempDataDir()
    dirs.push(dataDir)
    const file = join(dataDir, "asset.json")
    await writeFile(file, "SUP is great")
    await expect(startServer({ dataDir, env: { AICS_SUP_ASSET_FILE: file } })).rejects.toThrow(/AICS_SUP_ASSET_FILE .* is not JSON/)
  })
})
