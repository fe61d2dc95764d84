// A log on PostgreSQL served by two nodes, witnessed by a third service: whichever node
// sequences collects the cosignatures, and both serve the checkpoint with the witness's
// line (the lines are stored in the database, not in one process's memory).

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { parseCheckpoint } from "../../../src/domain/note/checkpoint.js"
import { cosignaturesOf, parseCosignerKey } from "../../../src/domain/note/cosignature.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeAgent } from "../../support/agents.js"
import { copyKeys, startNode, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { freePort, removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"
import { pollUntil } from "../../support/poll.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const started: Array<RunningServer | Node> = []
const dirs: Array<string> = []

afterAll(async () => {
  for (const s of started) await s.stop()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  for (const d of dirs) await removeDir(d)
})


describe.skipIf(!db.multiSession)("a witnessed log on two nodes", () => {
  it("serves the witness's cosignature from both nodes", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const witnessDir = await tempDataDir()
    dirs.push(witnessDir)
    const witnessPort = await freePort()
    const first = await startServer({ dataDir: witnessDir, port: witnessPort, env: { AICS_DOMAIN: "w.test" } })
    const witnessVkey = (await readFile(join(witnessDir, "witness.vkey"), "utf8")).trim()
    await first.stop()

    const env = { AICS_WITNESSES: `http://127.0.0.1:${witnessPort} ${witnessVkey}` }
    const nodeDir = await tempDataDir()
    dirs.push(nodeDir)
    const a = await startNode({ databaseUrl: url, dataDir: nodeDir, env })
    started.push(a)
    const logVkey = (await readFile(join(nodeDir, "log.vkey"), "utf8")).trim()
    const witness = await startServer({ dataDir: witnessDir, port: witnessPort, env: { AICS_DOMAIN: "w.test", AICS_WITNESS_LOGS: logVkey } })
    started.push(witness)
    const secondDir = await copyKeys(nodeDir)
    dirs.push(secondDir)
    const b = await startNode({ databaseUrl: url, dataDir: secondDir, env })
    started.push(b)

    const agent = makeAgent("witnessed on two nodes")
    const sent = await sendEntry(b, "localhost/aics", "/v2/entries", agent, "claim", { name: "two-nodes", x25519: agent.x25519 })
    expect(sent.status).toBe(202)

    const logKey = parseVerifierKey(nodeCrypto.sha256, logVkey)!
    const witnessKey = parseCosignerKey(nodeCrypto.sha256, witnessVkey)!
    for (const node of [a, b]) {
      await pollUntil(`${node.baseUrl} serving a cosigned checkpoint past ${sent.index}`, async () => {
        const note = new Uint8Array(await (await fetch(`${node.baseUrl}/checkpoint`)).arrayBuffer())
        const opened = Either.getOrThrow(openNote(note, [logKey], nodeCrypto.ed25519))
        const cosigned = Either.getOrThrow(cosignaturesOf(opened, [witnessKey], nodeCrypto.ed25519)).length === 1
        return cosigned && parseCheckpoint(opened.text)!.size > sent.index ? true : undefined
      })
      const health = await (await fetch(`${node.baseUrl}/healthz`)).json() as Record<string, any>
      expect(health["witnesses"].witnesses[0].cosigned_size).toBeGreaterThan(sent.index)
    }
  }, 200_000)
})
