// The gate's TCP server on its own (src/adapters/tcp/gateServer.ts; docs/protocol.md 17.4),
// in this process, with a Gate whose exchanges the test decides: backpressure towards a
// client that does not read, pipelined lines answered in order (split in linear time, at LF
// only), a client that half-closes, the line deadline stopped while queued lines are
// answered, pacing after a gate_lines refusal, line_too_long after the lines before it, a
// failing exchange that ends only its connection, a shutdown that answers the command in
// flight and does not wait for idle clients, and a renewed TLS certificate served without
// a restart.

import { X509Certificate } from "node:crypto"
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect as connectTls } from "node:tls"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Gate } from "../../../src/app/Gate.js"
import { GateTcpLive } from "../../../src/adapters/tcp/gateServer.js"
import { selfSignedCert } from "../../support/gateClient.js"
import { freePort } from "../../support/server.js"

const BIG_LINE = "x".repeat(2 * 1024 * 1024)

/**
 * A gate that counts exchanges and keeps the lines it is given, answers `big` with 2 MiB,
 * dies on `boom`, takes 400 ms over `slow`, and refuses `limited` as a spent gate_lines
 * budget would (retry after 1 s).
 */
const fakeGate = () => {
  const calls = { exchanges: 0, ended: 0, lines: [] as Array<string> }
  const gate = Layer.succeed(Gate, Gate.of({
    exchange: (_id, lines) =>
      Effect.suspend(() => {
        calls.exchanges++
        calls.lines.push(...lines)
        if (lines[0] === "boom") return Effect.die(new Error("a defect in a gate effect"))
        if (lines[0] === "slow") return Effect.as(Effect.sleep("400 millis"), { id: "s1", lines: ["ok slow"], close: false })
        if (lines[0] === "limited") {
          const detail = "the gate_lines budget (1 per 1 s per address) is spent; retry in 1 s"
          return Effect.succeed({
            id: "s1",
            lines: [`err rate_limited ${detail}`],
            close: false,
            limited: { admitted: false as const, budget: "gate_lines" as const, retryAfter: 1, fields: { policy: "", limit: "" }, detail }
          })
        }
        const lines2 = lines.length === 0 ? ["session s1"] : lines[0] === "big" ? [BIG_LINE, "ok big"] : [`ok ${lines[0]}`]
        return Effect.succeed({ id: "s1", lines: lines2, close: false })
      }),
    end: () => Effect.sync(() => void calls.ended++)
  }))
  return { calls, gate }
}

let scope: Scope.CloseableScope | undefined
const sockets: Array<Socket> = []

const startGate = async (tls?: Parameters<typeof GateTcpLive>[0]["tls"], lineMs?: number, maxLineBytes?: number) => {
  const { calls, gate } = fakeGate()
  const port = await freePort()
  scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(GateTcpLive({ host: "127.0.0.1", port, tls, lineMs, maxLineBytes }).pipe(Layer.provide(gate)), scope))
  return { calls, port }
}

/** The SHA-256 fingerprint of the certificate a new TLS connection is shown. */
const servedFingerprint = (port: number) =>
  new Promise<string>((resolve, reject) => {
    const socket = connectTls({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256)
      socket.destroy()
    })
    socket.once("error", reject)
  })

const fingerprintOf = async (certFile: string) => new X509Certificate(await readFile(certFile)).fingerprint256

const stopGate = async () => {
  const open = scope
  scope = undefined
  if (open !== undefined) await Effect.runPromise(Scope.close(open, Exit.void))
}

/** A client that collects what it receives (when it reads at all); over TLS when asked. */
const client = async (port: number, read = true, tls = false) => {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s: Socket = tls
      ? connectTls({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => resolve(s))
      : connect({ host: "127.0.0.1", port }, () => resolve(s))
    s.once("error", reject)
  })
  sockets.push(socket)
  let received = ""
  let closed = false
  socket.on("close", () => void (closed = true))
  socket.on("error", () => undefined)
  if (read) socket.on("data", (chunk: Buffer) => void (received += chunk.toString("utf8")))
  else socket.pause()
  return { socket, received: () => received, closed: () => closed }
}

const waitFor = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await stopGate()
})

