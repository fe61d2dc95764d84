// Two service processes on one PostgreSQL database (docs/protocol.md 14), both asking the same
// real local chain (ganache) about contributions: an intent made on one node is claimed on
// either, and a claim sent to both at once credits once. Needs several database sessions,
// so it runs on the real server only (AICS_TEST_DATABASE_URL), like severalNodes.test.ts.

import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { Address } from "viem"
import { jcs } from "../../../src/domain/envelope/jcs.js"
import { makeAgent } from "../../support/agents.js"
import { CHAIN_ID, startChain, type LocalChain } from "../../support/chain.js"
import { startNodes, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { sendEntry } from "../../support/signedHttp.js"
import { removeDir } from "../../support/server.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const ADDRESS = "0x00000000000000000000000000000000000c0ffe" as Address
const CONFIRMATIONS = 2
let chain: LocalChain | undefined
let nodes: ReadonlyArray<Node> = []

afterAll(async () => {
  for (const node of nodes) await node.stop()
  for (const node of nodes) await removeDir(node.dataDir)
  await chain?.dispose()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const post = async (node: Node, path: string, body: string) => {
  const response = await fetch(`${node.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body })
  return { status: response.status, json: await response.json() as any }
}

const balanceOn = async (node: Node, name: string, expected: number) => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const account = (await (await fetch(`${node.baseUrl}/v2/sup/accounts/${name}`)).json()) as { balance: number }
    if (account.balance === expected || Date.now() > deadline) return account.balance
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe.skipIf(!db.multiSession)("contributions on a real chain, two nodes on one database", () => {
  it("a claim answered by either node credits once", async () => {
    chain = await startChain()
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const networks = [{
      network: "devnet-eth", asset: `eip155:${CHAIN_ID}/slip44:60`, address: ADDRESS, units_per_sup: "1000000000000",
      chain_id: CHAIN_ID, rpc: [chain.url], confirmations: CONFIRMATIONS
    }]
    const started = await startNodes(url, 2, { AICS_SUP_NETWORKS: JSON.stringify(networks), AICS_SUP_ALLOW_HTTP: "true" })
    nodes = started.nodes
    const [a, b] = nodes as [Node, Node]
    const alice = makeAgent(`nodes chain alice ${Date.now()}`)
    expect((await sendEntry(a, "localhost/aics", "/v2/entries", alice, "claim", { name: "alice", x25519: alice.x25519 })).status).toBe(202)

    // An intent made on node a, paid, claimed before its confirmations on node b: no leaf.
    const made = await post(a, "/v2/sup/contributions/intents", JSON.stringify({ network: "devnet-eth", amount: 3 }))
    expect(made.status).toBe(201)
    const tx = await chain.sendNative(ADDRESS, BigInt(made.json.units))
    let created = Math.floor(Date.now() / 1000)
    const claim = () => Either.getOrThrow(jcs({ intent_id: made.json.intent_id, tx, created: ++created, name: "alice" }))
    const early = await post(b, "/v2/sup/contributions", claim())
    expect(early.status).toBe(409)
    expect(early.json.confirmations_missing).toBe(1)
    await chain.mine(CONFIRMATIONS - 1)

    // The same claim to both nodes at once, and two other claims of the transaction to each.
    const same = claim()
    const answers = await Promise.all([post(a, "/v2/sup/contributions", same), post(b, "/v2/sup/contributions", same),
      post(a, "/v2/sup/contributions", claim()), post(b, "/v2/sup/contributions", claim())])
    const credits = answers.filter((r) => r.status === 201 && r.json.code === null)
    expect(credits, JSON.stringify(answers.map((r) => [r.status, r.json.code]))).toHaveLength(1)
    // Every other answer says the claim or the transaction was settled: a 409 problem, the
    // log's refusal of a second credit, or a tx_used refusal leaf.
    for (const other of answers.filter((r) => !credits.includes(r))) {
      expect(["claim_settled", "tx_used"], JSON.stringify(other.json)).toContain(other.json.code ?? other.json.entry?.refused)
    }
    expect(await balanceOn(a, "alice", 3)).toBe(3)
    expect(await balanceOn(b, "alice", 3)).toBe(3)
    // And again later, on either node: nothing more.
    expect((await post(b, "/v2/sup/contributions", claim())).json.code).toBe("tx_used")
    expect(await balanceOn(a, "alice", 3)).toBe(3)
  }, 180_000)
})
