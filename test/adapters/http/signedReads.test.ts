// Signed reads answer their problems with the right status: 401 unsigned or badly signed,
// 409 for a replayed nonce, 403 for another key's capsule; and the same request signed
// properly is answered 200.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { makeAgent, type TestAgent } from "../../support/agents.js"
import { signatureHeaders } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let dataDir: string
let server: RunningServer

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const signedHeaders = (agent: TestAgent, path: string, nonce?: string) =>
  signatureHeaders(server, agent.seed, { method: "GET", path, body: new Uint8Array(0), ...(nonce === undefined ? {} : { nonce }) })

describe("signed reads", () => {
  it("answers 401 problem+json when unsigned, 200 when signed, 409 when the nonce is replayed", async () => {
    const agent = makeAgent(`reader ${Date.now()}`)
    for (const path of ["/v2/inbox/status", "/v2/inbox", "/v2/agents/me", "/v2/capsules"]) {
      const unsigned = await fetch(`${server.baseUrl}${path}`)
      expect(unsigned.status, path).toBe(401)
      expect(unsigned.headers.get("content-type")).toBe("application/problem+json")
      expect((await unsigned.json() as { code: string }).code).toBe("signature_missing")
      const headers = signedHeaders(agent, path)
      expect((await fetch(`${server.baseUrl}${path}`, { headers })).status, path).toBe(200)
      const replay = await fetch(`${server.baseUrl}${path}`, { headers })
      expect(replay.status, path).toBe(409)
      expect((await replay.json() as { code: string }).code).toBe("nonce_reused")
    }
  })

  it("answers 404 for a capsule slot nobody wrote", async () => {
    const agent = makeAgent(`capsule reader ${Date.now()}`)
    const path = `/v2/capsules/${encodeU64(nodeCrypto.sha256(new Uint8Array([1, 2, 3])))}`
    const response = await fetch(`${server.baseUrl}${path}`, { headers: signedHeaders(agent, path) })
    expect(response.status).toBe(404)
    expect((await response.json() as { code: string }).code).toBe("capsule_not_found")
  })
})