describe("the gate's TCP server", () => {
  it("stops handling lines for a client that does not read its replies", async () => {
    const { calls, port } = await startGate()
    const lazy = await client(port, false)
    lazy.socket.write("big\n".repeat(60))
    await new Promise((resolve) => setTimeout(resolve, 1500))
    // Each reply waits for the last to drain: only what the kernel's buffers hold was handled.
    expect(calls.exchanges).toBeGreaterThan(1)
    expect(calls.exchanges).toBeLessThan(20)
  })

  it("answers every pipelined line in order, reading ahead of their turn no more than it may", async () => {
    const { calls, port } = await startGate()
    const greedy = await client(port)
    await waitFor(() => greedy.received().includes("send help"))
    const lines = Array.from({ length: 200 }, (_, i) => `ping${i}`)
    greedy.socket.write(lines.map((line) => `${line}\n`).join(""))
    await waitFor(() => greedy.received().includes("ok ping199"))
    const replies = greedy.received().split("\n").filter((line) => line.startsWith("ok ping"))
    expect(replies).toEqual(lines.map((line) => `ok ${line}`))
    expect(greedy.closed()).toBe(false)
    expect(calls.exchanges).toBe(201)
  })

  it("ends a line at LF or CR LF (a CR LF split across packets too); a bare CR stays in its line, as POST /t reads it", async () => {
    const { calls, port } = await startGate()
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    agent.socket.write("post general hi\rgrant * limit=9\r\nthree\nfour\r")
    await waitFor(() => agent.received().includes("ok three"))
    await new Promise((resolve) => setTimeout(resolve, 50))
    agent.socket.write("\nfive\n")
    await waitFor(() => agent.received().includes("ok five"))
    // The bare CR ended nothing: the gate got one line with it (and refuses it: control characters).
    expect(calls.lines).toEqual(["post general hi\rgrant * limit=9", "three", "four", "five"])
  })

  it("words the line deadline for a client that sent nothing and for a line left unfinished", async () => {
    const { port } = await startGate(undefined, 300)
    const silent = await client(port)
    await waitFor(silent.closed)
    expect(silent.received()).toMatch(/err line_timeout nothing was sent within 0.3 s of connecting/)
    const halfway = await client(port)
    halfway.socket.write("hel")
    await waitFor(halfway.closed)
    expect(halfway.received()).toMatch(/err line_timeout a line must end with LF \(or CR LF\) within 0.3 s of its first byte/)
  })

  it("answers every line of a client that half-closes (lines, then FIN), then ends the connection", async () => {
    const { port } = await startGate()
    for (const count of [1, 10, 300]) {
      // The first line takes 400 ms: the FIN comes while a reply is still due.
      const lines = ["slow", ...Array.from({ length: count - 1 }, (_, i) => `ping${i}`)]
      const agent = await client(port)
      // Sent with FIN at once, before the greeting even (printf ... | nc -N).
      agent.socket.end(lines.map((line) => `${line}\n`).join(""))
      await waitFor(agent.closed)
      expect(agent.received().split("\n").filter((line) => line.startsWith("ok "))).toEqual(lines.map((line) => `ok ${line}`))
    }
    // Bytes after the last LF are the last line, as POST /t reads a body's last line.
    const unterminated = await client(port)
    unterminated.socket.end("slow\nwhoami\r\nlast words")
    await waitFor(unterminated.closed)
    expect(unterminated.received().split("\n").filter((line) => line.startsWith("ok "))).toEqual(["ok slow", "ok whoami", "ok last words"])
  })

  it("answers a half-closing client over TLS too", async () => {
    const dir = await mkdtemp(join(tmpdir(), "aics-gate-cert-"))
    try {
      const { cert, key } = selfSignedCert(dir)
      const { port } = await startGate({ certFile: cert, keyFile: key })
      const agent = await client(port, true, true)
      agent.socket.end("slow\nwhoami\n")
      await waitFor(agent.closed)
      expect(agent.received().split("\n").filter((line) => line.startsWith("ok "))).toEqual(["ok slow", "ok whoami"])
      // A client gone mid-handshake does not hold its connection (nor the shutdown) until the handshake deadline.
      const started = Date.now()
      const gone = connect({ host: "127.0.0.1", port })
      gone.on("error", () => undefined)
      gone.end("\x16\x03\x01")
      await new Promise((resolve) => setTimeout(resolve, 100))
      await stopGate()
      expect(Date.now() - started).toBeLessThan(3000)
    } finally {
      await stopGate()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("splits pipelined lines in time linear in what was read (no rescanning of held bytes)", async () => {
    const { port } = await startGate()
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    // The bytes searched for a line end, over every search of the whole process meanwhile.
    let searched = 0
    const indexOf = Buffer.prototype.indexOf
    Buffer.prototype.indexOf = function(this: Buffer, value: unknown, byteOffset?: unknown, encoding?: unknown) {
      const found = Reflect.apply(indexOf, this, [value, byteOffset, encoding]) as number
      if (value === 0x0a || value === 0x0d) {
        const from = typeof byteOffset === "number" ? byteOffset : 0
        searched += (found < 0 ? this.length : found + 1) - from
      }
      return found
    } as typeof indexOf
    try {
      const sent = 16 * 1024
      agent.socket.write("\n".repeat(sent))
      await waitFor(() => agent.received().split("\n").filter((line) => line === "ok ").length === sent, 20_000)
      expect(searched).toBeLessThan(4 * sent)
    } finally {
      Buffer.prototype.indexOf = indexOf
    }
  }, 30_000)

  it("stops the line deadline while it answers queued lines, and lets a line begun meanwhile finish", async () => {
    const { port } = await startGate(undefined, 500)
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    // 1.2 s of answering, with a partial line read behind the lines: the deadline is the client's only while reading.
    agent.socket.write("slow\nslow\nslow\npar")
    await new Promise((resolve) => setTimeout(resolve, 20))
    agent.socket.write("tial\n")
    await waitFor(() => agent.received().includes("ok partial"), 5000)
    expect(agent.received().split("\n").filter((line) => line.startsWith("ok ") || line.startsWith("err "))).toEqual(["ok slow", "ok slow", "ok slow", "ok partial"])
    // Reading again, the deadline holds for a line left unfinished.
    agent.socket.write("hel")
    await waitFor(agent.closed)
    expect(agent.received()).toMatch(/err line_timeout a line must end/)
  })

  it("writes the reply of the command in flight before the err line of a shutdown", async () => {
    const { port } = await startGate()
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    agent.socket.write("slow\n")
    await new Promise((resolve) => setTimeout(resolve, 100))
    await stopGate()
    await waitFor(agent.closed)
    const lines = agent.received().split("\n")
    expect(lines.filter((line) => line.startsWith("ok ") || line.startsWith("err "))).toEqual(["ok slow", expect.stringMatching(/^err shutting_down /)])
  })

  it("reads nothing more from a connection refused by its gate_lines budget until the retry-after time", async () => {
    const { port } = await startGate()
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    const sent = Date.now()
    agent.socket.write("limited\nping\n")
    await waitFor(() => agent.received().includes("err rate_limited"))
    await waitFor(() => agent.received().includes("ok ping"), 5000)
    // Refused with retry after 1 s: the next line waited for it.
    expect(Date.now() - sent).toBeGreaterThanOrEqual(950)
    expect(agent.closed()).toBe(false)
  })

  it("answers the complete lines read before a line too long, then line_too_long, and closes", async () => {
    const { port } = await startGate(undefined, undefined, 100)
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    agent.socket.write(`one\ntwo\n${"x".repeat(200)}`)
    await waitFor(agent.closed)
    expect(agent.received().split("\n").filter((line) => line.startsWith("ok ") || line.startsWith("err "))).toEqual(["ok one", "ok two", "err line_too_long a line is at most 100 bytes"])
  })

  it("answers a failing exchange with err internal, closes that connection, and keeps serving", async () => {
    const { port } = await startGate()
    const unlucky = await client(port)
    await waitFor(() => unlucky.received().includes("send help"))
    unlucky.socket.write("boom\n")
    await waitFor(unlucky.closed)
    expect(unlucky.received()).toMatch(/err internal /)

    const next = await client(port)
    await waitFor(() => next.received().includes("send help"))
    next.socket.write("ping\n")
    await waitFor(() => next.received().includes("ok ping"))
  })

  it("shuts down with an idle client connected: tells it, and does not wait for it", async () => {
    const { port } = await startGate()
    const idle = await client(port)
    await waitFor(() => idle.received().includes("send help"))
    const started = Date.now()
    await stopGate()
    expect(Date.now() - started).toBeLessThan(3000)
    expect(idle.received()).toMatch(/err shutting_down /)
    await waitFor(idle.closed)
  })

  it("serves a renewed certificate to new connections, and keeps the old one while the pair on disk does not match", async () => {
    const dir = await mkdtemp(join(tmpdir(), "aics-gate-cert-"))
    try {
      const first = selfSignedCert(await mkdtemp(join(dir, "a-")))
      const second = selfSignedCert(await mkdtemp(join(dir, "b-")))
      const certFile = join(dir, "cert.pem"), keyFile = join(dir, "key.pem")
      await copyFile(first.cert, certFile)
      await copyFile(first.key, keyFile)
      const { port } = await startGate({ certFile, keyFile, reloadEvery: "50 millis" })
      expect(await servedFingerprint(port)).toBe(await fingerprintOf(first.cert))

      // Half a renewal: the new certificate beside the old key makes no TLS context.
      await copyFile(second.cert, certFile)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await servedFingerprint(port)).toBe(await fingerprintOf(first.cert))

      // The whole renewal: new connections get the new certificate.
      await copyFile(second.key, keyFile)
      const renewed = await fingerprintOf(second.cert)
      const deadline = Date.now() + 5000
      while (await servedFingerprint(port) !== renewed) {
        if (Date.now() > deadline) throw new Error("the renewed certificate was not served")
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    } finally {
      await stopGate()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
