// The names projection on PostgreSQL with two nodes (issue 12, "Several nodes"): both read
// the shared projection tables, and either may fold the log into them (a fold step locks
// the meta row, so the same leaves are never applied twice). Claims sent to either node are
// in both nodes' directories, searches and name views at once; after the sequencing node is
// killed the other takes over, and the killed node, restarted, answers the same.

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeAgent } from "../support/agents.js"
import { claimPayload } from "../support/identityAgents.js"
import { leaderOf, startNodes, type Node } from "../support/nodes.js"
import { testDatabase } from "../support/pg.js"
import { removeDir } from "../support/server.js"
import { sendEntry } from "../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const db = testDatabase()
const scope = Effect.runSync(Scope.make())
let nodes: Array<Node> = []

afterAll(async () => {
  for (const node of nodes) await node.stop()
  for (const node of nodes) await removeDir(node.dataDir)
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const json = async (node: Node, path: string): Promise<any> => {
  const response = await fetch(`${node.baseUrl}${path}`)
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200)
  return response.json()
}

const claimOn = async (node: Node, name: string) => {
  const agent = makeAgent(`projection nodes ${Date.now()} ${name}`)
  const sent = await sendEntry(node, ORIGIN, "/v2/entries", agent, "claim", claimPayload(name, agent))
  expect(sent.status, JSON.stringify(sent.json)).toBe(202)
}

const namesOn = async (node: Node, q?: string) =>
  (await json(node, `/v2/directory?limit=500${q === undefined ? "" : `&q=${q}`}`)).names.map((n: any) => n.name)

describe.skipIf(!db.multiSession)("the names projection on two nodes", () => {
  it("is shared: a claim on either node is in both directories, also after the sequencer is killed", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    nodes = [...(await startNodes(url, 2)).nodes]
    const [a, b] = nodes as [Node, Node]
    expect(leaderOf(nodes)).toBe(a)
    // The node that does not sequence says what it does instead.
    await expect.poll(() => b.output(), { timeout: 10_000 }).toContain("another process sequences the log: this one hands it its writes")
    expect(a.output()).not.toContain("another process sequences the log")

    await claimOn(a, "heron-on-a")
    await claimOn(b, "heron-on-b")
    await claimOn(a, "wren-on-a")
    for (const node of [a, b]) {
      expect(await namesOn(node)).toEqual(["heron-on-a", "heron-on-b", "wren-on-a"])
      expect(await namesOn(node, "heron")).toEqual(["heron-on-a", "heron-on-b"])
      expect(await namesOn(node, "n-b")).toEqual(["heron-on-b"])
      expect((await json(node, "/v2/names/heron-on-b")).claim_index).toBe((await json(a, "/v2/names/heron-on-b")).claim_index)
    }

    await a.kill()
    // B takes the lease once A's session is gone; its writes are then sequenced by B.
    const until = Date.now() + 30_000
    for (;;) {
      const agent = makeAgent(`projection nodes ${Date.now()} after`)
      const sent = await sendEntry(b, ORIGIN, "/v2/entries", agent, "claim", claimPayload("owl-after-a", agent))
      if (sent.status === 202) break
      expect(Date.now(), JSON.stringify(sent.json)).toBeLessThan(until)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(await namesOn(b, "owl")).toEqual(["owl-after-a"])

    const restarted = await a.restart()
    nodes = [restarted, b]
    expect(await namesOn(restarted)).toEqual(await namesOn(b))
    expect(await namesOn(restarted)).toEqual(["heron-on-a", "heron-on-b", "wren-on-a", "owl-after-a"])
  })
})
