// Two service processes on one PostgreSQL database (issue 5, docs/protocol.md section 14),
// writes sent to both at once from many keys: every write is answered 202 with a receipt
// of one log, the entries of every key are in seq order, and the tiles of either node,
// checked by the independent verifier, hold every acknowledged leaf under one root. Needs
// several database sessions, so it runs on the real server only (AICS_TEST_DATABASE_URL).

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { checkApiProofs } from "../../support/independentVerifier.js"
import { presignPosts, sendInOrder } from "../../support/load.js"
import { copyKeys, expectIncludedInOrder, leaderOf, receiptOf, startNode, startNodes, verifiedAtLeast, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { removeDir, startServer, tempDataDir } from "../../support/server.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
let nodes: ReadonlyArray<Node> = []
let together: ReadonlyArray<Node> = []

afterAll(async () => {
  for (const node of [...nodes, ...together]) await node.stop()
  for (const node of [...nodes, ...together]) await removeDir(node.dataDir)
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const KEYS_PER_NODE = 8
const PER_KEY = 150

describe.skipIf(!db.multiSession)("two nodes on one database", () => {
  it("serve one log: every write to either node is in it, in order, under one checkpoint", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const started = await startNodes(url, 2)
    nodes = started.nodes
    const { vkey } = started
    const [a, b] = nodes as [Node, Node]
    expect(leaderOf(nodes)).toBe(a)

    const writes = (node: Node, label: string) =>
      presignPosts({ keys: KEYS_PER_NODE, perKey: PER_KEY, origin: "localhost/aics", authority: `127.0.0.1:${node.port}`, label })
    const [toA, toB] = await Promise.all([sendInOrder(a.baseUrl, writes(a, "a")), sendInOrder(b.baseUrl, writes(b, "b"))])
    const total = 2 * KEYS_PER_NODE * PER_KEY
    const results = [...toA, ...toB]
    expect(results.filter((r) => r.status !== 202).map((r) => [r.status, r.json?.entry])).toEqual([])
    expect(results.length).toBe(total)
    const indexes = new Set(results.map((r) => receiptOf(r, vkey).index))
    expect([indexes.size, Math.min(...indexes), Math.max(...indexes)]).toEqual([total, 1, total])

    // The node that relayed answers only once it has read the leaf: its own API has it.
    const lastOfB = toB[toB.length - 1]!
    const entry = await fetch(`${b.baseUrl}/v2/entries/${receiptOf(lastOfB, vkey).index}`)
    expect(entry.status).toBe(200)

    const fromA = await verifiedAtLeast(a, vkey, total + 1)
    const fromB = await verifiedAtLeast(b, vkey, total + 1)
    expect(fromB.size).toBe(fromA.size)
    expect(Buffer.from(fromB.root).equals(Buffer.from(fromA.root))).toBe(true)
    expectIncludedInOrder(fromA, results, vkey)
    expectIncludedInOrder(fromB, results, vkey)
    await checkApiProofs(b.baseUrl, vkey, fromB)
  }, 240_000)

  it("start together on an empty database: one of them writes leaf 0, both serve it", async () => {
    // The keys are made once (a start on the filesystem), then copied to both nodes.
    const keysDir = await tempDataDir()
    await (await startServer({ dataDir: keysDir })).stop()
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    together = await Promise.all([0, 1].map(async () => startNode({ databaseUrl: url, dataDir: await copyKeys(keysDir) })))
    await removeDir(keysDir)
    const leaves = await Promise.all(together.map(async (node) => (await fetch(`${node.baseUrl}/v2/entries/0`)).json()))
    expect(leaves[1]).toEqual(leaves[0])
    const sizes = await Promise.all(together.map(async (node) => {
      const health = await (await fetch(`${node.baseUrl}/healthz`)).json() as { tree_size: number }
      return health.tree_size
    }))
    expect(sizes).toEqual([1, 1])
    expect(together.filter((node) => node.output().includes("wrote leaf 0")).length).toBe(1)
  }, 120_000)
})
