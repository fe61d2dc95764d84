// A node on PostgreSQL keeps the last checkpoint it published in its own data folder
// (AICS_DATA_DIR/last-checkpoint, ports/KeptCheckpoint.ts), the one copy outside the
// database: started on a database whose log holds fewer leaves (a dump older than what was
// published, restored), the node is DIVERGED from its start, naming both sizes, refuses
// writes with the signed 503 log_unavailable, publishes no checkpoint, and leaves the kept
// one as it was. The "older dump" is a second schema whose log a node with the same keys
// began and left at its charter.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { parseCheckpoint } from "../../../src/domain/note/checkpoint.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeAgent } from "../../support/agents.js"
import { copyKeys, startNode, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { pollUntil } from "../../support/poll.js"
import { removeDir, tempDataDir } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const started: Array<Node> = []
const dirs: Array<string> = []

afterAll(async () => {
  for (const s of started) await s.stop()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  for (const d of dirs) await removeDir(d)
})

const ORIGIN = "localhost/aics"

/** The size of the checkpoint note the bytes hold, opened with the log's key. */
const sizeOf = (note: Uint8Array, vkey: string) =>
  parseCheckpoint(Either.getOrThrow(openNote(note, [parseVerifierKey(nodeCrypto.sha256, vkey)!], nodeCrypto.ed25519)).text)!.size

const servedSize = async (node: Node, vkey: string) => {
  const response = await fetch(`${node.baseUrl}/checkpoint`)
  return response.status === 200 ? sizeOf(new Uint8Array(await response.arrayBuffer()), vkey) : undefined
}

const kept = (dataDir: string) => readFile(join(dataDir, "last-checkpoint")).then((b) => new Uint8Array(b), () => undefined)

let writes = 0
const write = async (node: Node) => {
  const agent = makeAgent(`kept checkpoint writer ${writes}`)
  const sent = await sendEntry(node, ORIGIN, "/v2/entries", agent, "claim", { name: `kept-${writes++}`, x25519: agent.x25519 })
  return { status: sent.status, entry: sent.json.entry }
}

describe.skipIf(!db.multiSession)("the checkpoint a node keeps in its data folder, on PostgreSQL", () => {
  it("makes a node started on a database older than what it published DIVERGED, refusing writes and publishing nothing", async () => {
    const newer = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const older = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const dataDir = await tempDataDir()
    dirs.push(dataDir)

    // The node publishes a checkpoint of 4 leaves and keeps it.
    const first = await startNode({ databaseUrl: newer, dataDir })
    started.push(first)
    const vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
    for (let i = 0; i < 3; i++) expect((await write(first)).status).toBe(202)
    const keptNote = await pollUntil("the node keeping the checkpoint of 4 leaves", async () => {
      const note = await kept(dataDir)
      return note !== undefined && sizeOf(note, vkey) === 4 ? note : undefined
    })
    await first.stop()

    // The older database: the same keys, a log left at its charter, with its checkpoint.
    const otherDir = await copyKeys(dataDir)
    dirs.push(otherDir)
    const other = await startNode({ databaseUrl: older, dataDir: otherDir })
    started.push(other)
    await pollUntil("the older database's checkpoint of 1 leaf", async () => ((await servedSize(other, vkey)) === 1 ? true : undefined))
    await other.stop()

    // The node, its data folder kept, started on the older database.
    const restored = await startNode({ databaseUrl: older, dataDir })
    started.push(restored)
    const response = await fetch(`${restored.baseUrl}/healthz`)
    expect(response.status).toBe(503)
    const health = await response.json() as { status: string; reasons: ReadonlyArray<string> }
    expect(health.status).toBe("DIVERGED")
    expect(health.reasons).toContain(
      "log_diverged: the checkpoint this node kept (last-checkpoint in AICS_DATA_DIR) has 4 leaves but the log only 1: the log went back (a database or data folder restored from a copy older than what was published); restore the copy that holds those leaves")
    expect(restored.output()).toContain("the log diverged from what it published (the checkpoint this node kept")

    const refused = await write(restored)
    expect(refused.status).toBe(503)
    expect(refused.entry["refused"]).toBe("log_unavailable")
    expect(refused.entry["detail"]).toContain("has 4 leaves but the log only 1")
    expect(await servedSize(restored, vkey)).toBe(1)
    // The kept checkpoint is the evidence: left as it was.
    expect(await kept(dataDir)).toEqual(keptNote)
  }, 200_000)
})
