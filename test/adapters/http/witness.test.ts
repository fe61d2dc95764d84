// The service as a C2SP tlog-witness (docs/protocol.md "Witnessing"): every status of
// add-checkpoint against a log the test signs, the cosignature checked against witness.vkey,
// a fork refused and never cosigned, concurrent requests from one size, and the last
// cosigned size kept across a restart.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { cosignaturesOf, parseCosignerKey, withSignatureLines } from "../../../src/domain/note/cosignature.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { harnessLog, postAddCheckpoint } from "../../support/harnessLog.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const log = harnessLog("harness.example/log")
const stranger = harnessLog("stranger.example/log")
let server: RunningServer
let dataDir: string

const start = () => startServer({ dataDir, env: { AICS_WITNESS_LOGS: log.vkey, AICS_WITNESS_NAME: "witness.test/w1" }, ...(server ? { port: server.port } : {}) })

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await start()
})
afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const witnessKey = async () => parseCosignerKey(nodeCrypto.sha256, (await readFile(join(dataDir, "witness.vkey"), "utf8")).trim())!

describe("POST /add-checkpoint", { timeout: 120_000 }, () => {
  it("cosigns the log's checkpoints, each consistent with the last, with witness.vkey's key", async () => {
    const key = await witnessKey()
    expect(key.name).toBe("witness.test/w1")
    const first = await postAddCheckpoint(server.baseUrl, log.request(0, 5))
    expect(first.status).toBe(200)
    expect(first.text).toMatch(/^— witness\.test\/w1 [A-Za-z0-9+/]+=*\n$/)
    const cosigned = withSignatureLines(log.note(5), [first.text])
    const opened = Either.getOrThrow(openNote(cosigned, [parseVerifierKey(nodeCrypto.sha256, log.vkey)!], nodeCrypto.ed25519))
    const cosignatures = Either.getOrThrow(cosignaturesOf(opened, [key], nodeCrypto.ed25519))
    expect(cosignatures).toHaveLength(1)
    expect(Math.abs(cosignatures[0]!.timestamp - Date.now() / 1000)).toBeLessThan(60)

    expect((await postAddCheckpoint(server.baseUrl, log.request(5, 9))).status).toBe(200)
    // The same checkpoint again, from its own size.
    expect((await postAddCheckpoint(server.baseUrl, log.request(9, 9))).status).toBe(200)
  })

  it("answers 409 with the last cosigned size on a stale old size", async () => {
    const stale = await postAddCheckpoint(server.baseUrl, log.request(0, 12))
    expect(stale).toMatchObject({ status: 409, contentType: "text/x.tlog.size", text: "9\n" })
  })

  it("refuses a fork: another root at the cosigned size (409), a proof that does not reach it (422)", async () => {
    const fork = nodeCrypto.sha256(utf8("another tree"))
    expect((await postAddCheckpoint(server.baseUrl, log.request(9, 9, fork))).status).toBe(409)
    expect((await postAddCheckpoint(server.baseUrl, log.request(9, 14, fork))).status).toBe(422)
    // Still at 9: neither was recorded.
    expect((await postAddCheckpoint(server.baseUrl, log.request(0, 14))).text).toBe("9\n")
  })

  it("answers 404 for a log it does not witness, 403 for a note the log did not sign, 400 for a bad body", async () => {
    expect((await postAddCheckpoint(server.baseUrl, stranger.request(0, 3))).status).toBe(404)
    const forged = new TextDecoder().decode(stranger.note(3)).replace(stranger.origin, log.origin)
    expect((await postAddCheckpoint(server.baseUrl, utf8(`old 0\n\n${forged}`))).status).toBe(403)
    expect((await postAddCheckpoint(server.baseUrl, utf8("old 01\n\nx\n"))).status).toBe(400)
    expect((await postAddCheckpoint(server.baseUrl, log.request(9, 9).slice(0, 0))).status).toBe(400)
    expect((await postAddCheckpoint(server.baseUrl, utf8(`old 20\n\n${new TextDecoder().decode(log.note(14))}`))).status).toBe(400)
  })

  it("advances once of concurrent requests from one size", async () => {
    const answers = await Promise.all([14, 15, 16, 17].map((n) => postAddCheckpoint(server.baseUrl, log.request(9, n))))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    const winner = [14, 15, 16, 17][answers.findIndex((a) => a.status === 200)]!
    for (const a of answers.filter((a) => a.status !== 200)) expect(a).toMatchObject({ status: 409, text: `${winner}\n` })
    expect((await postAddCheckpoint(server.baseUrl, log.request(0, 20))).text).toBe(`${winner}\n`)
  })

  it("keeps the last cosigned size across a restart", async () => {
    const before = (await postAddCheckpoint(server.baseUrl, log.request(0, 30))).text
    await server.stop()
    server = await start()
    expect(await postAddCheckpoint(server.baseUrl, log.request(0, 30))).toMatchObject({ status: 409, text: before })
    const size = Number(before.trim())
    expect((await postAddCheckpoint(server.baseUrl, log.request(size, 30))).status).toBe(200)
  })
})
