// bench/stream: the live stream (GET /v2/stream, docs/protocol.md 22) under write load.
// One server; phases of the same write load (pre-signed posts, `keys` keys at once, each
// key's chain in order), alternately without subscribers and with `subscribers` open
// streams (raw sockets reading every leaf event), in the order A B B A so each comparison
// is made in both orders. It prints for each phase the write throughput (entries/s), and
// with subscribers the delivery latency from each write's 202 (as the writer saw it) to the
// event reaching each subscriber (p50, p99, max over every delivery), the deliveries
// missing, and the server's RSS.
//
//   npm run build && node dist/bench/stream.js [subscribers=1000] [keys=32] [perKey=50]

import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { percentile, presignPosts, sendInOrder } from "../test/support/load.js"
import { startServerProcess } from "./serverProcess.js"

const subscribers = Number(process.argv[2] ?? 1000)
const keys = Number(process.argv[3] ?? 32)
const perKey = Number(process.argv[4] ?? 50)

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** A subscriber on a raw socket: the arrival time of each leaf id, read with as little parsing as can be. */
const subscribe = (port: number, arrivals: Map<number, number>): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let tail = ""
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => {
      const now = performance.now()
      const text = tail + chunk
      let at = 0
      while ((at = text.indexOf("\nid: ", at)) >= 0) {
        const end = text.indexOf("\n", at + 5)
        if (end < 0) break
        const index = Number(text.slice(at + 5, end))
        if (!arrivals.has(index)) arrivals.set(index, now)
        at = end
      }
      tail = text.slice(Math.max(0, text.length - 32))
    })
    socket.once("error", reject)
    socket.write(`GET /v2/stream?type=post HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`, () => resolve(socket))
  })

const round = (n: number) => Math.round(n * 10) / 10

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "aics-bench-stream-"))
  const port = 20000 + Math.floor(Math.random() * 20000)
  const server = await startServerProcess({ dataDir, port, env: { AICS_STREAMS_PER_ADDRESS: String(subscribers + 10) } })
  const base = `http://127.0.0.1:${port}`
  const pid = server.pid!
  let label = 0
  const load = async () => {
    const writes = presignPosts({ keys, perKey, origin: "localhost/aics", authority: `127.0.0.1:${port}`, label: `phase${label++}` })
    const started = performance.now()
    const results = await sendInOrder(base, writes)
    const seconds = (performance.now() - started) / 1000
    const accepted = results.filter((r) => r.status === 202)
    return { results: accepted, perSecond: accepted.length / seconds, refused: results.length - accepted.length }
  }
  try {
    console.log(`bench/stream: ${subscribers} subscribers, ${keys} keys x ${perKey} posts per phase (shared machine: other work runs on the same 2 cores)`)
    await load() // warm-up
    const phases: Array<string> = []
    for (const withSubscribers of [false, true, true, false]) {
      if (!withSubscribers) {
        const { perSecond, refused } = await load()
        phases.push(`without subscribers: ${round(perSecond)} entries/s${refused > 0 ? ` (${refused} refused)` : ""}, server RSS ${round(rssMb(pid))} MB`)
        console.log(phases.at(-1))
        continue
      }
      const arrivals = Array.from({ length: subscribers }, () => new Map<number, number>())
      const rssBefore = rssMb(pid)
      const sockets: Array<Socket> = []
      for (let i = 0; i < subscribers; i++) sockets.push(await subscribe(port, arrivals[i]!))
      await new Promise((r) => setTimeout(r, 500))
      const rssOpen = rssMb(pid)
      let rssPeak = rssOpen
      const sampler = setInterval(() => void (rssPeak = Math.max(rssPeak, rssMb(pid))), 100)
      const { results, perSecond, refused } = await load()
      // Deliveries still in flight get a second to land.
      await new Promise((r) => setTimeout(r, 1000))
      clearInterval(sampler)
      const latencies: Array<number> = []
      const fromSend: Array<number> = []
      let missing = 0
      let early = 0
      for (const result of results) {
        const index = result.json!.entry["index"] as number
        for (const map of arrivals) {
          const at = map.get(index)
          if (at === undefined) missing++
          else {
            if (at < result.answeredAt) early++
            latencies.push(Math.max(0, at - result.answeredAt))
            fromSend.push(at - (result.answeredAt - result.latency))
          }
        }
      }
      latencies.sort((a, b) => a - b)
      fromSend.sort((a, b) => a - b)
      for (const socket of sockets) socket.destroy()
      phases.push(
        `with ${subscribers} subscribers: ${round(perSecond)} entries/s${refused > 0 ? ` (${refused} refused)` : ""}; ` +
          `202 -> event p50 ${round(percentile(latencies, 50))} ms, p99 ${round(percentile(latencies, 99))} ms, max ${round(latencies.at(-1) ?? 0)} ms ` +
          `over ${latencies.length} deliveries (${early} before the writer read its 202, counted 0), ${missing} missing; ` +
          `request sent -> event p50 ${round(percentile(fromSend, 50))} ms, p99 ${round(percentile(fromSend, 99))} ms; ` +
          `server RSS ${round(rssBefore)} MB before, ${round(rssOpen)} MB with the streams open, peak ${round(rssPeak)} MB under load`
      )
      console.log(phases.at(-1))
      await new Promise((r) => setTimeout(r, 500))
    }
  } finally {
    server.kill("SIGTERM")
    await new Promise((r) => server.once("exit", r))
    await rm(dataDir, { recursive: true, force: true })
  }
}

await main()
