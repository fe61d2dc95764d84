// Fair admission end to end (issue 13 items 1-4 and 12; docs/protocol.md "Fair admission"): the
// real service in a child process, driven from several loopback source addresses (any
// 127/8 address binds on Linux, so each is a client of its own). Floods from one address
// are refused with signed `rate_limited` receipts once their budget is spent, while a
// polite client on another address keeps writing and every one of its writes is accepted.

import { readFile } from "node:fs/promises"
import { request as httpRequest } from "node:http"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { leadingZeroBits } from "../../../src/domain/admission/proofOfWork.js"
import { jcs, type Log, OutsideAgent, u64, utf8, type Envelope } from "../../support/outsideAgent.js"
import { runAics } from "../../support/aicsCli.js"
import { freePort, removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const POLITE = "127.0.0.9"
const WRITES_PER_MINUTE = 40
const KEY_WRITES_PER_MINUTE = 20
const CLAIMS_PER_HOUR = 5
const GATE_LINES_PER_MINUTE = 30
const NOTICES_PER_HOUR = 3
const CONNECTIONS_PER_ADDRESS = 64
const POW_BITS = 8

const GATE_SESSIONS_PER_HOUR = 60
const REFUSAL_DELAY_MS = 40
const REQUESTS_IN_FLIGHT = 4
let dataDir: string
let server: RunningServer
let log: Log
let gatePort: number

beforeAll(async () => {
  dataDir = await tempDataDir()
  gatePort = await freePort()
  server = await startServer({
    dataDir,
    env: {
      AICS_GATE_PORT: String(gatePort),
      AICS_LIMIT_GATE_SESSIONS_PER_HOUR: String(GATE_SESSIONS_PER_HOUR),
      AICS_RATE_LIMITS: "on",
      // The proxy is 127.0.0.1 alone: every other loopback address is a client whose own
      // X-Forwarded-For is not believed.
      AICS_TRUSTED_PROXIES: "127.0.0.1/32",
      AICS_LIMIT_WRITES_PER_MINUTE: String(WRITES_PER_MINUTE),
      AICS_LIMIT_KEY_WRITES_PER_MINUTE: String(KEY_WRITES_PER_MINUTE),
      AICS_LIMIT_CLAIMS_PER_HOUR: String(CLAIMS_PER_HOUR),
      AICS_LIMIT_GATE_LINES_PER_MINUTE: String(GATE_LINES_PER_MINUTE),
      AICS_LIMIT_NOTICES_PER_HOUR: String(NOTICES_PER_HOUR),
      AICS_LIMIT_REQUESTS_PER_MINUTE: "100000",
      AICS_CONNECTIONS_PER_ADDRESS: String(CONNECTIONS_PER_ADDRESS),
      AICS_CLAIM_POW_BITS: String(POW_BITS),
      // The tarpit holds each 429 this long (1 s by default): short here, so the floods finish
      // quickly (a write's refusal keeps its turn meanwhile: REQUESTS_IN_FLIGHT at a time).
      AICS_LIMIT_REFUSAL_DELAY_MS: String(REFUSAL_DELAY_MS),
      AICS_REQUESTS_IN_FLIGHT_PER_ADDRESS: String(REQUESTS_IN_FLIGHT)
    }
  })
  log = { baseUrl: server.baseUrl, origin: "localhost/aics", vkey: (await readFile(join(dataDir, "log.vkey"), "utf8")).trim() }
  for (let i = 0; i < 100 && !server.output().includes("Text gate listening"); i++) await new Promise((r) => setTimeout(r, 50))
}, 60_000)

/** A TCP gate connection from `localAddress`: what it printed until it closed or `waitFor` appeared. */
const gateTcp = (localAddress: string, lines: ReadonlyArray<string>, waitFor: RegExp, timeoutMs = 5000) =>
  new Promise<{ text: string; closed: boolean; socket: Socket }>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: gatePort, localAddress })
    let text = ""
    let closed = false
    const done = () => {
      clearTimeout(timer)
      resolve({ text, closed, socket })
    }
    const timer = setTimeout(done, timeoutMs)
    socket.on("connect", () => socket.write(lines.map((l) => `${l}\n`).join("")))
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
      if (waitFor.test(text)) done()
    })
    socket.on("error", () => undefined)
    socket.on("close", () => {
      closed = true
      done()
    })
  })

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

