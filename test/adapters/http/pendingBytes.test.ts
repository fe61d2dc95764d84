// Memory an attacker can pin (issue 13 item 11): 1,000 connections, from ten loopback
// addresses, each sending a 1 MiB request head it never finishes. The server holds at most
// AICS_HTTP_PENDING_BYTES of unanswered requests (and AICS_HTTP_PENDING_BYTES_PER_ADDRESS
// per address), closing the connections that hold the most: its peak RSS (VmHWM) grows by
// no more than that bound plus a margin for the kernel-to-parser copies in flight, where it
// grew by over 1 GiB before; a polite client is answered meanwhile and after. And a client
// whose requests are all answered holds nothing, however much it has sent: the lean routes'
// requests (GET /v2/entries/{i}, POST /v2/entries) count as answered like HttpApi's.

import { readFile } from "node:fs/promises"
import { connect, type Socket } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { rawGetter } from "../../support/load.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined
let answeringServer: RunningServer | undefined
const sockets: Array<Socket> = []

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  for (const started of [server, answeringServer]) {
    await started?.stop()
    if (started !== undefined) await removeDir(started.dataDir)
  }
})

const MiB = 1024 * 1024
const TOTAL = 64 * MiB
const PER_ADDRESS = 16 * MiB
/** Room for what is between the kernel and the parser when a sweep runs, and the heap's slack. */
const MARGIN = 160 * MiB

const memoryOf = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, "utf8")
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024
  return { rss: kib("VmRSS"), peak: kib("VmHWM") }
}

/** Opens a connection from `localAddress` and writes a request head of `bytes` it never ends. */
const unfinishedHead = (port: number, localAddress: string, bytes: Buffer) =>
  new Promise<Socket>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress }, () => {
      socket.write(bytes)
      resolve(socket)
    })
    socket.on("error", () => resolve(socket))
    sockets.push(socket)
  })

describe("bytes held for unfinished requests", () => {
  it("stay within the configured bound under 1,000 connections with 1 MiB heads", async () => {
    server = await startServer({
      dataDir: await tempDataDir(),
      env: { AICS_HTTP_PENDING_BYTES: String(TOTAL), AICS_HTTP_PENDING_BYTES_PER_ADDRESS: String(PER_ADDRESS) }
    })
    const pid = server.child.pid!
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
    const before = await memoryOf(pid)

    const head = Buffer.from(`GET /t?l=${"a".repeat(MiB - 64)}`)
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => unfinishedHead(server!.port, `127.0.0.${2 + ((batch * 100 + i) % 10)}`, head)))
      // A polite client is answered while the flood goes on.
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
    }
    // Let the last sweeps run, then read the peak.
    await new Promise((r) => setTimeout(r, 500))
    const after = await memoryOf(pid)
    const grown = after.peak - Math.max(before.rss, 0)
    console.log(`RSS before ${Math.round(before.rss / MiB)} MiB, peak after the flood ${Math.round(after.peak / MiB)} MiB ` +
      `(grew ${Math.round(grown / MiB)} MiB; bound ${TOTAL / MiB} MiB + margin ${MARGIN / MiB} MiB)`)
    expect(after.peak).toBeLessThanOrEqual(Math.max(before.peak, before.rss + TOTAL + MARGIN))
    const open = sockets.filter((s) => !s.destroyed && s.readyState === "open").length
    expect(open).toBeLessThan(1000)
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
  }, 120_000)

  it("never count what a keep-alive connection sent for requests already answered, lean routes' included", async () => {
    const bound = MiB
    answeringServer = await startServer({
      dataDir: await tempDataDir(),
      env: { AICS_HTTP_PENDING_BYTES_PER_ADDRESS: String(bound) }
    })
    // One connection, one request after another, each with 16 KiB of padding in its head,
    // until it has sent four bounds' worth and several sweeps (every 50 ms) have run: first
    // GET /v2/entries/{i}, a lean route's (leanEntryRoute.ts), then GET /checkpoint,
    // HttpApi's. A closed connection fails the exchange.
    const client = rawGetter(answeringServer.baseUrl)
    const padding = { "x-padding": "p".repeat(16 * 1024) }
    try {
      let answers = 0
      for (const path of ["/v2/entries/0", "/checkpoint"]) {
        const started = Date.now()
        let sent = 0
        while (sent < 4 * bound || Date.now() - started < 300) {
          const { status } = await client.get(path, padding)
          expect(status).toBe(200)
          sent += padding["x-padding"].length
          answers++
        }
      }
      expect(answers).toBeGreaterThanOrEqual(512)
    } finally {
      client.close()
    }
  }, 120_000)
})
