// Replays across a restart (issue 13 item 11): an owner-signed GET /v2/admin/notices
// replayed after the service restarts, within its signature's lifetime, is refused 409
// `nonce_reused` as it is before the restart (the filesystem replay store's journal,
// src/adapters/fs/FsNonceStore.ts), and a signed write replayed after a restart is refused
// and writes nothing. A real restart: the process stopped and started on the same folder
// and port (the signatures name the port).

import { afterAll, describe, expect, it } from "vitest"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { envelopeFor, makeAgent, postPayload, writeRequestBody } from "../../support/agents.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { ownerOf, signatureHeaders } from "../../support/signedHttp.js"

let server: RunningServer | undefined

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

describe("a signed request replayed after a restart", () => {
  it("is refused nonce_reused, a read and a write alike", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const owner = await ownerOf(server)
    const path = "/v2/admin/notices"
    const read = signatureHeaders(server, owner.seed, {
      method: "GET", path, body: new Uint8Array(0), nonce: encodeU64(crypto.getRandomValues(new Uint8Array(16)))
    })
    const getRead = async () => {
      const response = await fetch(`${server!.baseUrl}${path}`, { headers: read })
      return { status: response.status, json: await response.json() as Record<string, any> }
    }
    expect((await getRead()).status).toBe(200)
    expect((await getRead()).json["code"]).toBe("nonce_reused")

    const agent = makeAgent(`replay-${Math.random()}`)
    const post = postPayload("said once")
    const envelope = envelopeFor(agent, "localhost/aics", "post", post.payload, { created: Math.floor(Date.now() / 1000) })
    const body = writeRequestBody(envelope, post.body)
    const writeHeaders = {
      "content-type": "application/json",
      ...signatureHeaders(server, agent.seed, { method: "POST", path: "/v2/entries", body, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires })
    }
    const write = () => fetch(`${server!.baseUrl}/v2/entries`, { method: "POST", headers: writeHeaders, body })
    expect((await write()).status).toBe(202)
    const sizeBefore = (await (await fetch(`${server.baseUrl}/healthz`)).json() as { tiles?: { size?: number } })

    await server.stop()
    server = await startServer({ dataDir: server.dataDir, port: server.port })

    const replayedRead = await getRead()
    expect(replayedRead.status).toBe(409)
    expect(replayedRead.json["code"]).toBe("nonce_reused")
    const replayedWrite = await write()
    expect(replayedWrite.status).toBe(409)
    const refusal = await replayedWrite.json() as { entry: { refused: string } }
    expect(refusal.entry.refused).toBe("nonce_reused")
    const sizeAfter = (await (await fetch(`${server.baseUrl}/healthz`)).json() as { tiles?: { size?: number } })
    expect(sizeAfter.tiles?.size).toBe(sizeBefore.tiles?.size)
  })
})
