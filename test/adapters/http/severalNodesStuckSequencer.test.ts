// A stuck sequencer (issue 13 item 9, docs/operations.md "A stuck sequencer"): two nodes on
// one database take writes; the sequencing node is paused with SIGSTOP for 25 s, as a long
// GC pause, a frozen VM or a half-open network would stop it, its sockets still open. The
// lease is bounded in time (PgCoordination.ts, LEASE_IDLE_LIMIT), so writes through the
// other node are accepted again within 5 s of the pause; when the paused node resumes it
// finds itself deposed, stops sequencing, writes nothing its successor does not see, and
// follows: every write answered 202 by either node is in the log, in order. Real server
// only (several sessions).

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { presignPosts, sendInOrder, type WriteResult } from "../../support/load.js"
import { expectIncludedInOrder, leaderOf, SEQUENCING_LINE, startNodes, verifiedAtLeast, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { removeDir } from "../../support/server.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
let nodes: Array<Node> = []

afterAll(async () => {
  for (const node of nodes) {
    if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill("SIGCONT")
    await node.stop()
  }
  for (const node of nodes) await removeDir(node.dataDir)
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const PAUSE_MS = 25_000
const FAILOVER_LIMIT_MS = 5_000
/**
 * What a resumed holder logs as it stops sequencing: its heartbeat finds the lease session
 * ended (PgCoordination.ts), or, first, the batch it was committing fails on that session or
 * on the fence (Sequencer.ts).
 */
const DEPOSED_LINES = ["the sequencing lease is lost", "this process no longer sequences", "a batch could not be made durable"]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One write by a fresh key through `node`: its answer (status 0 on a network error). */
const probe = async (node: Node, label: string): Promise<WriteResult | undefined> => {
  const [result] = await sendInOrder(node.baseUrl, presignPosts({
    keys: 1, perKey: 1, origin: "localhost/aics", authority: `127.0.0.1:${node.port}`, label
  }))
  return result
}

describe.skipIf(!db.multiSession)("a sequencer paused with SIGSTOP", () => {
  it("loses the lease within 5 s; the other node writes; the paused one resumes deposed and loses nothing", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const started = await startNodes(url, 2)
    nodes = started.nodes
    const { vkey } = started
    const stuck = leaderOf(nodes)!
    expect(stuck).toBeDefined()
    const survivor = nodes.find((n) => n !== stuck)!

    // Both nodes take writes before, during and after the pause.
    const acknowledged: Array<WriteResult> = []
    const sending = nodes.map((node) =>
      sendInOrder(node.baseUrl, presignPosts({
        keys: 3, perKey: 300, origin: "localhost/aics", authority: `127.0.0.1:${node.port}`, label: `stuck-${node.port}`
      }), (r) => {
        if (r.status === 202) acknowledged.push(r)
      }))
    await sleep(500)

    const pausedAt = Date.now()
    stuck.child.kill("SIGSTOP")
    // Probes through the survivor, one fresh key each, a new one every 250 ms: the first
    // answered 202 says when the service writes again.
    let acceptedAt: number | undefined
    const probes: Array<Promise<unknown>> = []
    for (let i = 0; acceptedAt === undefined && Date.now() - pausedAt < PAUSE_MS - 1_000; i++) {
      probes.push(probe(survivor, `probe-${i}`).then((result) => {
        if (result?.status === 202) {
          acknowledged.push(result)
          acceptedAt ??= Date.now()
        }
      }))
      await sleep(250)
    }
    expect(acceptedAt, "a write through the other node was accepted while the sequencer was paused").toBeDefined()
    const failoverMs = acceptedAt! - pausedAt
    expect(survivor.output()).toContain(SEQUENCING_LINE)

    // The survivor keeps writing for the rest of the pause.
    for (let i = 0; Date.now() - pausedAt < PAUSE_MS; i++) {
      const result = await probe(survivor, `during-${i}`)
      expect(result?.status, `write ${i} during the pause`).toBe(202)
      acknowledged.push(result!)
      await sleep(200)
    }

    const before = stuck.output().length
    stuck.child.kill("SIGCONT")
    const resumedAt = Date.now()
    while (!DEPOSED_LINES.some((line) => stuck.output().slice(before).includes(line))) {
      if (Date.now() - resumedAt > 10_000) throw new Error(`the resumed node did not notice its loss:\n${stuck.output()}`)
      await sleep(50)
    }
    await Promise.all([...sending, ...probes])

    // The resumed node follows: a write through it is relayed to the survivor and accepted.
    const after = await probe(stuck, "after-resume")
    expect(after?.status).toBe(202)
    acknowledged.push(after!)
    expect(survivor.output().split(SEQUENCING_LINE).length - 1, "the survivor sequenced once, without losing the lease").toBe(1)

    // Nothing acknowledged by either node is lost, and each key's entries are in order.
    const verified = await verifiedAtLeast(survivor, vkey, 1 + Math.max(...acknowledged.map((r) => r.json!.entry["index"] as number)))
    expectIncludedInOrder(verified, acknowledged, vkey)
    console.log(`SIGSTOP for ${PAUSE_MS} ms: writes through the other node accepted again after ${failoverMs} ms; ` +
      `${acknowledged.length} entries acknowledged`)
    expect(failoverMs).toBeLessThanOrEqual(FAILOVER_LIMIT_MS)
  }, 180_000)
})
