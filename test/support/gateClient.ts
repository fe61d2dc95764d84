// A text-gate client for end-to-end tests, as an agent would type: lines over TCP (plain
// or TLS) or POST /t and GET /t, and the leaves read back from the tiles. Replies end with
// a line "ok ..." or "err ...", which is how a reply is known to be complete.

import { execFileSync } from "node:child_process"
import { connect as netConnect, type Socket } from "node:net"
import { join } from "node:path"
import { connect as tlsConnect } from "node:tls"
import { parseEntryBundle, publishedTiles, verifyLogFromTiles } from "./independentVerifier.js"
import { sha256 } from "./outsideOwner.js"

const isEnd = (line: string) => line.startsWith("ok ") || line === "ok" || line.startsWith("err ")

/** One TCP connection to the gate. */
export class GateConnection {
  private buffer = ""
  private lines: Array<string> = []
  private waiters: Array<() => void> = []
  closed = false

  private constructor(readonly socket: Socket) {
    socket.setEncoding("utf8")
    socket.on("data", (chunk: string) => {
      this.buffer += chunk
      let nl: number
      while ((nl = this.buffer.indexOf("\n")) >= 0) {
        this.lines.push(this.buffer.slice(0, nl))
        this.buffer = this.buffer.slice(nl + 1)
      }
      this.wake()
    })
    socket.on("close", () => {
      this.closed = true
      this.wake()
    })
    socket.on("error", () => undefined)
  }

  private wake() {
    for (const waiter of this.waiters.splice(0)) waiter()
  }

  static async open(port: number, tls: boolean): Promise<GateConnection> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = tls
        ? tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => resolve(s))
        : netConnect({ host: "127.0.0.1", port }, () => resolve(s))
      s.once("error", reject)
    })
    const connection = new GateConnection(socket)
    await connection.until((line) => line.startsWith("# AICS-1 text gate"))
    return connection
  }

  /** Lines received up to and including the first that satisfies `done`. */
  async until(done: (line: string) => boolean, timeoutMs = 10_000): Promise<Array<string>> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const at = this.lines.findIndex(done)
      if (at >= 0) return this.lines.splice(0, at + 1)
      if (this.closed) throw new Error(`the gate closed the connection; received: ${this.lines.join(" | ")}`)
      if (Date.now() > deadline) throw new Error(`no reply in time; received: ${this.lines.join(" | ")}`)
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 100)
      })
    }
  }

  /** Sends one line and returns the reply (through its ok/err line). */
  async send(line: string): Promise<Array<string>> {
    // A reply ends with its ok/err line: nothing may trail it.
    if (this.lines.length > 0) throw new Error(`lines after the last reply: ${this.lines.join(" | ")}`)
    this.socket.write(`${line}\n`)
    return this.until(isEnd)
  }

  close() {
    this.socket.end()
  }
}

/** POST /t with the session line first when given; returns the reply lines. */
export const postGate = async (baseUrl: string, lines: ReadonlyArray<string>, session?: string, headers: Record<string, string> = {}) => {
  const body = [...(session === undefined ? [] : [`session ${session}`]), ...lines].join("\n")
  const res = await fetch(`${baseUrl}/t`, { method: "POST", headers: { "content-type": "text/plain", ...headers }, body })
  return { status: res.status, lines: (await res.text()).split("\n").filter((l) => l !== "") }
}

export const getGate = async (baseUrl: string, line?: string, session?: string) => {
  const query = new URLSearchParams()
  if (session !== undefined) query.set("s", session)
  if (line !== undefined) query.set("l", line)
  const res = await fetch(`${baseUrl}/t?${query.toString()}`)
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** The value after `<prefix> ` on the reply's line that starts with it. */
export const field = (lines: ReadonlyArray<string>, prefix: string): string => {
  const line = lines.find((l) => l.startsWith(`${prefix} `))
  if (line === undefined) throw new Error(`no "${prefix}" line in: ${lines.join(" | ")}`)
  return line.slice(prefix.length + 1)
}

/** The session to continue with: the last `session <id>` line (a proof or login renews the id). */
export const sessionOf = (lines: ReadonlyArray<string>, current?: string): string => {
  const line = lines.findLast((l) => l.startsWith("session "))
  if (line === undefined && current === undefined) throw new Error(`no "session" line in: ${lines.join(" | ")}`)
  return line === undefined ? current! : line.slice("session ".length)
}

export const lastLine = (lines: ReadonlyArray<string>): string => lines[lines.length - 1] ?? ""

/** A self-signed certificate and key for 127.0.0.1, made with the openssl CLI. */
export const selfSignedCert = (dir: string): { cert: string; key: string } => {
  const cert = join(dir, "gate-cert.pem"), key = join(dir, "gate-key.pem")
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
    "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", cert], { stdio: "ignore" })
  return { cert, key }
}

/** Every leaf of the log, each checked against its verified level-0 tile hash; waits for `atLeast` leaves. */
export const leavesFromTiles = async (baseUrl: string, vkey: string, atLeast: number) => {
  let verified = await verifyLogFromTiles(baseUrl, vkey)
  for (let tries = 0; verified.size < atLeast && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    verified = await verifyLogFromTiles(baseUrl, vkey)
  }
  if (verified.size < atLeast) throw new Error(`the tiles hold ${verified.size} leaves, expected ${atLeast}`)
  const leaves: Array<{ envelope: Record<string, any>; index: number; logged: number }> = []
  for (const tile of publishedTiles(verified.size).filter((t) => t.level === "entries")) {
    const bundle = new Uint8Array(await (await fetch(`${baseUrl}/tiles/${tile.path}`)).arrayBuffer())
    for (const bytes of parseEntryBundle(bundle, tile.width, tile.path)) {
      const hash = sha256(new Uint8Array([0, ...bytes]))
      if (!Buffer.from(hash).equals(Buffer.from(verified.tiles.leafHash(leaves.length)))) throw new Error(`leaf ${leaves.length} does not hash to its tile`)
      leaves.push(JSON.parse(Buffer.from(bytes).toString("utf8")))
    }
  }
  return leaves
}
