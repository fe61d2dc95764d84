// A database outage seen from two nodes (docs/operations.md "/healthz", "Logs"): both reach
// PostgreSQL through a TCP proxy, which the test cuts for a while, as an operator's walk
// found when a proxy was killed for 12 s. While it is cut, /healthz on both nodes says
// DEGRADED with storage_unavailable and, past the takeover time, no_sequencer (it said OK
// on the sequencing node throughout, while every write got 503), and the outage leaves a
// few lines in each node's log, not two stack traces a second. Once it is back, both say
// OK again by themselves on an idle log (a node that took the lease after its publisher
// failed used to keep tiles_not_written until the next checkpoint). Real server only
// (several sessions).

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { leaderOf, startNodes, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { pollUntil } from "../../support/poll.js"
import { removeDir } from "../../support/server.js"
import { startTcpProxy, type TcpProxy } from "../../support/tcpProxy.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
let nodes: Array<Node> = []
let proxy: TcpProxy | undefined

afterAll(async () => {
  for (const node of nodes) await node.stop()
  for (const node of nodes) await removeDir(node.dataDir)
  await proxy?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

interface Health {
  readonly status: string
  readonly reasons: ReadonlyArray<string>
}

const healthOf = async (node: Node): Promise<Health> => (await fetch(`${node.baseUrl}/healthz`)).json() as Promise<Health>

/** The lines a node logged from character `from` of its output on: entries, and their annotations' lines. */
const linesSince = (node: Node, from: number) => node.stdout().slice(from).split("\n").filter((line) => line.trim() !== "")
/** The log entries among them (the pretty format starts each with its time). */
const entries = (lines: ReadonlyArray<string>) => lines.filter((line) => /^\[\d\d:\d\d:\d\d\.\d+\]/.test(line))
const count = (lines: ReadonlyArray<string>, text: string) => lines.filter((line) => line.includes(text)).length

describe.skipIf(!db.multiSession)("a database outage", () => {
  it("makes /healthz say so on every node while it lasts, logs it once, and heals by itself", async () => {
    const url = new URL(await Effect.runPromise(Scope.extend(db.freshSchema, scope)))
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    url.hostname = "127.0.0.1"
    url.port = String(proxy.port)
    nodes = (await startNodes(url.toString(), 2)).nodes
    const leader = await pollUntil("a sequencing node", async () => leaderOf(nodes))
    for (const node of nodes) {
      await pollUntil(`${node.baseUrl} OK`, async () => ((await healthOf(node)).status === "OK" ? true : undefined))
      // The start's last line, written after the server listens.
      await pollUntil(`${node.baseUrl} started`, async () => (node.stdout().includes("says how to run, back up and watch it") ? true : undefined))
    }
    const before = nodes.map((node) => node.stdout().length)

    await proxy.cut()
    for (const node of nodes) {
      const degraded = await pollUntil(`${node.baseUrl} naming the outage`, async () => {
        const health = await healthOf(node)
        return health.reasons.some((r) => r.startsWith("no_sequencer: ")) ? health : undefined
      }, 20_000)
      expect(degraded.status).toBe("DEGRADED")
      expect(degraded.reasons.find((r) => r.startsWith("storage_unavailable: ")), JSON.stringify(degraded.reasons)).toMatch(/ECONNREFUSED|Connection terminated/)
    }
    // Tried every second for over five seconds, said once (and no stack trace).
    const during = nodes.map((node, i) => linesSince(node, before[i]!))
    for (const [i, lines] of during.entries()) {
      const node = nodes[i]!
      expect(count(lines, "sequencing stopped"), lines.join("\n")).toBe(node === leader ? 1 : 0)
      expect(count(lines, "this process cannot try for the sequencing lease"), lines.join("\n")).toBe(node === leader ? 0 : 1)
      expect(count(lines, "reading new leaves failed"), lines.join("\n")).toBeLessThanOrEqual(1)
      expect(lines.filter((line) => /^\s+at /.test(line)), lines.join("\n")).toEqual([])
      expect(entries(lines).length, lines.join("\n")).toBeLessThanOrEqual(8)
    }

    await proxy.restore()
    for (const node of nodes) {
      let last: Health | undefined
      await pollUntil(`${node.baseUrl} OK again`, async () => {
        last = await healthOf(node)
        return last.status === "OK" && last.reasons.length === 0 ? true : undefined
      }, 20_000).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(last)}\n${node.stdout().slice(before[nodes.indexOf(node)]!)}`)
      })
    }
  })
})