/** A post by `agent` from `localAddress`; the receipt or refusal note is checked by OutsideAgent.submit. */
const postFrom = (agent: OutsideAgent, localAddress: string, text = `hello ${Math.random()}`, headers: Record<string, string> = {}) => {
  const body = utf8(text)
  const prepared = agent.prepare(agent.envelope("post", { channel: "general", body_hash: u64(sha256(body)), size: body.length }), body)
  return agent.submit({ ...prepared, headers: { ...prepared.headers, ...headers } }, { localAddress })
}

/** A GET from `localAddress`: status, headers and text. */
const getFrom = (path: string, localAddress: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = httpRequest(new URL(path, server.baseUrl), { localAddress, headers, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

/** The polite client: `count` posts from POLITE, each of which must be accepted. */
const politeWrites = async (polite: OutsideAgent, count: number) => {
  for (let i = 0; i < count; i++) {
    const result = await postFrom(polite, POLITE)
    expect(result.status, JSON.stringify(result.json)).toBe(202)
  }
}

/** Runs `tasks` with at most `width` at once. */
const pooled = async <A>(count: number, width: number, task: (i: number) => Promise<A>): Promise<Array<A>> => {
  const results: Array<A> = []
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }))
  return results
}

/** A signed rate_limited refusal (its note was checked by submit) of one of `budgets`, with its headers. */
const expectRateLimited = (result: { status: number; json: any; headers?: Record<string, unknown> }, ...budgets: ReadonlyArray<string>) => {
  expect(result.status).toBe(429)
  expect(result.json.entry.refused).toBe("rate_limited")
  const budget = budgets.find((b) => String(result.json.entry.detail).startsWith(`the ${b} budget`))
  expect(budget, result.json.entry.detail).toBeDefined()
  expect(Number(result.headers?.["retry-after"])).toBeGreaterThanOrEqual(1)
  expect(String(result.headers?.["ratelimit-policy"])).toContain(`"${budget}";q=`)
  expect(String(result.headers?.["ratelimit"])).toMatch(new RegExp(`"${budget}";r=0;t=\\d+`))
}

/** Tokens a bucket of `perMinute` earns over `ms` (it refills while a flood runs), rounded up. */
const refilled = (perMinute: number, ms: number) => Math.ceil((ms / 60_000) * perMinute)

