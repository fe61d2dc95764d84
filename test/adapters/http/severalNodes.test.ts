// Two service processes on one PostgreSQL database (issue 5, docs/protocol.md section 14),
// writes sent to both at once from many keys: every write is answered 202 with a receipt
// of one log, the entries of every key are in seq order, and the tiles of either node,
// checked by the independent verifier, hold every acknowledged leaf under one root. And
// the off-log stores are shared too (section 14.1): a notice filed on one node is listed
// and closed on the other, an intent made on one is claimed on the other, and the owner's
// statistics on one count the requests the other answered. Needs several database
// sessions, so it runs on the real server only (AICS_TEST_DATABASE_URL).

import { appendFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { jcs } from "../../../src/domain/envelope/jcs.js"
import { makeAgent } from "../../support/agents.js"
import { checkApiProofs } from "../../support/independentVerifier.js"
import { presignPosts, sendInOrder } from "../../support/load.js"
import { copyKeys, expectIncludedInOrder, leaderOf, receiptOf, startNode, startNodes, verifiedAtLeast, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { ownerSeedOf, sendEntry, signedJson } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir } from "../../support/server.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
let nodes: ReadonlyArray<Node> = []
let together: ReadonlyArray<Node> = []
let sharing: ReadonlyArray<Node> = []
let ledgerDir: string | undefined

afterAll(async () => {
  for (const node of [...nodes, ...together, ...sharing]) await node.stop()
  for (const node of [...nodes, ...together, ...sharing]) await removeDir(node.dataDir)
  if (ledgerDir !== undefined) await removeDir(ledgerDir)
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

describe.skipIf(!db.multiSession)("two nodes on one database share the off-log stores", () => {
  const ORIGIN = "localhost/aics"
  const NETWORKS = JSON.stringify([{ network: "testnet", asset: "usdc", address: "addr-test", units_per_sup: "1000000" }])
  let a: Node
  let b: Node
  let ledger: string
  let ownerSeed: Uint8Array

  const post = async (node: Node, path: string, body: string) => {
    const response = await fetch(`${node.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body })
    return { status: response.status, json: await response.json() as any }
  }

  it("start, both reading one chain ledger file", async () => {
    ledgerDir = await tempDataDir()
    ledger = join(ledgerDir, "transfers.jsonl")
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const started = await startNodes(url, 2, { AICS_SUP_NETWORKS: NETWORKS, AICS_SUP_ALLOW_HTTP: "true", AICS_SUP_LEDGER: ledger })
    sharing = started.nodes
    ;[a, b] = sharing as [Node, Node]
    ownerSeed = await ownerSeedOf(a.dataDir)
  }, 60_000)

  it("a notice filed on A is listed on B, closed on B, and seen closed on A", async () => {
    const filed = await post(a, "/notice", JSON.stringify({
      location: "https://example.test/post/shared", explanation: "filed on node A, closed on node B", email: "shared@example.test", accurate: true
    }))
    expect(filed.status).toBe(201)
    const reportId = filed.json.report_id as string
    const open = await signedJson(b, "GET", "/v2/admin/notices?status=open", ownerSeed)
    expect(open.status).toBe(200)
    expect(open.json.notices.map((n: any) => n.report_id)).toContain(reportId)
    const closed = await signedJson(b, "POST", `/v2/admin/notices/${reportId}/close`, ownerSeed, { outcome: "no_action" })
    expect(closed.status).toBe(201)
    // Closed once: A finds it closed too.
    expect((await signedJson(a, "POST", `/v2/admin/notices/${reportId}/close`, ownerSeed, { outcome: "invalid" })).status).toBe(409)
    const onA = await signedJson(a, "GET", "/v2/admin/notices?status=closed", ownerSeed)
    expect(onA.json.notices.map((n: any) => [n.report_id, n.outcome])).toEqual([[reportId, "no_action"]])
  }, 60_000)

  it("an intent made on A is claimed on B and credited", async () => {
    const payer = makeAgent(`shared intents ${Date.now()}`)
    expect((await sendEntry(a, ORIGIN, "/v2/entries", payer, "claim", { name: "payer", x25519: payer.x25519 })).status).toBe(202)
    const made = await post(a, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 4, name: "payer" }))
    expect(made.status).toBe(201)
    // The units of an intent on A are taken on B too: B's intent of the same amount asks for others.
    const other = await post(b, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 4, name: "payer" }))
    expect(other.status).toBe(201)
    expect(other.json.units).not.toBe(made.json.units)
    const now = Math.floor(Date.now() / 1000)
    await appendFile(ledger, JSON.stringify({
      network: "testnet", tx: "0xshared", address: "addr-test", asset: "usdc", units: made.json.units, confirmed: true, time: now
    }) + "\n")
    const claim = await post(b, "/v2/sup/contributions", Either.getOrThrow(jcs({ intent_id: made.json.intent_id, tx: "0xshared", created: now })))
    expect(claim.status).toBe(201)
    expect(claim.json.code).toBeNull()
  }, 60_000)

  it("the owner's statistics on B count the requests A answered", async () => {
    for (let i = 0; i < 5; i++) expect((await fetch(`${a.baseUrl}/v2/no-such-route-${i}`)).status).toBe(404)
    // A adds its counts to the store once a minute and when it stops.
    await a.stop()
    const stats = await signedJson(b, "GET", "/v2/admin/stats?days=1", ownerSeed)
    expect(stats.status).toBe(200)
    expect(stats.json.requests.by_group_outcome.other.not_found).toBe(5)
    // The notice filed on A is counted too.
    expect(stats.json.requests.totals.by_group.notices).toBeGreaterThan(0)
  }, 60_000)
})
