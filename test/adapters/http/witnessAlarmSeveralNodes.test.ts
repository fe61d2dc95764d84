// A log on PostgreSQL served by two nodes, submitting to a witness that cosigned more leaves
// of its origin than the log holds (a fake witness over HTTP that decides as the real one
// does, domain/witness/addCheckpoint.ts): the log went back, as after a restore of an older
// dump. The alarm the sequencing node raises is stored with the witness's size, so both
// nodes are DIVERGED (503, `log_diverged` and `witness_saw_another_history`) and refuse
// every write log_unavailable, whichever node takes it; the node that takes the lease over
// stays so though it could not ask the witness itself; a node started after is diverged
// from its start. Once the witness cosigns this log again the alarm clears on both, and the
// nodes, restarted by the operator, say OK and take writes again.

import type { Server } from "node:http"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeAgent } from "../../support/agents.js"
import { closeWitness, serveWitness as serveFakeWitness, witnessIdentity, type FakeWitness } from "../../support/fakeWitness.js"
import { copyKeys, SEQUENCING_LINE, startNode, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { pollUntil } from "../../support/poll.js"
import { freePort, removeDir, tempDataDir } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const started: Array<Node> = []
const dirs: Array<string> = []
let witnessServer: Server | undefined

afterAll(async () => {
  for (const s of started) await s.stop()
  await closeWitness(witnessServer)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  for (const d of dirs) await removeDir(d)
})

const WITNESS = "w.test/witness"
const identity = witnessIdentity(WITNESS)
const witnessVkey = identity.vkey
const serveWitness = (w: FakeWitness, port: number) => serveFakeWitness(w, identity, port)

interface Health {
  readonly status: string
  readonly reasons: ReadonlyArray<string>
  readonly witnesses: { readonly witnesses: ReadonlyArray<{ readonly cosigned_size: number | null; readonly error: string | null }> }
}

const health = async (node: Node): Promise<Health> => await (await fetch(`${node.baseUrl}/healthz`)).json() as Health

const alarmOf = (h: Health) => h.reasons.find((r) => r.startsWith(`witness_saw_another_history: ${WITNESS}: `))
const divergedOf = (h: Health) => h.reasons.find((r) => r.startsWith("log_diverged: "))

/** The node's /healthz once it reports the alarm and says DIVERGED. */
const reportsDiverged = (node: Node, timeoutMs = 60_000) =>
  pollUntil(`${node.baseUrl} reporting the witness's alarm, diverged`, async () => {
    const h = await health(node)
    return alarmOf(h) !== undefined && h.status === "DIVERGED" ? h : undefined
  }, timeoutMs)

let writes = 0
/** A write through the node: its HTTP status and what the entry said. */
const write = async (node: Node) => {
  const agent = makeAgent(`alarm writer ${writes}`)
  const sent = await sendEntry(node, "localhost/aics", "/v2/entries", agent, "claim", { name: `alarm-writer-${writes++}`, x25519: agent.x25519 })
  return { status: sent.status, entry: sent.json.entry }
}

/** The write is refused log_unavailable (the signed 503) for the log that went back. */
const expectRefused = async (node: Node) => {
  const refused = await write(node)
  expect(refused.status).toBe(503)
  expect(refused.entry["refused"]).toBe("log_unavailable")
  expect(refused.entry["detail"]).toContain("cosigned size 1000 of this origin, above this log's 1:")
}

describe.skipIf(!db.multiSession)("the alarm of a witness that cosigned more leaves than the log holds, on two nodes", () => {
  it("makes every node diverged, through a lease handover and a restart, until the witness cosigns again and the nodes restart", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    // The witness cosigned a tree of this origin far larger than the log will hold: the
    // log went back (a restored copy).
    const witness: FakeWitness = { logKey: undefined, state: { size: 1000, rootHash: new Uint8Array(32).fill(7) }, down: false }
    const witnessPort = await freePort()
    witnessServer = await serveWitness(witness, witnessPort)
    const env = { AICS_WITNESSES: `http://127.0.0.1:${witnessPort} ${witnessVkey}`, AICS_WITNESS_QUORUM: "1" }

    const firstDir = await tempDataDir()
    dirs.push(firstDir)
    const a = await startNode({ databaseUrl: url, dataDir: firstDir, env })
    started.push(a)
    witness.logKey = parseVerifierKey(nodeCrypto.sha256, (await readFile(join(firstDir, "log.vkey"), "utf8")).trim())!
    const secondDir = await copyKeys(firstDir)
    dirs.push(secondDir)
    const b = await startNode({ databaseUrl: url, dataDir: secondDir, env })
    started.push(b)
    expect(a.output()).toContain(SEQUENCING_LINE)

    // A, sequencing, finds it out; B, which submits nothing, finds it in the stored alarm.
    const onA = await reportsDiverged(a)
    const onB = await reportsDiverged(b)
    expect(alarmOf(onA)).toContain("it saw another history")
    expect(alarmOf(onB)).toBe(alarmOf(onA))
    expect(divergedOf(onA)).toBe(
      `log_diverged: witness ${WITNESS} (http://127.0.0.1:${witnessPort}) cosigned size 1000 of this origin, above this log's 1: the log went back (restored from a copy older than what was published); restore the database or data folder that holds those leaves`)
    expect(divergedOf(onB)).toBe(divergedOf(onA))
    expect(onB.witnesses.witnesses[0]!.error).toBeNull()
    // Neither node takes a write: not the sequencing one, nor the one that would relay it.
    await expectRefused(a)
    await expectRefused(b)

    // The lease passes to B while the witness is away: B cannot find the fork out anew, and
    // stays diverged.
    witness.down = true
    await a.stop()
    await pollUntil("B taking the lease", async () => (b.output().includes(SEQUENCING_LINE) ? true : undefined), 60_000)
    const taken = await pollUntil("B failing to reach the witness", async () => {
      const h = await health(b)
      return h.witnesses.witnesses[0]!.error?.startsWith("503") === true ? h : undefined
    }, 60_000)
    expect(taken.status).toBe("DIVERGED")
    expect(alarmOf(taken)).toBe(alarmOf(onA))
    await expectRefused(b)

    // A starts again, now a follower: diverged from its start.
    const again = await a.restart()
    started.push(again)
    expect(alarmOf(await reportsDiverged(again, 10_000))).toBe(alarmOf(onA))
    await expectRefused(again)

    // The witness back and set right (it forgets the other history): B's next attempt
    // (after its backoff) is cosigned, and the alarm clears on both nodes. They stay
    // diverged until the operator, having looked, restarts them.
    witness.state = undefined
    witness.down = false
    for (const node of [b, again]) {
      const cleared = await pollUntil(`${node.baseUrl} without the alarm`, async () => {
        const h = await health(node)
        return alarmOf(h) === undefined && (h.witnesses.witnesses[0]!.cosigned_size ?? 0) > 0 ? h : undefined
      }, 120_000)
      expect(cleared.status).toBe("DIVERGED")
    }
    await b.stop()
    await again.stop()
    const restarted = [await b.restart(), await again.restart()]
    started.push(...restarted)
    for (const node of restarted) {
      const ok = await pollUntil(`${node.baseUrl} OK again`, async () => {
        const h = await health(node)
        return h.status === "OK" ? h : undefined
      }, 60_000)
      expect(divergedOf(ok)).toBeUndefined()
    }
    expect((await write(restarted[0]!)).status).toBe(202)
  }, 400_000)
})
