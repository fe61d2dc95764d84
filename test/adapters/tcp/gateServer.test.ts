// The gate's TCP server on its own (src/adapters/tcp/gateServer.ts; docs/protocol.md 17.4),
// in this process, with a Gate whose exchanges the test decides: backpressure towards a
// client that does not read, the cap on queued lines, a failing exchange that ends only its
// connection, a shutdown that does not wait for idle clients, and a renewed TLS certificate
// served without a restart.

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

/** A gate that counts exchanges, answers `big` with 2 MiB, and dies on `boom`. */
const fakeGate = () => {
  const calls = { exchanges: 0, ended: 0 }
  const gate = Layer.succeed(Gate, Gate.of({
    exchange: (_id, lines) =>
      Effect.suspend(() => {
        calls.exchanges++
        if (lines[0] === "boom") return Effect.die(new Error("a defect in a gate effect"))
        const lines2 = lines.length === 0 ? ["session s1"] : lines[0] === "big" ? [BIG_LINE, "ok big"] : [`ok ${lines[0]}`]
        return Effect.succeed({ id: "s1", lines: lines2, close: false })
      }),
    end: () => Effect.sync(() => void calls.ended++)
  }))
  return { calls, gate }
}

let scope: Scope.CloseableScope | undefined
const sockets: Array<Socket> = []

const startGate = async (tls?: Parameters<typeof GateTcpLive>[0]["tls"], lineMs?: number) => {
  const { calls, gate } = fakeGate()
  const port = await freePort()
  scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(GateTcpLive({ host: "127.0.0.1", port, tls, lineMs }).pipe(Layer.provide(gate)), scope))
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

/** A client that collects what it receives (when it reads at all). */
const client = async (port: number, read = true) => {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port }, () => resolve(s))
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

  it("ends a line at LF, CR LF or a bare CR, a CR LF split across packets included", async () => {
    const { port } = await startGate()
    const agent = await client(port)
    await waitFor(() => agent.received().includes("send help"))
    agent.socket.write("one\rtwo\r\nthree\nfour\r")
    await waitFor(() => agent.received().includes("ok four"))
    await new Promise((resolve) => setTimeout(resolve, 50))
    agent.socket.write("\nfive\n")
    await waitFor(() => agent.received().includes("ok five"))
    // The LF after four's CR ended nothing: no empty line was answered.
    expect(agent.received().split("\n").filter((line) => line.startsWith("ok "))).toEqual(["ok one", "ok two", "ok three", "ok four", "ok five"])
  })

  it("words the line deadline for a client that sent nothing and for a line left unfinished", async () => {
    const { port } = await startGate(undefined, 300)
    const silent = await client(port)
    await waitFor(silent.closed)
    expect(silent.received()).toMatch(/err line_timeout nothing was sent within 0.3 s of connecting/)
    const halfway = await client(port)
    halfway.socket.write("hel")
    await waitFor(halfway.closed)
    expect(halfway.received()).toMatch(/err line_timeout a line must end \(LF, CR LF or CR\) within 0.3 s of its first byte/)
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
