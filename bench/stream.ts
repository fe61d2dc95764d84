// bench/stream: the live stream (GET /v2/stream, docs/protocol.md 22) under write load.
// One server, and in one run phases of the same write load (pre-signed posts, `keys` keys
// at once, each key's chain in order), alternately without subscribers and with
// `subscribers` open streams, in the order A B B A so each comparison is made in both
// orders. The subscribers live in a process of their own (bench/streamSubscribers.ts: raw
// sockets that count events without parsing them), so the writer's process does nothing
// but write; the process stays up, idle, through the phases without streams.
//
// It prints for each phase the write throughput (entries/s), the server's CPU time per
// entry (user + system, from /proc: less moved by the machine's other work than
// throughput), and with subscribers the delivery latency from each write's 202 (as the
// writer saw it) to the event reaching each subscriber (p50, p99, max over every delivery),
// the deliveries missing, the subscriber process's CPU time, and the server's RSS.
//
// The subscribers ask for the stream in gzip, as they are (identity), or each in turn
// (both: A B C C B A, A without subscribers), so the two codings are compared in one run.
// BENCH_STREAM_SAMPLE=n decodes only every n-th stream in the subscriber process (the
// others take their bytes undecoded, as a client elsewhere would): the clients' decoding
// then takes less of the two cores the server shares with them (bench/streamSubscribers.ts).
// BENCH_STREAM_NICE=n runs the subscriber process at that nice value (19: the lowest
// priority): it then takes only the CPU the server and the writer leave, as clients on
// other machines would take none of this one's; a subscriber that falls behind still shows,
// in the latency and, past the server's buffers, as a dropped stream and missing deliveries.
//
// BENCH_SERVER_ENV and BENCH_SERVER_NODE_ARGS as bench/write (the budgets off unless set).
//
//   npm run build && [BENCH_SERVER_NODE_ARGS=--cpu-prof] flock /work/cpu.lock node dist/bench/stream.js [subscribers=1000] [keys=32] [perKey=50] [rounds=1] [gzip|identity|both]

import { fork, type ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { setPriority, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { cutOff, presignPosts, sendInOrder, type WriteResult } from "../test/support/load.js"
import { benchServerEnv, benchServerNodeArgs, benchServerPort, startServerProcess } from "./serverProcess.js"

const subscribers = Number(process.argv[2] ?? 1000)
const keys = Number(process.argv[3] ?? 32)
const perKey = Number(process.argv[4] ?? 50)
/** Times the A B B A sequence runs. */
const rounds = Number(process.argv[5] ?? 1)
const sample = Number(process.env["BENCH_STREAM_SAMPLE"] ?? 1)
const subscribersNice = Number(process.env["BENCH_STREAM_NICE"] ?? 0)
const codings = { gzip: ["gzip"], identity: ["identity"], both: ["identity", "gzip"] }[process.argv[6] ?? "gzip"]
if (codings === undefined) throw new Error(`the coding is gzip, identity or both, not ${process.argv[6]}`)

/** Extra node arguments for the server (e.g. --cpu-prof), space-separated, as bench/write. */
const serverArgs = benchServerNodeArgs()

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024
/** System CPU time so far, in ms, of a process or one of its threads (stat field 15, ticks of 10 ms). */
const systemMs = (pid: number, thread?: number): number => statFields(pid, thread)[1]
/** User + system CPU time so far, in ms, of a process or one of its threads (stat fields 14 and 15). */
const cpuMs = (pid: number, thread?: number): number => {
  const [user, system] = statFields(pid, thread)
  return user + system
}
const statFields = (pid: number, thread?: number): [number, number] => {
  const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8").split(") ")[1]!.split(" ")
  return [Number(fields[11]) * 10, Number(fields[12]) * 10]
}

interface Reads {
  readonly times: ReadonlyArray<number>
  readonly lastIds: ReadonlyArray<number>
  readonly counts: ReadonlyArray<number>
}

/** The subscriber process: asks and waits for its answer. */
const subscriberProcess = () => {
  const child: ChildProcess = fork(join(dirname(fileURLToPath(import.meta.url)), "streamSubscribers.js"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
  const ask = <A>(message: unknown): Promise<A> =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error("the subscriber process exited"))
      child.once("message", (answer) => {
        child.off("exit", onExit)
        resolve(answer as A)
      })
      child.once("exit", onExit)
      child.send(message as object)
    })
  return { child, ask }
}

