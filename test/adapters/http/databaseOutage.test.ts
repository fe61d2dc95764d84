// A database outage seen from two nodes (docs/operations.md "/healthz", "Logs"): both reach
// PostgreSQL through a TCP proxy, which the test cuts for a while, as an operator's walk
// found when a proxy was killed for 12 s. While it is cut, /healthz on both nodes says
// DEGRADED with storage_unavailable and, past the takeover time, no_sequencer (it said OK
// on the sequencing node throughout, while every write got 503), and the outage leaves a
// few lines in each node's log, not two stack traces a second. Once it is back, both say
// OK again by themselves on an idle log (a node that took the lease after its publisher
// failed used to keep tiles_not_written until the next checkpoint).
// Then a network that drops everything without a reset ("Several nodes behind a load
// balancer", the bounds): the proxy frozen, forwarding nothing and closing nothing, as a
// firewall or a half-open path does. The node that did not sequence used to read its
// unanswered tries for the lease as another node holding it, and the one that did to hang
// in its hand-over, both saying OK for as long as the kernel kept the connections
// (minutes); now both say storage_unavailable within seconds, and OK again once it thaws.
// Last, a replay store that fails on a node whose log works (its table aics_nonces renamed
// away and back): every signed request is refused 503, and /healthz, which said OK, says
// storage_unavailable naming the replay store, logged once; once the table is back, the
// first signed request is answered and /healthz says OK again by itself.
// Real server only (several sessions).

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { leaderOf, startNodes, type Node } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { sessionOn } from "../../support/pgSessions.js"
import { pollUntil } from "../../support/poll.js"
import { removeDir } from "../../support/server.js"
import { ownerOf, signedGet } from "../../support/signedHttp.js"
import { startTcpProxy, type TcpProxy } from "../../support/tcpProxy.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const started: Array<Node> = []
const proxies: Array<TcpProxy> = []

