// bench/write: durable writes through the real server (issue "Signed writes", Benchmark).
// 64 keys send pre-signed posts at concurrency 64 (each key's chain in order), and the
// run prints durable entries per second, 202 latency p50/p99, and the time from each 202
// to the first published checkpoint that covers the entry. The same run measures
// node:crypto Ed25519 verifications per second on one core and prints
//   efficiency = entries/s / (verifies/s / 2)
// since every write costs two verifications (the HTTP signature and the envelope's).
//
//   npm run bench:write                     # 64 keys x 300 posts, after 64 x 200 to warm up
//   node dist/bench/write.js <keys> <perKey>
//   BENCH_WARMUP_PER_KEY=0 node dist/bench/write.js   # a cold server, no warm-up
//   BENCH_COPY_FROM=<data dir> node dist/bench/write.js # on a copy of a grown log (scaleTraffic --keep), not an empty one
//
// With AICS_DATABASE_URL (PostgreSQL, issue 5) it runs twice, each time on a schema of its
// own: one node, then two nodes on the one database with half the keys writing to each;
// then it measures pgbench-style single-row INSERT commits per second on the same server
// (bench/pgInserts.ts) and prints each run's entries/s as a ratio of that.

import type { ChildProcess } from "node:child_process"
import { copyFile, cp, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../src/domain/bytes.js"
import { cutOff, percentile, presignPosts, rawGetter, sendInOrder, type WriteResult } from "../test/support/load.js"
import { freshSchema, insertCommitsPerSecond } from "./pgInserts.js"
import { serverCpu } from "./processCpu.js"
import { peakRssMiB } from "./serviceProbes.js"
import { benchServerEnv, benchServerNodeArgs, startServerProcess } from "./serverProcess.js"

const keys = Number(process.argv[2] ?? 64)
const perKey = Number(process.argv[3] ?? 300)
/** Posts per key sent before the measured run (BENCH_WARMUP_PER_KEY; 0 measures a cold server). */
const warmupPerKey = Number(process.env["BENCH_WARMUP_PER_KEY"] ?? 200)

/** Verifications per second of wall time on one core, and the CPU time of one (µs). */
const verifiesPerSecond = (): { perSecond: number; cpuMicros: number } => {
  const seed = nodeCrypto.sha256(utf8("bench verify"))
  const publicKey = nodeCrypto.ed25519.publicKey(seed)
  const messages = Array.from({ length: 64 }, (_, i) => utf8(`message ${i} `.repeat(40)))
  const signatures = messages.map((m) => nodeCrypto.ed25519.sign(seed, m))
  let count = 0
  const cpu = process.cpuUsage()
  const start = performance.now()
  while (performance.now() - start < 2000) {
    for (let i = 0; i < 64; i++) if (nodeCrypto.ed25519.verify(publicKey, messages[i]!, signatures[i]!)) count++
  }
  const used = process.cpuUsage(cpu)
  return { perSecond: count / ((performance.now() - start) / 1000), cpuMicros: (used.user + used.system) / count }
}

const databaseUrl = process.env["AICS_DATABASE_URL"]

// Extra environment for the server, space-separated NAME=value (BENCH_SERVER_ENV). Without
// it the budgets are off (AICS_RATE_LIMITS=off): 64 keys writing from one address would
// spend the per-address budget at once. The A/B of bench/README.md "Fair admission" sets
// AICS_RATE_LIMITS=on with budgets no write reaches, so every bucket is spent and nothing refused.
const serverEnv = benchServerEnv("AICS_RATE_LIMITS=off")

// Extra node arguments for the server (e.g. --cpu-prof), space-separated.
const serverArgs = benchServerNodeArgs()

const startServer = (dataDir: string, port: number, database?: string) =>
  startServerProcess({ dataDir, port, nodeArgs: serverArgs, env: { ...serverEnv, ...(database === undefined ? {} : { AICS_DATABASE_URL: database }) } })

/** A data folder to start the (filesystem) server on a copy of, instead of an empty one: the write path's slope with the log's size. */
const copyFrom = process.env["BENCH_COPY_FROM"] || undefined

/** One run: `nodes` processes (on `database`, or one on the filesystem); answers entries/s. */
const run = async (nodes: number, database?: string): Promise<number> => {
  const servers: Array<{ child: ChildProcess; dataDir: string; port: number }> = []
  for (let i = 0; i < nodes; i++) {
    const dataDir = await mkdtemp(join(tmpdir(), "aics-bench-write-"))
    if (copyFrom !== undefined && database === undefined) await cp(copyFrom, dataDir, { recursive: true })
    // Every node signs with the first node's keys, as an operator copies them.
    if (i > 0) {
      await cp(join(servers[0]!.dataDir, "keys"), join(dataDir, "keys"), { recursive: true })
      await copyFile(join(servers[0]!.dataDir, "owner.kid"), join(dataDir, "owner.kid"))
    }
    const port = 20000 + Math.floor(Math.random() * 20000)
    servers.push({ child: await startServer(dataDir, port, database), dataDir, port })
  }
  const baseUrl = `http://127.0.0.1:${servers[0]!.port}`
  try {
    // The keys are shared out between the nodes, each request signed for its node.
    const share = (i: number) => Math.floor((keys * (i + 1)) / nodes) - Math.floor((keys * i) / nodes)
    const presign = (count: number, label: string) =>
      servers.map((server, i) =>
        presignPosts({ keys: share(i), perKey: count, origin: "localhost/aics", authority: `127.0.0.1:${server.port}`, label: `${label}-${i}` }))
    const send = (writes: ReadonlyArray<ReturnType<typeof presignPosts>>) =>
      Promise.all(servers.map((server, i) => sendInOrder(`http://127.0.0.1:${server.port}`, writes[i]!))).then((all) => all.flat())

    // The warm-up, not measured: V8 compiles the write path's hot functions (some 800 of
    // them, Effect's included) with TurboFan on its helper threads during the first ten
    // thousand or so writes, so a cold run measures the compiler's warm-up too. A service
    // runs for days; the figures below are of a running one, after warmupPerKey posts from
    // other keys (bench/README.md, "Session 4").
    const warmupWrites = presign(warmupPerKey, "warmup")
    const warmup = await send(warmupWrites)
    const warmupAccepted = warmup.filter((r) => r.status === 202).length
    if (warmupAccepted !== warmup.length) throw new Error(`the warm-up had ${warmup.length - warmupAccepted} refusals`)
    const warmupCut = warmupWrites.reduce((sum, ofServer) => sum + cutOff(ofServer, warmup), 0)
    if (warmupCut > 0) throw new Error(`the server closed connections under ${warmupCut} writes of the warm-up`)
    const writes = presign(perKey, "bench")

    // Checkpoint sizes as they are published, sampled every 10 ms during the run.
    const published: Array<{ at: number; size: number }> = []
    let running = true
    const checkpoints = rawGetter(baseUrl)
    const watcher = (async () => {
      while (running) {
        const { text } = await checkpoints.get("/checkpoint")
        const size = Number(text.split("\n")[1])
        if (published.length === 0 || published[published.length - 1]!.size !== size) published.push({ at: performance.now(), size })
        await new Promise((r) => setTimeout(r, 10))
      }
    })()

    // CPU of every node, all threads, and of this process (the load generator).
    const serversCpu = () => servers.map((server) => serverCpu(server.child.pid!))
    const serverBefore = serversCpu()
    const clientBefore = process.cpuUsage()
    const started = performance.now()
    const results: Array<WriteResult> = await send(writes)
    const seconds = (performance.now() - started) / 1000
    const clientCpu = process.cpuUsage(clientBefore)
    const serverAfter = serversCpu()
    const accepted = results.filter((r) => r.status === 202)
    const cut = writes.reduce((sum, ofServer) => sum + cutOff(ofServer, results), 0)
    // A loop, not Math.max(...): a spread of 128,000 arguments (64 x 2000, a sustained run) overflows the stack.
    const lastIndex = accepted.reduce((last, r) => Math.max(last, r.json!.entry["index"] as number), -1)
    while (published[published.length - 1]!.size <= lastIndex) await new Promise((r) => setTimeout(r, 10))
    running = false
    await watcher
    checkpoints.close()

    const coverage = accepted.map((r) => {
      const index = r.json!.entry["index"] as number
      const first = published.find((p) => p.size > index && p.at >= r.answeredAt - 10)
      return first === undefined ? NaN : Math.max(0, first.at - r.answeredAt)
    })
    const entriesPerSecond = accepted.length / seconds
    const latencies = accepted.map((r) => r.latency)
    const line = (label: string, value: string) => console.log(`${label.padEnd(46)} ${value}`)
    const storage = database === undefined ? "filesystem" : `PostgreSQL, ${nodes} node${nodes > 1 ? "s" : ""}`
    console.log(`bench/write: ${keys} keys x ${perKey} posts, concurrency ${keys}, ${storage}, node ${process.version}`)
    line("warm-up (not measured)", `${warmupAccepted} posts from ${keys} other keys`)
    line("written", `${accepted.length} accepted, ${results.length - accepted.length} refused, ${seconds.toFixed(2)} s`)
    if (cut > 0) line("NOT SENT: the server closed connections", `${cut} writes never answered; the figures below measured less load`)
    line("durable entries per second", entriesPerSecond.toFixed(0))
    line("202 latency", `p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms`)
    line("202 to a covering checkpoint", `p50 ${percentile(coverage, 50).toFixed(0)} ms  p99 ${percentile(coverage, 99).toFixed(0)} ms  (sampled every 10 ms)`)
    const perEntry = (cpuSeconds: number) => `${((cpuSeconds * 1e6) / accepted.length).toFixed(0)} µs`
    const clientSeconds = (clientCpu.user + clientCpu.system) / 1e6
    const serverSeconds = serverAfter.reduce((sum, after, i) => sum + after.total - serverBefore[i]!.total, 0)
    line("CPU per entry: servers + load generator", `${perEntry(serverSeconds + clientSeconds)} = ${perEntry(serverSeconds)} + ${perEntry(clientSeconds)}`)
    const threads = [...serverAfter[0]!.threads].map(([name, after]) => [name, after - (serverBefore[0]!.threads.get(name) ?? 0)] as const)
    line(`  ${nodes > 1 ? "first node's" : "server"} threads`, threads.filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([name, s]) => `${name} ${perEntry(s)}`).join(", "))
    // How busy the event loop was: at 100% it is the bottleneck, below it the writes wait
    // for something else (I/O, another thread, a lock).
    const mainSeconds = threads.find(([name]) => name === "main")?.[1] ?? 0
    line("  event loop busy (main thread CPU / wall)", `${((mainSeconds / seconds) * 100).toFixed(0)}%`)
    // On a shared machine the wall-clock figures move with the other load; CPU time per
    // entry, counted in verifications' CPU time, does much less.
    const verificationsPerEntry = ((serverSeconds + clientSeconds) * 1e6) / accepted.length / verifyCpu
    line("  in verifications' CPU time", `${verificationsPerEntry.toFixed(2)} (one verification: ${verifyCpu.toFixed(1)} µs of CPU)`)
    line("  efficiency if the bench had both cores", `${(4 / verificationsPerEntry).toFixed(2)} (= 2 cores / CPU per entry / (1 core / 2 verifications))`)
    line(`${nodes > 1 ? "first node's" : "server's"} peak RSS (warm-up and run)`, `${peakRssMiB(servers[0]!.child.pid!).toFixed(0)} MiB`)
    line("node:crypto Ed25519 verifies per second, 1 core", verifies.toFixed(0))
    line("efficiency = entries/s / (verifies/s / 2)", `${(entriesPerSecond / (verifies / 2)).toFixed(2)} (target >= 0.6)`)
    return entriesPerSecond
  } finally {
    for (const server of servers) {
      server.child.kill("SIGTERM")
      await new Promise((r) => server.child.once("exit", r))
      await rm(server.dataDir, { recursive: true, force: true })
    }
  }
}

const { perSecond: verifies, cpuMicros: verifyCpu } = verifiesPerSecond()
if (databaseUrl === undefined) {
  await run(1)
} else {
  const perNodes: Array<[number, number]> = []
  for (const nodes of [1, 2]) {
    const schema = await freshSchema(databaseUrl)
    try {
      perNodes.push([nodes, await run(nodes, schema.url)])
    } finally {
      await schema.drop()
    }
    console.log("")
  }
  const inserts = await insertCommitsPerSecond(databaseUrl)
  console.log(`${"single-row INSERT commits per second, 16 conns".padEnd(46)} ${inserts.toFixed(0)} (pgbench-style, same server)`)
  for (const [nodes, entries] of perNodes) {
    console.log(`${`ratio entries/s / INSERT commits/s, ${nodes} node${nodes > 1 ? "s" : ""}`.padEnd(46)} ${(entries / inserts).toFixed(3)}`)
  }
}
