// bench/scaleTraffic: the service at a log size, as an operator would find it (issue 12,
// "Figures"). It grows the log to <size> entries with realistic signed traffic through the
// real sequencer and stores (bench/trafficGenerate.ts, in a child process of its own), then
// starts the real service on it and prints:
//   - time to /healthz and to the first accepted write, and RSS idle after the start (and
//     the same times on an empty log: module loading and the like, which no size explains);
//   - disk bytes per entry of the log, bodies, tiles and state.db (PostgreSQL: its tables);
//   - p50/p99, one request at a time, of GET /v2/names/{name}, /v2/directory?q=,
//     /v2/agora/posts?channel=, /v2/inbox/{kid} (and the signed GET /v2/inbox),
//     /v2/online?window= (a random window: each answer counted anew from the activity index),
//     /v2/entries/{i} and /v2/tlog/proof/{i};
//   - GET /v2/entries/{i} requests per second from several connections;
//   - durable entries per second and RSS under bench/write's load (keys posting at once);
//   - a SIGKILL in the middle of such a load, then a start again: time to /healthz and to a
//     write, and whether every acknowledged entry is in the log.
//
//   npm run build && node dist/bench/scaleTraffic.js <size> [--pg <url>] [--data <dir>] [--keep]
//
// --data <dir>: the service's data folder, kept; a log already there is continued up to
// <size> (so a 1,000,000 log can be grown from a 100,000 one). Without it a temporary
// folder is used, removed at the end unless --keep.
// --pg <url>: the log and projection in PostgreSQL (AICS_DATABASE_URL), in a schema of its
// own (search_path), dropped at the end unless --keep; with --keep its name is written to
// <dir>/scaleTraffic.schema, and a later run with the same --data continues on it.
//
// Knobs: BENCH_SERVER_ENV and BENCH_SERVER_LOG as bench/write's, BENCH_WRITE_KEYS (64), BENCH_WRITE_PER_KEY (150), BENCH_WARMUP_PER_KEY (50),
// BENCH_READS (300 a route), BENCH_READ_CONNECTIONS (8), BENCH_GENERATOR_HEAP_MB (8192: the
// sequencer keeps the whole state in memory beside its store until the views move).

import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../src/domain/encoding.js"
import { signRequest } from "../src/domain/http/messageSignature.js"
import { rawGetter } from "../test/support/load.js"
import { type DiskParts, filesystemParts, postgresParts } from "./diskUsage.js"
import { schemaOn } from "./pgInserts.js"
import { benchServerEnv } from "./serverProcess.js"
import { type Latencies, type Request, readsPerSecond, rssMiB, stop, timedReads, timedStart, writeLoad } from "./serviceProbes.js"
import type { GenerateSummary } from "./trafficGenerate.js"
import { agentSeed, kidOfSeed } from "./trafficKeys.js"
import { nameOf } from "./trafficModel.js"

const args = process.argv.slice(2)
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const size = Number(args[0])
const pgUrl = option("--pg")
const keep = args.includes("--keep")
const given = option("--data")
if (!Number.isSafeInteger(size) || size < 1 || (args.includes("--pg") && pgUrl === undefined) || (args.includes("--data") && given === undefined)) {
  console.error("usage: node dist/bench/scaleTraffic.js <size> [--pg <url>] [--data <dir>] [--keep]")
  process.exit(2)
}
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const WRITE_KEYS = knob("BENCH_WRITE_KEYS", 64)
const WRITE_PER_KEY = knob("BENCH_WRITE_PER_KEY", 150)
const WARMUP_PER_KEY = knob("BENCH_WARMUP_PER_KEY", 50)
const READS = knob("BENCH_READS", 300)
const READ_CONNECTIONS = knob("BENCH_READ_CONNECTIONS", 8)
const GENERATOR_HEAP_MB = knob("BENCH_GENERATOR_HEAP_MB", 8192)
/** Acknowledged writes before the SIGKILL of the crash phase. */
const KILL_AFTER = 1000