describe("writes", () => {
  it("refuses a one-key flood after the key's budget, while a polite client on another address writes", async () => {
    const flooder = OutsideAgent.random(log)
    const polite = OutsideAgent.random(log)
    const outcomes: Array<number> = []
    const budgets: Array<string> = []
    const started = Date.now()
    const flood = (async () => {
      for (let i = 0; i < 60; i++) {
        const result = await postFrom(flooder, "127.0.0.2")
        outcomes.push(result.status)
        if (result.status !== 202) {
          expectRateLimited(result, "key_writes_minute", "writes")
          budgets.push(/^the (\w+) budget/.exec(result.json.entry.detail)![1]!)
        }
      }
    })()
    await Promise.all([flood, politeWrites(polite, 10)])
    // The burst, and the one a key earns every 3 s while the flood runs.
    const accepted = outcomes.filter((s) => s === 202).length
    expect(accepted).toBeGreaterThanOrEqual(KEY_WRITES_PER_MINUTE)
    expect(accepted).toBeLessThanOrEqual(KEY_WRITES_PER_MINUTE + refilled(KEY_WRITES_PER_MINUTE, Date.now() - started))
    expect(outcomes.filter((s) => s === 429).length).toBe(60 - accepted)
    // The key's budget first; once the address's own is spent (refused writes count), that one.
    // The address earns a write every 1.5 s, so on a slow machine a key refusal may come after
    // the first address refusal too: what holds is that both came, key first, and that the
    // address's refusals are the ones its budget leaves (60 requests, 40 tokens and what it earned).
    expect(budgets[0]).toBe("key_writes_minute")
    const firstAddressRefusal = budgets.indexOf("writes")
    expect(firstAddressRefusal).toBeGreaterThan(0)
    const addressRefusals = budgets.filter((b) => b === "writes").length
    expect(addressRefusals).toBeGreaterThanOrEqual(60 - WRITES_PER_MINUTE - refilled(WRITES_PER_MINUTE, Date.now() - started))
    expect(addressRefusals).toBeLessThanOrEqual(60 - WRITES_PER_MINUTE)
  }, 60_000)

  it("refuses a flood of 1,000 fresh keys from one address after its budget, while the polite client writes", async () => {
    const polite = OutsideAgent.random(log)
    const started = Date.now()
    const statuses = await Promise.all([
      pooled(1000, 25, async () => {
        const result = await postFrom(OutsideAgent.random(log), "127.0.0.3")
        if (result.status !== 202) expectRateLimited(result, "writes")
        return result.status
      }),
      politeWrites(polite, 20)
    ]).then(([s]) => s)
    const accepted = statuses.filter((s) => s === 202).length
    // The bucket refills at 40 a minute while the flood runs: a few more than the burst.
    expect(accepted).toBeGreaterThanOrEqual(WRITES_PER_MINUTE)
    expect(accepted).toBeLessThanOrEqual(WRITES_PER_MINUTE + refilled(WRITES_PER_MINUTE, Date.now() - started))
    expect(statuses.filter((s) => s === 429).length).toBe(1000 - accepted)
  }, 120_000)

  it("handles a few requests of one address at a time, the rest in turn, while another address is served at once", async () => {
    const flooder = "127.0.0.12"
    // Spend the address's writes budget until it is refused (three keys: a key's own budget
    // is smaller): the address earns a write every 1.5 s, which a slow machine takes to
    // send a few dozen.
    const keys = [OutsideAgent.random(log), OutsideAgent.random(log), OutsideAgent.random(log)]
    for (let sent = 0; ; sent++) {
      expect(sent).toBeLessThan(2 * WRITES_PER_MINUTE)
      const result = await postFrom(keys[sent % keys.length]!, flooder)
      if (result.status !== 202) {
        expectRateLimited(result, "writes")
        break
      }
    }
    const spent = Date.now()
    // Now each write from it is refused after the tarpit, keeping its turn meanwhile: three
    // times REQUESTS_IN_FLIGHT of them take at least three tarpits, one wave after another.
    // (Signed first: signing here must not be what spaces them out.)
    const writes = Array.from({ length: 3 * REQUESTS_IN_FLIGHT }, () => {
      const agent = OutsideAgent.random(log)
      const body = utf8(`turn ${Math.random()}`)
      return { agent, prepared: agent.prepare(agent.envelope("post", { channel: "general", body_hash: u64(sha256(body)), size: body.length }), body) }
    })
    const started = performance.now()
    const answered: Array<number> = []
    let accepted = 0
    const flood = Promise.all(writes.map(async ({ agent, prepared }) => {
      const result = await agent.submit(prepared, { localAddress: flooder })
      // A write the address earned since it was refused is accepted, at once, without a tarpit.
      if (result.status === 202) return void accepted++
      expectRateLimited(result, "writes")
      answered.push(performance.now() - started)
    }))
    const other = await getFrom("/checkpoint", POLITE)
    const otherAnswered = performance.now() - started
    await flood
    expect(other.status).toBe(200)
    expect(accepted).toBeLessThanOrEqual(refilled(WRITES_PER_MINUTE, Date.now() - spent))
    answered.sort((a, b) => a - b)
    // The third wave's refusals come after three tarpits; without turns all would after one.
    expect(answered[2 * REQUESTS_IN_FLIGHT]).toBeGreaterThanOrEqual(3 * REFUSAL_DELAY_MS)
    // The other address did not wait for the flood's turns.
    expect(otherAnswered).toBeLessThan(answered[answered.length - 1]!)
  })

  it("believes X-Forwarded-For only from the trusted proxy", async () => {
    const remaining = (result: { headers?: Record<string, unknown> }) => Number(/"writes";r=(\d+)/.exec(String(result.headers?.["ratelimit"]))?.[1])
    // From the proxy (127.0.0.1): each forwarded client has its own bucket.
    const viaProxy = OutsideAgent.random(log)
    const first = await postFrom(viaProxy, "127.0.0.1", "a", { "x-forwarded-for": "203.0.113.7" })
    const second = await postFrom(viaProxy, "127.0.0.1", "b", { "x-forwarded-for": "203.0.113.8" })
    expect(first.status).toBe(202)
    expect(remaining(first)).toBe(WRITES_PER_MINUTE - 1)
    expect(remaining(second)).toBe(WRITES_PER_MINUTE - 1)
    // From anyone else, the header is the client's own words: one bucket, the socket's.
    const spoofer = OutsideAgent.random(log)
    const a = await postFrom(spoofer, "127.0.0.5", "c", { "x-forwarded-for": "198.51.100.1" })
    const b = await postFrom(spoofer, "127.0.0.5", "d", { "x-forwarded-for": "198.51.100.2" })
    expect(remaining(a)).toBe(WRITES_PER_MINUTE - 1)
    expect(remaining(b)).toBe(WRITES_PER_MINUTE - 2)
  })

  it("asks claims for proof of work, and new identities per address are budgeted", async () => {
    const claimer = OutsideAgent.random(log)
    const name = `pow${Date.now().toString(36)}`
    // Without the work: a signed work_insufficient refusal.
    const lazy = await claimer.submit(claimer.prepare(claimer.envelope("claim", { name, x25519: claimer.x25519 }), null), { localAddress: "127.0.0.4" })
    expect(lazy.status).toBe(403)
    expect(lazy.json.entry.refused).toBe("work_insufficient")
    // With it (the nonce varied until SHA-256 of the signing input has POW_BITS zero bits).
    const worked = (agent: OutsideAgent, claimName: string) => {
      for (;;) {
        const envelope = agent.envelope("claim", { name: claimName, x25519: agent.x25519 })
        const { auth: _auth, ...rest } = envelope as Envelope & { auth: unknown }
        if (leadingZeroBits(sha256(utf8(jcs({ ...rest, auth: { alg: "ed25519-jcs" } })))) >= POW_BITS) return envelope
      }
    }
    const statuses: Array<number> = []
    for (let i = 0; i < CLAIMS_PER_HOUR + 3; i++) {
      const agent = i === 0 ? claimer : OutsideAgent.random(log)
      const result = await agent.submit(agent.prepare(worked(agent, `${name}${i}`), null), { localAddress: "127.0.0.4" })
      statuses.push(result.status)
      if (result.status !== 202) expectRateLimited(result, "claims")
    }
    // The refused claim without work spent nothing of the claims budget.
    expect(statuses).toEqual([...new Array(CLAIMS_PER_HOUR).fill(202), 429, 429, 429])
  }, 60_000)
})

