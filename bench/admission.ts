// bench/admission: what a flood from one address costs a polite client on another (issue 13,
// "Tests and figures": under a flood the polite client's p99 stays within 2x of quiet).
// The real server (dist/src/main.js) with fair admission on; polite clients, each on an
// address of its own (127.0.0.9, 127.0.0.10, ...), write posts at a steady pace (POLITE_RATE
// a second each, within their budgets, their sends spread evenly over the second) while,
// phase by phase, one of these runs from its own loopback address:
//   quiet          nothing else
//   one key        one key writing as fast as 16 connections go (127.0.0.2)
//   fresh keys     a new key for every write, 32 connections (127.0.0.3)
//   idle conns     4,000 idle connections held open (127.0.0.6)
//   gate           GET /t?l=help as fast as 16 connections go (127.0.0.7)
//   notices        POST /notice as fast as 16 connections go (127.0.0.8)
// and prints the polite writes' 202 latency p50/p99/max per phase, and what each flood got.
// Several polite clients, not one: a client's budget of 120 writes a minute caps what one
// can sample in a phase, and with 96 samples the p99 is the worst of them, one stall of the
// machine's; four clients give 384 a phase, whose p99 is the fourth worst.
//
//   npm run build && node dist/bench/admission.js [polite writes per client and phase, default 24] [polite clients, default 4]
//
// Each flood runs in a child process of its own (this file with --flood <kind> <port>), so
// its signing and connection storms do not stall the polite client's event loop; all of
// them share the machine's two cores with the server.

import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { Agent, request } from "node:http"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeAgent } from "../test/support/agents.js"
import { percentile, signedPost, type SignedWrite } from "../test/support/load.js"
import { benchServerPort, serviceProcessEnv } from "./serverProcess.js"

const perPhase = Number(process.argv[2] ?? 24)
const politeClients = Number(process.argv[3] ?? 4)
/** Writes a second: within the default budgets (120 a minute per address, 30 a minute per key). */
const POLITE_RATE = 1.5
/** Writes by one polite key: within a key's 30 a minute at POLITE_RATE. */
const POLITE_KEY_WRITES = 24
const ORIGIN = "localhost/aics"

/** One request on a keep-alive agent: status and latency (ms). */
const send = (port: number, agent: Agent, method: string, path: string, headers: Record<string, string>, body?: Uint8Array) =>
  new Promise<{ status: number; ms: number }>((resolve) => {
    const started = performance.now()
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) } }, (res) => {
      res.resume()
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
    })
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }))
    req.end(body)
  })

const agentFrom = (localAddress: string) => new Agent({ keepAlive: true, localAddress } as ConstructorParameters<typeof Agent>[0])
const write = (port: number, agent: Agent, signed: SignedWrite) => send(port, agent, "POST", "/v2/entries", { ...signed.headers, host: `127.0.0.1:${port}` }, signed.body)