afterAll(async () => {
  for (const proxy of proxies) proxy.thaw()
  for (const node of started) await node.stop()
  for (const node of started) await removeDir(node.dataDir)
  for (const proxy of proxies) await proxy.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

interface Health {
  readonly status: string
  readonly reasons: ReadonlyArray<string>
}

const healthOf = async (node: Node): Promise<Health> => (await fetch(`${node.baseUrl}/healthz`)).json() as Promise<Health>

/** `count` nodes on a fresh schema, reaching it through a proxy of their own; once one sequences and all say OK. */
const nodesBehindProxy = async (count: number) => {
  const url = new URL(await Effect.runPromise(Scope.extend(db.freshSchema, scope)))
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
  proxies.push(proxy)
  url.hostname = "127.0.0.1"
  url.port = String(proxy.port)
  const { nodes } = await startNodes(url.toString(), count)
  started.push(...nodes)
  const leader = await pollUntil("a sequencing node", async () => leaderOf(nodes))
  for (const node of nodes) await pollUntil(`${node.baseUrl} OK`, async () => ((await healthOf(node)).status === "OK" ? true : undefined))
  return { proxy, nodes, leader, url: url.toString() }
}

/** Waits until every node says OK with no reason, by itself; a failure shows the last report and the node's log. */
const allOkAgain = async (nodes: ReadonlyArray<Node>, logFrom: (node: Node) => number) => {
  for (const node of nodes) {
    let last: Health | undefined
    await pollUntil(`${node.baseUrl} OK again`, async () => {
      last = await healthOf(node)
      return last.status === "OK" && last.reasons.length === 0 ? true : undefined
    }, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(last)}\n${node.stdout().slice(logFrom(node))}`)
    })
  }
}

/** The lines a node logged from character `from` of its output on: entries, and their annotations' lines. */
const linesSince = (node: Node, from: number) => node.stdout().slice(from).split("\n").filter((line) => line.trim() !== "")
/** The log entries among them (the pretty format starts each with its time). */
const entries = (lines: ReadonlyArray<string>) => lines.filter((line) => /^\[\d\d:\d\d:\d\d\.\d+\]/.test(line))
const count = (lines: ReadonlyArray<string>, text: string) => lines.filter((line) => line.includes(text)).length

describe.skipIf(!db.multiSession)("a database outage", () => {
  it("makes /healthz say so on every node while it lasts, logs it once, and heals by itself", async () => {
    const { proxy, nodes, leader } = await nodesBehindProxy(2)
    for (const node of nodes) {
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
      expect(count(lines, "LISTEN lost"), lines.join("\n")).toBeLessThanOrEqual(1)
      expect(lines.filter((line) => /^\s+at /.test(line)), lines.join("\n")).toEqual([])
      expect(entries(lines).length, lines.join("\n")).toBeLessThanOrEqual(8)
    }

    await proxy.restore()
    await allOkAgain(nodes, (node) => before[nodes.indexOf(node)]!)
  })

  it("makes /healthz say storage_unavailable on every node within seconds when it stops answering, and heals by itself", async () => {
    const { proxy, nodes } = await nodesBehindProxy(2)
    const before = nodes.map((node) => node.stdout().length)
    proxy.freeze()
    const frozenAt = Date.now()
    const said = await Promise.all(nodes.map(async (node) => {
      let last: Health | undefined
      return pollUntil(`${node.baseUrl} saying storage_unavailable`, async () => {
        last = await healthOf(node)
        const reason = last.reasons.find((r) => r.startsWith("storage_unavailable: "))
        return reason === undefined ? undefined : { reason, seconds: (Date.now() - frozenAt) / 1000 }
      }, 30_000).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(last)}\n${node.stdout().slice(before[nodes.indexOf(node)])}`)
      })
    }))
    for (const { reason, seconds } of said) {
      expect(reason).toMatch(/did not answer within|timeout exceeded when trying to connect/)
      // The holder: its heartbeat gives up (0.5 + 2 s), its next try fails (1.5 s); the
      // other: its try fails (1.5 s). The sequencer's pause of a second and slack beside.
      expect(seconds).toBeLessThan(8)
    }
    console.log(`storage_unavailable ${said.map((s) => s.seconds.toFixed(1)).join(" s and ")} s after the freeze`)
    proxy.thaw()
    await allOkAgain(nodes, (node) => before[nodes.indexOf(node)]!)
  })

  it("makes /healthz say storage_unavailable while the replay store fails and signed requests are refused, and OK once it works", async () => {
    const { nodes: [node], url } = await nodesBehindProxy(1)
    const admin = await Effect.runPromise(Scope.extend(sessionOn(url), scope))
    const run = (statement: string) => Effect.runPromise(Effect.asVoid(admin.unsafe(statement)))
    const owner = await ownerOf(node!)
    expect((await signedGet(node!, owner, "/v2/admin/notices")).status).toBe(200)
    const before = node!.stdout().length

    await run("ALTER TABLE aics_nonces RENAME TO aics_nonces_away")
    for (let i = 0; i < 3; i++) expect((await signedGet(node!, owner, "/v2/admin/notices")).status).toBe(503)
    const degraded = await healthOf(node!)
    expect(degraded.status).toBe("DEGRADED")
    expect(degraded.reasons.find((r) => r.startsWith("storage_unavailable: ")), JSON.stringify(degraded.reasons))
      .toMatch(/^storage_unavailable: the replay store failed \(remember: .*aics_nonces.* does not exist\)$/)
    const during = node!.stdout().slice(before)
    expect(during.split("the replay store fails").length - 1, during).toBe(1)

    await run("ALTER TABLE aics_nonces_away RENAME TO aics_nonces")
    expect((await signedGet(node!, owner, "/v2/admin/notices")).status).toBe(200)
    const healed = await healthOf(node!)
    expect([healed.status, healed.reasons]).toEqual(["OK", []])
    expect(node!.stdout().slice(before)).toContain("the replay store works again")
  })
})
