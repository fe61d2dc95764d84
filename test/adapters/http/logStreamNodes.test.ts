// GET /v2/stream on every node of a PostgreSQL deployment (docs/protocol.md 22.5): with
// writes sent to both nodes at once, a stream on the node that does not sequence delivers
// every leaf exactly once, in order, and then a checkpoint that covers them; so does one on
// the sequencer. Needs several database sessions: the real server only (AICS_TEST_DATABASE_URL).

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { sseEvents } from "../../../src/client/logStream.js"
import { presignPosts, sendInOrder } from "../../support/load.js"
import { leaderOf, startNodes, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { removeDir } from "../../support/server.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
let nodes: ReadonlyArray<Node> = []

afterAll(async () => {
  for (const node of nodes) await node.stop()
  for (const node of nodes) await removeDir(node.dataDir)
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** Leaf indexes and checkpoint sizes from one node's stream, until a checkpoint covers `until`. */
const follow = async (node: Node, from: number, until: () => number | undefined) => {
  const controller = new AbortController()
  const response = await fetch(`${node.baseUrl}/v2/stream?from=${from}`, { signal: controller.signal })
  expect(response.status).toBe(200)
  const leaves: Array<number> = []
  const checkpoints: Array<number> = []
  try {
    for await (const event of sseEvents(response.body!)) {
      const data = JSON.parse(event.data) as { index?: number; size?: number }
      if (event.event === "leaf") leaves.push(data.index!)
      if (event.event === "checkpoint") {
        checkpoints.push(data.size!)
        const end = until()
        if (end !== undefined && data.size! >= end) break
      }
    }
  } finally {
    controller.abort()
  }
  return { leaves, checkpoints }
}

describe.skipIf(!db.multiSession)("the live stream on two nodes of one database", () => {
  it("delivers every leaf, written through either node, on either node", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const started = await startNodes(url, 2)
    nodes = started.nodes
    const [a, b] = nodes as [Node, Node]
    expect(leaderOf(nodes)).toBe(a)
    const size = ((await (await fetch(`${a.baseUrl}/healthz`)).json()) as { tree_size: number }).tree_size

    let end: number | undefined
    const onB = follow(b, size, () => end)
    const onA = follow(a, size, () => end)
    const writes = (node: Node, label: string) =>
      presignPosts({ keys: 4, perKey: 50, origin: "localhost/aics", authority: `127.0.0.1:${node.port}`, label })
    const results = (await Promise.all([sendInOrder(a.baseUrl, writes(a, "a")), sendInOrder(b.baseUrl, writes(b, "b"))])).flat()
    expect(results.filter((r) => r.status !== 202)).toEqual([])
    end = size + results.length
    // Each follow ends at the first checkpoint covering `end`: the publisher signs it after
    // the last write was answered (it waits a window after new leaves), so after `end` is set.
    const [fromB, fromA] = await Promise.all([onB, onA])
    const expected = Array.from({ length: results.length }, (_, i) => size + i)
    expect(fromB.leaves).toEqual(expected)
    expect(fromA.leaves).toEqual(expected)
    expect(Math.max(...fromB.checkpoints)).toBe(end)
    // Checkpoints only grow.
    expect([...fromB.checkpoints].sort((x, y) => x - y)).toEqual(fromB.checkpoints)
  })
})