/** `width` loops of `task` until SIGTERM; then prints the answers by status and exits. */
const flood = (width: number, task: () => Promise<{ status: number }>) => {
  const statuses = new Map<number, number>()
  let running = true
  const loops = Promise.all(Array.from({ length: width }, async () => {
    while (running) {
      const { status } = await task()
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }))
  process.once("SIGTERM", async () => {
    running = false
    await loops
    console.log([...statuses].sort((a, b) => a[0] - b[0]).map(([status, n]) => `${n}x${status}`).join(" "))
    process.exit(0)
  })
}

const FLOODS: Record<string, { readonly label: string; readonly run: (port: number) => void }> = {
  quiet: {
    label: "quiet",
    run: () => {
      const alive = setInterval(() => undefined, 1000)
      process.once("SIGTERM", () => {
        clearInterval(alive)
        process.exit(0)
      })
    }
  },
  oneKey: {
    label: "one key (127.0.0.2, 16 conns)",
    run: (port) => {
      const agent = agentFrom("127.0.0.2")
      const key = makeAgent(`flood one ${Math.random()}`)
      flood(16, () => write(port, agent, signedPost(key, `flood ${Math.random()}`, { origin: ORIGIN, authority: `127.0.0.1:${port}` })))
    }
  },
  freshKeys: {
    label: "fresh keys (127.0.0.3, 32 conns)",
    run: (port) => {
      const agent = agentFrom("127.0.0.3")
      flood(32, () => write(port, agent, signedPost(makeAgent(`fresh ${Math.random()}`), "fresh", { origin: ORIGIN, authority: `127.0.0.1:${port}` })))
    }
  },
  idle: {
    label: "4,000 idle connections (127.0.0.6)",
    run: (port) => {
      const sockets: Array<Socket> = []
      let closedByServer = 0
      for (let i = 0; i < 4000; i++) {
        const socket = connect({ host: "127.0.0.1", port, localAddress: "127.0.0.6" })
        socket.on("close", () => void closedByServer++)
        socket.on("error", () => undefined)
        sockets.push(socket)
      }
      process.once("SIGTERM", () => {
        console.log(`${4000 - closedByServer} of 4000 held, ${closedByServer} closed by the server`)
        process.exit(0)
      })
    }
  },
  gate: {
    label: "gate GET /t (127.0.0.7, 16 conns)",
    run: (port) => {
      const agent = agentFrom("127.0.0.7")
      flood(16, () => send(port, agent, "GET", "/t?l=help", {}))
    }
  },
  notices: {
    label: "notices (127.0.0.8, 16 conns)",
    run: (port) => {
      const agent = agentFrom("127.0.0.8")
      const body = new TextEncoder().encode(JSON.stringify({ location: "https://example.test/x", explanation: "A bench notice.", email: "b@example.test", accurate: true }))
      flood(16, () => send(port, agent, "POST", "/notice", { "content-type": "application/json" }, body))
    }
  }
}

if (process.argv[2] === "--flood") {
  FLOODS[process.argv[3]!]!.run(Number(process.argv[4]))
} else {
  const port = benchServerPort()
  const authority = `127.0.0.1:${port}`
  const dataDir = await mkdtemp(join(tmpdir(), "aics-bench-admission-"))
  const child = spawn(process.execPath, ["dist/src/main.js"], {
    env: {
      ...serviceProcessEnv(), AICS_DATA_DIR: dataDir, AICS_PORT: String(port),
      // The default budgets; 127.0.0.1 alone is a proxy, so every other loopback address is a client.
      AICS_RATE_LIMITS: "on", AICS_TRUSTED_PROXIES: "127.0.0.1/32"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  await new Promise<void>((resolve, reject) => {
    let output = ""
    const check = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(`Listening on http://127.0.0.1:${port}`)) resolve()
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    child.once("exit", () => reject(new Error(output)))
  })

  /**
   * One polite client's writes for one phase, at POLITE_RATE a second, by keys of its own: a
   * new one every POLITE_KEY_WRITES writes, since a key's budget is 30 a minute and a phase
   * longer than 24 writes would otherwise spend it (its refusals are not the flood's doing).
   */
  const politeClient = async (agent: Agent, delayMs: number) => {
    await new Promise((r) => setTimeout(r, delayMs))
    let polite = makeAgent(`polite ${Math.random()}`)
    const latencies: Array<number> = []
    let refused = 0
    for (let i = 0; i < perPhase; i++) {
      if (i > 0 && i % POLITE_KEY_WRITES === 0) polite = makeAgent(`polite ${Math.random()}`)
      const next = performance.now() + 1000 / POLITE_RATE
      const result = await write(port, agent, signedPost(polite, `polite ${i} ${Math.random()}`, { origin: ORIGIN, authority }))
      if (result.status === 202) latencies.push(result.ms)
      else refused++
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())))
    }
    return { latencies, refused }
  }
  const politeAgents = Array.from({ length: politeClients }, (_, i) => agentFrom(`127.0.0.${9 + i}`))
  /** Every polite client's writes for one phase, their sends spread evenly over each period. */
  const politePhase = async () => {
    const results = await Promise.all(politeAgents.map((agent, i) => politeClient(agent, (i * 1000) / POLITE_RATE / politeClients)))
    return { latencies: results.flatMap((r) => r.latencies), refused: results.reduce((n, r) => n + r.refused, 0) }
  }

  try {
    console.log(`bench/admission: ${politeClients} polite clients from 127.0.0.9, ${perPhase} posts each per phase at ${POLITE_RATE}/s, default budgets, node ${process.version}`)
    // A warm-up of the polite path (not measured): V8 compiles the write path first.
    await politePhase()
    let quietP99 = NaN
    for (const [kind, { label }] of Object.entries(FLOODS)) {
      const flooder = spawn(process.execPath, [process.argv[1]!, "--flood", kind, String(port)], { stdio: ["ignore", "pipe", "inherit"] })
      let got = ""
      flooder.stdout!.on("data", (chunk: Buffer) => void (got += chunk.toString()))
      const { latencies, refused } = await politePhase()
      const exited = flooder.exitCode !== null || flooder.signalCode !== null ? Promise.resolve() : new Promise((r) => flooder.once("exit", r))
      flooder.kill("SIGTERM")
      await exited
      const p99 = percentile(latencies, 99)
      if (kind === "quiet") quietP99 = p99
      console.log(`${label.padEnd(36)} polite p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${p99.toFixed(1)} ms (${(p99 / quietP99).toFixed(2)}x quiet)  max ${Math.max(...latencies).toFixed(1)} ms of ${latencies.length}  refused ${refused}${got.trim() === "" ? "" : `  flood got: ${got.trim()}`}`)
    }
  } finally {
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
    await rm(dataDir, { recursive: true, force: true })
  }
}