describe("aics claim", () => {
  it("reads the difficulty from the card, computes the work with progress, and its claim is accepted", async () => {
    const cwd = await tempDataDir()
    try {
      const env = { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: log.vkey }
      expect((await runAics(["keygen"], { cwd, env })).code).toBe(0)
      const claimed = await runAics(["claim", `cli${Date.now().toString(36)}`], { cwd, env })
      expect(claimed.code, claimed.err).toBe(0)
      expect(claimed.out).toContain("claimed")
      expect(claimed.err).toContain(`proof of work: ${POW_BITS} bits asked for a claim here`)
    } finally {
      await removeDir(cwd)
    }
  }, 60_000)
})

describe("connections", () => {
  it("4,200 idle connections from one address leave another able to connect and write", async () => {
    const sockets: Array<Socket> = []
    let closedByServer = 0
    const port = server.port
    try {
      for (let batch = 0; batch < 4200; batch += 300) {
        await Promise.all(Array.from({ length: Math.min(300, 4200 - batch) }, () =>
          new Promise<void>((resolve) => {
            const socket = connect({ host: "127.0.0.1", port, localAddress: "127.0.0.6" })
            sockets.push(socket)
            socket.on("close", () => void closedByServer++)
            socket.on("error", () => undefined)
            socket.once("connect", () => resolve())
            socket.once("error", () => resolve())
          })))
      }
      // The server closes every connection past the address's cap.
      const deadline = Date.now() + 20_000
      while (closedByServer < 4200 - CONNECTIONS_PER_ADDRESS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(closedByServer).toBe(4200 - CONNECTIONS_PER_ADDRESS)
      // Another address connects and writes.
      expect((await getFrom("/healthz", POLITE)).status).toBe(200)
      await politeWrites(OutsideAgent.random(log), 3)
    } finally {
      for (const socket of sockets) socket.destroy()
    }
  }, 90_000)
})

describe("the gate and /notice", () => {
  it("the text gate answers 429 past an address's lines, and serves another address", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < GATE_LINES_PER_MINUTE + 5; i++) statuses.push((await getFrom("/t?l=help", "127.0.0.7")).status)
    expect(statuses.filter((s) => s === 200).length).toBe(GATE_LINES_PER_MINUTE)
    const refused = await getFrom("/t?l=help", "127.0.0.7")
    expect(refused.status).toBe(429)
    expect(refused.headers["content-type"]).toContain("application/problem+json")
    expect(JSON.parse(refused.text).code).toBe("rate_limited")
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    const polite = await getFrom("/t?l=help", POLITE)
    expect(polite.status).toBe(200)
    expect(polite.text).toContain(`${POW_BITS} bits of proof of work`)
  })

  it("the TCP gate holds 32 connections per address and a few sessions an hour, and serves another address", async () => {
    // A connection flood from one address: past 32 the server closes them at once.
    const flood = await Promise.all(Array.from({ length: 48 }, () => gateTcp("127.0.0.10", [], /send help\n/, 3000)))
    try {
      const greeted = flood.filter((c) => c.text.startsWith("session ")).length
      expect(greeted).toBeLessThanOrEqual(32)
      expect(flood.filter((c) => c.closed && c.text === "").length).toBeGreaterThanOrEqual(48 - 32)
      const polite = await gateTcp(POLITE, ["whoami"], /ok anonymous\n/)
      expect(polite.text).toContain("ok anonymous")
      polite.socket.destroy()
    } finally {
      for (const c of flood) c.socket.destroy()
    }
    // Sessions one after another from one address: past the hour's budget, refused and closed.
    const texts: Array<string> = []
    for (let i = 0; i < GATE_SESSIONS_PER_HOUR + 2; i++) {
      const c = await gateTcp("127.0.0.11", [], /send help\n|err rate_limited/)
      texts.push(c.text)
      c.socket.destroy()
    }
    expect(texts.slice(0, GATE_SESSIONS_PER_HOUR).every((t) => t.startsWith("session "))).toBe(true)
    expect(texts.slice(GATE_SESSIONS_PER_HOUR).every((t) => t.includes("err rate_limited the gate_sessions budget"))).toBe(true)
  }, 60_000)

  it("/notice takes a few notices per address, and still takes another address's", async () => {
    const file = (localAddress: string, i: number) =>
      new Promise<{ status: number; json: any }>((resolve, reject) => {
        const body = JSON.stringify({ location: `https://example.test/${i}`, explanation: `A notice number ${i}.`, email: `n${i}@example.test`, accurate: true })
        const req = httpRequest(new URL("/notice", server.baseUrl), { method: "POST", localAddress, headers: { "content-type": "application/json" } }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }))
        })
        req.on("error", reject)
        req.end(body)
      })
    const statuses: Array<number> = []
    for (let i = 0; i < NOTICES_PER_HOUR + 3; i++) statuses.push((await file("127.0.0.8", i)).status)
    expect(statuses).toEqual([...new Array(NOTICES_PER_HOUR).fill(201), 429, 429, 429])
    expect((await file(POLITE, 99)).status).toBe(201)
  })

  it("publishes every budget and the proof-of-work difficulty in the card, /llms.txt and the manifest", async () => {
    const card = JSON.parse((await getFrom("/.well-known/aics-card.json", POLITE)).text)
    expect(card.limits.claim_pow_bits).toBe(POW_BITS)
    expect(card.limits.requests_in_flight_per_address).toBe(REQUESTS_IN_FLIGHT)
    expect(card.limits.budgets.find((b: any) => b.name === "writes")).toMatchObject({ scope: "address", quota: WRITES_PER_MINUTE, window_seconds: 60 })
    const llms = (await getFrom("/llms.txt", POLITE)).text
    expect(llms).toContain(`- writes: ${WRITES_PER_MINUTE} per 60 s per address`)
    expect(llms).toContain(`${POW_BITS} leading zero bits`)
    expect(llms).toContain(`- requests in flight: ${REQUESTS_IN_FLIGHT} at once per address`)
  })
})