const line = (label: string, value: string) => console.log(`${label.padEnd(52)} ${value}`)
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`
const seconds = (x: number) => `${(x / 1000).toFixed(2)} s`
const mib = (x: number) => `${x.toFixed(0)} MiB`
const latency = (l: Latencies) =>
  `p50 ${ms(l.p50)}  p99 ${ms(l.p99)}${Object.keys(l.failures).length === 0 ? "" : `  (not 200: ${JSON.stringify(l.failures)})`}`
const randomBelow = (n: number) => Math.floor(Math.random() * n)

/** Runs the generator in a child process up to `size` leaves; its lines are shown as they come, its summary answered. */
const generate = (dataDir: string, databaseUrl: string | undefined): Promise<GenerateSummary> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${GENERATOR_HEAP_MB}`, "dist/bench/trafficGenerate.js", String(size)], {
      env: { PATH: process.env["PATH"] ?? "", AICS_DATA_DIR: dataDir, ...(databaseUrl === undefined ? {} : { AICS_DATABASE_URL: databaseUrl }) },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let summary: GenerateSummary | undefined
    createInterface({ input: child.stdout! }).on("line", (text) => {
      if (text.startsWith("SUMMARY ")) summary = JSON.parse(text.slice("SUMMARY ".length)) as GenerateSummary
      else if (!text.startsWith("timestamp=") || text.includes("level=ERROR") || text.includes("level=WARN")) console.log(`  generator: ${text}`)
    })
    child.once("exit", (code) => (code === 0 && summary !== undefined ? resolve(summary) : reject(new Error(`the generator exited with ${code}`))))
  })

/** The signature headers of a GET by `seed`'s key (docs/spec/profile.md section 6). */
const signedRead = (seed: Uint8Array, authority: string, path: string): Record<string, string> => {
  const created = Math.floor(Date.now() / 1000)
  const signed = signRequest({
    seed, keyid: kidOfSeed(seed), nonce: encodeU64(crypto.getRandomValues(new Uint8Array(16))), created, expires: created + 300,
    method: "GET", authority, path, body: new Uint8Array(0)
  }, nodeCrypto)
  if (signed._tag === "Left") throw new Error(signed.left.message)
  const h = signed.right
  return { "content-digest": h["Content-Digest"], "signature-input": h["Signature-Input"], signature: h.Signature }
}

/** A part of 3 to 6 characters of a random agent's name, as people search the directory. */
const namePart = (agents: number) => {
  const name = nameOf(randomBelow(agents))
  const length = 3 + randomBelow(4)
  return name.slice(randomBelow(name.length - length + 1)).slice(0, length)
}

const printDisk = (parts: DiskParts, leaves: number) => {
  const total = parts.reduce((sum, [, bytes]) => sum + bytes, 0)
  line("disk bytes per entry", `${(total / leaves).toFixed(0)} B in all (${(total / 2 ** 20).toFixed(0)} MiB)`)
  for (const [part, bytes] of parts) line(`  ${part}`, `${(bytes / leaves).toFixed(0)} B/entry (${(bytes / 2 ** 20).toFixed(1)} MiB)`)
}