/** Sorted ascending; p in [0, 100]. */
const at = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/**
 * Each accepted write's arrival at each subscriber: the first read whose highest id reaches
 * its index (the stream carries every leaf of the phase, all posts, so reads cover
 * consecutive ranges). Latency from the writer's 202, and from its request.
 */
const deliveries = (results: ReadonlyArray<WriteResult>, perSubscriber: ReadonlyArray<Reads>) => {
  const writes = results.map((r) => ({
    index: r.json!.entry["index"] as number,
    answered: performance.timeOrigin + r.answeredAt,
    sent: performance.timeOrigin + r.answeredAt - r.latency
  })).sort((a, b) => a.index - b.index)
  const fromAnswer = new Float64Array(writes.length * perSubscriber.length)
  const fromSend = new Float64Array(writes.length * perSubscriber.length)
  let n = 0
  let missing = 0
  let early = 0
  let miscounted = 0
  for (const reads of perSubscriber) {
    let received = 0
    for (const c of reads.counts) received += c
    if (received !== writes.length) miscounted++
    let j = 0
    for (const write of writes) {
      while (j < reads.lastIds.length && reads.lastIds[j]! < write.index) j++
      if (j === reads.lastIds.length) {
        missing++
        continue
      }
      const arrival = reads.times[j]!
      if (arrival < write.answered) early++
      fromAnswer[n] = Math.max(0, arrival - write.answered)
      fromSend[n] = arrival - write.sent
      n++
    }
  }
  return { fromAnswer: fromAnswer.subarray(0, n).sort(), fromSend: fromSend.subarray(0, n).sort(), missing, early, miscounted }
}

