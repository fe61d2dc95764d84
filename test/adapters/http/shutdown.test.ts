// SIGTERM stops the service promptly whatever its HTTP clients are doing (closeDraining.ts):
// a connection still uploading a body the service has already refused is closed once the
// upload ends, and one whose request never ends is cut after the grace period, instead of
// holding the process for the 65 s keep-alive or the 120 s request timeout. And a request
// that arrives whole only after the SIGTERM is answered by no route, the lean ones
// (leanFirst.ts) as HttpApi's.

import { connect, type Socket } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { SHUTDOWN_GRACE_MS } from "../../../src/adapters/http/closeDraining.js"
import { MAX_WRITE_REQUEST_BYTES } from "../../../src/app/EntryWrites.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined
let sockets: Array<Socket> = []
afterEach(async () => {
  for (const socket of sockets) socket.destroy()
  sockets = []
  await server?.kill()
  if (server !== undefined) await removeDir(server.dataDir)
  server = undefined
})

/** A raw connection, and the text it has received so far. */
const open = async (port: number) => {
  const socket = connect(port, "127.0.0.1")
  sockets.push(socket)
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject))
  let received = ""
  socket.on("data", (chunk: Buffer) => { received += chunk.toString() })
  socket.on("error", () => undefined)
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
  return { socket, received: () => received, closed }
}

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Milliseconds from SIGTERM to the process's exit. */
const stopTimed = async (running: RunningServer) => {
  const started = Date.now()
  await running.stop()
  return Date.now() - started
}

describe("SIGTERM with HTTP clients still connected", () => {
  it("closes a connection whose refused upload ends after the SIGTERM", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const client = await open(server.port)
    const length = MAX_WRITE_REQUEST_BYTES + 1
    client.socket.write(`POST /v2/entries HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`)
    client.socket.write(Buffer.alloc(1024, 0x20))
    // The service answers 413 from the declared length, before the body has arrived.
    await until(() => client.received().startsWith("HTTP/1.1 413"), "the 413")
    const stopping = stopTimed(server)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // The rest of the upload arrives after close(): the connection falls idle only now.
    client.socket.write(Buffer.alloc(length - 1024, 0x20))
    const elapsed = await stopping
    await client.closed
    expect(elapsed).toBeLessThan(SHUTDOWN_GRACE_MS)
    expect(server.child.exitCode).toBe(0)
  })

  it("cuts a request that never ends after the grace period", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const client = await open(server.port)
    client.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: `)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const elapsed = await stopTimed(server)
    await client.closed
    expect(elapsed).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 100)
    expect(elapsed).toBeLessThan(SHUTDOWN_GRACE_MS + 5_000)
    expect(server.child.exitCode).toBe(0)
  }, 30_000)

  it("answers no request completed after the SIGTERM, on the lean routes as on HttpApi's", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const heads = ["GET /v2/entries/0", "GET /checkpoint"]
    // Each connection is busy at the SIGTERM (a head under way), so it is not closed as idle.
    const clients = await Promise.all(heads.map(async (head) => {
      const client = await open(server!.port)
      client.socket.write(`${head} HTTP/1.1\r\nHost: 127.0.0.1:${server!.port}\r\n`)
      return client
    }))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const stopping = stopTimed(server)
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (const client of clients) client.socket.write("\r\n")
    const elapsed = await stopping
    await Promise.all(clients.map((client) => client.closed))
    expect(clients.map((client) => client.received())).toEqual(["", ""])
    expect(elapsed).toBeLessThan(SHUTDOWN_GRACE_MS + 5_000)
    expect(server.child.exitCode).toBe(0)
  }, 30_000)
})