/** A start on a new data folder (and schema): module loading, keys, the charter; the part of a start no log size explains. */
const emptyStart = async (server: string | undefined) => {
  const dir = mkdtempSync(join(tmpdir(), "aics-bench-scale-empty-"))
  const database = server === undefined ? undefined : await schemaOn(server, `aics_scale_empty_${process.pid}`)
  try {
    const started = await timedStart(dir, { AICS_RATE_LIMITS: "off", ...(database === undefined ? {} : { AICS_DATABASE_URL: database.url }) })
    await stop(started)
    return started
  } finally {
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The machine's load: on a shared machine wall-clock figures move with it, CPU per entry much less. */
const loadLine = (when: string) => line(`machine load average (1, 5 min) ${when}`, loadavg().slice(0, 2).map((l) => l.toFixed(1)).join(", "))

const measure = async (dataDir: string, databaseUrl: string | undefined, schema: string | undefined) => {
  const storage = databaseUrl === undefined ? "filesystem" : "PostgreSQL"
  console.log(`bench/scaleTraffic: ${size} entries, ${storage}, data ${dataDir}, node ${process.version}`)
  loadLine("at the start")
  const generated = await generate(dataDir, databaseUrl)
  const leaves = generated.size
  line("generated", `${generated.accepted} entries (${generated.start} to ${leaves}) in ${generated.seconds.toFixed(1)} s: ${generated.perSecond.toFixed(0)} entries/s`)
  if (generated.accepted > 0) line("  generator CPU per entry (sequencer, stores, signing)", ms(generated.cpuMsPerEntry))
  if (generated.accepted > 0) {
    line("  mix", Object.entries(generated.byType).sort((a, b) => b[1] - a[1]).map(([type, n]) => `${type} ${n}`).join(", "))
  }
  line("  refused (a flaw of the generator if any)", JSON.stringify(generated.refused))
  line("  generator start / read back / max RSS", `${generated.startSeconds.toFixed(1)} s / ${generated.readBackSeconds.toFixed(1)} s / ${mib(generated.maxRssMiB)}`)
  line("  agents", `${generated.agents} named, ${generated.channels.length} channels`)
  printDisk(databaseUrl === undefined ? filesystemParts(dataDir) : await postgresParts(pgUrl!, schema!), leaves)

  // BENCH_SERVER_ENV adds settings (e.g. AICS_MEMORY_TARGET_MIB=0 AICS_LOG_LEVEL=debug, with BENCH_SERVER_LOG=<file>).
  const env: Record<string, string> = { AICS_RATE_LIMITS: "off", ...benchServerEnv(""), ...(databaseUrl === undefined ? {} : { AICS_DATABASE_URL: databaseUrl }) }
  const empty = await emptyStart(pgUrl)
  line("start on an empty log (what no log size explains)",
    `to /healthz ${seconds(empty.healthzMs)} (${empty.healthzCpuSeconds.toFixed(1)} s of CPU), to first 202 ${seconds(empty.firstWriteMs)}`)
  let service = await timedStart(dataDir, env)
  line("start: to Listening / to /healthz / to first 202", `${seconds(service.listenMs)} / ${seconds(service.healthzMs)} / ${seconds(service.firstWriteMs)}`)
  line("  CPU used by the start up to /healthz", `${service.healthzCpuSeconds.toFixed(1)} s`)
  try {
    await new Promise((resolve) => setTimeout(resolve, 5000))
    line("RSS idle after the start (5 s after its first write)", mib(rssMiB(service.child.pid!)))

    const { authority } = service
    const agents = generated.agentNumbers
    const recipients = generated.dmRecipients
    const requests = (make: () => Request) => Array.from({ length: READS + 20 }, make)
    const routes: ReadonlyArray<readonly [string, ReadonlyArray<Request>]> = [
      ["GET /v2/names/{name}", requests(() => ({ path: `/v2/names/${nameOf(randomBelow(agents))}` }))],
      ["GET /v2/directory?q= (3-6 chars of a name)", requests(() => ({ path: `/v2/directory?q=${encodeURIComponent(namePart(agents))}` }))],
      ["GET /v2/agora/posts?channel=", requests(() => ({ path: `/v2/agora/posts?channel=${generated.channels[randomBelow(generated.channels.length)]}` }))],
      ["GET /v2/inbox/{kid} (a DM recipient)", requests(() => ({ path: `/v2/inbox/${recipients[randomBelow(recipients.length)]!.kid}` }))],
      ["GET /v2/inbox (signed by a DM recipient)", requests(() => {
        const recipient = recipients[randomBelow(recipients.length)]!
        return { path: "/v2/inbox", headers: signedRead(agentSeed(recipient.agent, recipient.gen), authority, "/v2/inbox") }
      })],
      // Windows of 60 s to a day, so nearly every answer is counted anew (ServiceStats keeps
      // a few windows' answers for 5 s); a log written within the day has every agent in the
      // longer ones.
      ["GET /v2/online?window= (60 s to a day)", requests(() => ({ path: `/v2/online?window=${60 + randomBelow(86_341)}` }))],
      ["GET /v2/entries/{i}", requests(() => ({ path: `/v2/entries/${randomBelow(leaves)}` }))],
      ["GET /v2/tlog/proof/{i}", requests(() => ({ path: `/v2/tlog/proof/${randomBelow(leaves)}` }))]
    ]
    for (const [label, list] of routes) line(label, latency(await timedReads(service.baseUrl, list)))
    const entries = await readsPerSecond(service, () => `/v2/entries/${randomBelow(leaves)}`, READ_CONNECTIONS, 5)
    line(`GET /v2/entries/{i}, ${READ_CONNECTIONS} connections`,
      `${entries.perSecond.toFixed(0)} requests/s, ${ms(entries.cpuMsPerRequest)} of service CPU each${entries.failures > 0 ? ` (${entries.failures} not 200)` : ""}`)
    const checkpoints = await readsPerSecond(service, () => "/checkpoint", READ_CONNECTIONS, 3)
    line(`GET /checkpoint, ${READ_CONNECTIONS} connections (for scale)`, `${checkpoints.perSecond.toFixed(0)} requests/s, ${ms(checkpoints.cpuMsPerRequest)} of service CPU each`)

    if (WARMUP_PER_KEY > 0) await writeLoad(service, WRITE_KEYS, WARMUP_PER_KEY, "scale-warmup")
    const load = await writeLoad(service, WRITE_KEYS, WRITE_PER_KEY, "scale-load")
    line(`write load: ${WRITE_KEYS} keys x ${WRITE_PER_KEY} posts (after ${WRITE_KEYS} x ${WARMUP_PER_KEY})`, `${load.perSecond.toFixed(0)} durable entries/s, ${load.refused} refused${load.notSent > 0 ? `, ${load.notSent} NOT SENT (connections closed under them)` : ""}`)
    line("  202 latency", `p50 ${ms(load.p50)}  p99 ${ms(load.p99)}`)
    line("  service CPU per entry (every thread)", ms(load.cpuMsPerEntry))
    line("  RSS while writing (max, sampled every 250 ms)", mib(load.maxRssMiB))

    // The crash: a SIGKILL once KILL_AFTER writes of a load are acknowledged, then a start.
    let acknowledged = 0
    const killed = service
    const crash = await writeLoad(killed, WRITE_KEYS, Math.ceil((2 * KILL_AFTER) / WRITE_KEYS), "scale-crash", (result) => {
      if (result.status === 202 && ++acknowledged === KILL_AFTER) killed.child.kill("SIGKILL")
    })
    await stop(killed, "SIGKILL")
    service = await timedStart(dataDir, env)
    line(`SIGKILL after ${crash.accepted} acknowledged writes, then a start`,
      `to /healthz ${seconds(service.healthzMs)} (${service.healthzCpuSeconds.toFixed(1)} s of CPU), to first 202 ${seconds(service.firstWriteMs)}`)
    const health = rawGetter(service.baseUrl)
    const treeSize = (JSON.parse((await health.get("/healthz")).text) as { tree_size: number }).tree_size
    health.close()
    line("  every acknowledged entry in the log", `${crash.lastIndex < treeSize ? "yes" : "NO"} (last acknowledged index ${crash.lastIndex}, tree size ${treeSize})`)
    await new Promise((resolve) => setTimeout(resolve, 5000))
    line("  RSS idle after that start", mib(rssMiB(service.child.pid!)))
    loadLine("at the end")
  } finally {
    await stop(service)
  }
}

const dataDir = given ?? mkdtempSync(join(tmpdir(), "aics-bench-scale-traffic-"))
mkdirSync(dataDir, { recursive: true })
const schemaFile = join(dataDir, "scaleTraffic.schema")
const schema = pgUrl === undefined ? undefined
  : existsSync(schemaFile) ? readFileSync(schemaFile, "utf8").trim()
  : `aics_scale_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
const database = pgUrl === undefined ? undefined : await schemaOn(pgUrl, schema!)
if (database !== undefined && keep) writeFileSync(schemaFile, `${schema}\n`)
try {
  await measure(dataDir, database?.url, schema)
} finally {
  if (database !== undefined && !keep) {
    await database.drop()
    rmSync(schemaFile, { force: true })
  }
  if (given === undefined && !keep) rmSync(dataDir, { recursive: true, force: true })
  else console.log(`kept: data ${dataDir}${schema === undefined ? "" : `, schema ${schema}`}`)
}