const round = (n: number) => Math.round(n * 10) / 10

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "aics-bench-stream-"))
  const port = benchServerPort()
  // The budgets off (as bench/write): 32 keys writing from one address would spend them.
  const server = await startServerProcess({ dataDir, port, nodeArgs: serverArgs, env: { ...benchServerEnv("AICS_RATE_LIMITS=off"), AICS_STREAMS_PER_ADDRESS: String(subscribers + 10) } })
  const base = `http://127.0.0.1:${port}`
  const pid = server.pid!
  const subs = subscriberProcess()
  if (subscribersNice !== 0) setPriority(subs.child.pid!, subscribersNice)
  const throughput: { without: Array<number>; with: Array<number> } = { without: [], with: [] }
  let label = 0
  const load = async () => {
    const writes = presignPosts({ keys, perKey, origin: "localhost/aics", authority: `127.0.0.1:${port}`, label: `phase${label++}` })
    const cpuBefore = cpuMs(pid)
    const loopBefore = cpuMs(pid, pid)
    const loopSystemBefore = systemMs(pid, pid)
    const subsCpuBefore = cpuMs(subs.child.pid!)
    const started = performance.now()
    const results = await sendInOrder(base, writes)
    const seconds = (performance.now() - started) / 1000
    const accepted = results.filter((r) => r.status === 202)
    return {
      results: accepted,
      perSecond: accepted.length / seconds,
      refused: results.length - accepted.length,
      notSent: cutOff(writes, results),
      cpuPerEntry: (cpuMs(pid) - cpuBefore) / accepted.length,
      // The main thread: the event loop that sequences writes and fans the stream out.
      loopPerEntry: (cpuMs(pid, pid) - loopBefore) / accepted.length,
      // Of which in the kernel: on loopback a socket write also runs the receiving side's TCP.
      loopSystemPerEntry: (systemMs(pid, pid) - loopSystemBefore) / accepted.length,
      subsCpu: cpuMs(subs.child.pid!) - subsCpuBefore
    }
  }
  try {
    console.log(`bench/stream: ${subscribers} subscribers${subscribersNice !== 0 ? ` (their process at nice ${subscribersNice})` : ""}, ${keys} keys x ${perKey} posts per phase (shared machine: other work runs on the same 2 cores)`)
    await load() // warm-up
    const phases = Array.from({ length: rounds }, () => [undefined, ...codings, ...[...codings].reverse(), undefined]).flat()
    for (const coding of phases) {
      if (coding === undefined) {
        const { perSecond, refused, notSent, cpuPerEntry, loopPerEntry, loopSystemPerEntry } = await load()
        throughput.without.push(perSecond)
        console.log(`without subscribers: ${round(perSecond)} entries/s${refused > 0 ? ` (${refused} refused)` : ""}${notSent > 0 ? ` (${notSent} NOT SENT: connections closed under them)` : ""}, ` +
          `server CPU ${round(cpuPerEntry * 1000)} µs/entry (main thread ${round(loopPerEntry * 1000)}, of it system ${round(loopSystemPerEntry * 1000)}), RSS ${round(rssMb(pid))} MB`)
        continue
      }
      const rssBefore = rssMb(pid)
      await subs.ask({ open: { port, count: subscribers, path: "/v2/stream?type=post", gzip: coding === "gzip", sample } })
      await new Promise((r) => setTimeout(r, 500))
      const rssOpen = rssMb(pid)
      let rssPeak = rssOpen
      const sampler = setInterval(() => void (rssPeak = Math.max(rssPeak, rssMb(pid))), 100)
      const { results, perSecond, refused, notSent, cpuPerEntry, loopPerEntry, loopSystemPerEntry, subsCpu } = await load()
      // Deliveries still in flight get a second to land.
      await new Promise((r) => setTimeout(r, 1000))
      clearInterval(sampler)
      const { reads, bytes } = await subs.ask<{ reads: Array<Reads>; bytes: number }>({ close: true })
      const d = deliveries(results, reads)
      throughput.with.push(perSecond)
      console.log(
        `with ${subscribers} subscribers (${coding}): ${round(perSecond)} entries/s${refused > 0 ? ` (${refused} refused)` : ""}${notSent > 0 ? ` (${notSent} NOT SENT: connections closed under them)` : ""}, ` +
          `server CPU ${round(cpuPerEntry * 1000)} µs/entry (main thread ${round(loopPerEntry * 1000)}, of it system ${round(loopSystemPerEntry * 1000)}), subscriber process CPU ${round(subsCpu)} ms; ` +
          `202 -> event p50 ${round(at(d.fromAnswer, 50))} ms, p99 ${round(at(d.fromAnswer, 99))} ms, max ${round(at(d.fromAnswer, 100))} ms ` +
          `over ${d.fromAnswer.length} deliveries to ${reads.length} decoded streams (${d.early} before the writer read its 202, counted 0), ${d.missing} missing` +
          `${d.miscounted > 0 ? `, ${d.miscounted} subscribers with a wrong event count` : ""}; ` +
          `${round(bytes / 1e6)} MB received by the ${subscribers} streams; ` +
          `request sent -> event p50 ${round(at(d.fromSend, 50))} ms, p99 ${round(at(d.fromSend, 99))} ms; ` +
          `server RSS ${round(rssBefore)} MB before, ${round(rssOpen)} MB with the streams open, peak ${round(rssPeak)} MB under load`
      )
      await new Promise((r) => setTimeout(r, 500))
    }
    const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    console.log(`throughput with subscribers / without: ${(mean(throughput.with) / mean(throughput.without)).toFixed(3)} ` +
      `(${round(mean(throughput.with))} / ${round(mean(throughput.without))} entries/s over ${throughput.with.length} and ${throughput.without.length} phases)`)
  } finally {
    subs.child.kill("SIGTERM")
    server.kill("SIGTERM")
    await new Promise((r) => server.once("exit", r))
    await rm(dataDir, { recursive: true, force: true })
  }
}

await main()
