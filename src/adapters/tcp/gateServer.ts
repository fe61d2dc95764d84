// The text gate over TCP (service.md "What the service does" 6, "Authentication" 7;
// docs/protocol.md 17.6): a line-oriented server, plaintext (port 7701 in service.md, key
// identities only: the session machine refuses secrets there) or TLS (port 7700). One
// connection is one session: the gate greets with `session <id>`, then answers each line
// in order; `quit` closes.
//
// A careful server's limits: a line is at most MAX_LINE_BYTES (a longer one is answered
// `err line_too_long` and the connection is closed, since the rest of it cannot be read
// as a command); a connection idle for IDLE_MS is closed; at most MAX_CONNECTIONS at once
// (the kernel's backlog then the refusal of more); lines are handled one at a time, and
// the socket is paused while one runs, so a client cannot queue unbounded work.

import { readFile } from "node:fs/promises"
import { createServer as createTcpServer, type Server, type Socket } from "node:net"
import { createServer as createTlsServer } from "node:tls"
import { Effect, Layer, Runtime } from "effect"
import { Gate } from "../../app/Gate.js"
import { MAX_LINE_BYTES } from "../../domain/gate/command.js"
import { errLine } from "../../domain/gate/session.js"

export const IDLE_MS = 5 * 60 * 1000
export const MAX_CONNECTIONS = 1024

export interface GateTcpOptions {
  readonly host: string
  readonly port: number
  /** PEM files: the server speaks TLS (and its sessions may carry secrets) when given. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined
}

const serve = (socket: Socket, gate: typeof Gate.Service, run: <A>(effect: Effect.Effect<A>) => Promise<A>, tls: boolean) => {
  const transport = { tls, method: "tcp" } as const
  let id: string | undefined
  let buffered: Buffer = Buffer.alloc(0)
  const queue: Array<string> = []
  let busy = false
  let closed = false

  const write = (lines: ReadonlyArray<string>) => {
    if (!closed && lines.length > 0) socket.write(lines.map((line) => `${line}\n`).join(""))
  }
  /** Ends the connection after what was written; a peer that keeps sending is cut off. */
  const finish = () => {
    if (closed) return
    closed = true
    socket.end()
    setTimeout(() => socket.destroy(), 2000).unref()
  }

  // The greeting: a new session, and what to type first. Lines wait for it.
  const greeted = run(gate.exchange(undefined, [], transport)).then((reply) => {
    id = reply.id
    write([...reply.lines, `# AICS-1 text gate${tls ? " (TLS)" : " (plaintext: key identities only)"}; send help`])
  })

  const drain = async () => {
    if (busy) return
    busy = true
    socket.pause()
    try {
      await greeted
      while (queue.length > 0 && !closed) {
        const reply = await run(gate.exchange(id, [queue.shift()!], transport))
        id = reply.id
        write(reply.lines)
        if (reply.close) finish()
      }
    } finally {
      busy = false
      if (!closed) socket.resume()
    }
  }

  socket.setNoDelay(true)
  socket.setTimeout(IDLE_MS, () => {
    write([errLine("idle_timeout", `no line for ${IDLE_MS / 1000} s`)])
    finish()
  })
  socket.on("error", () => socket.destroy())
  socket.on("close", () => {
    closed = true
    if (id !== undefined) void run(gate.end(id))
  })
  socket.on("data", (chunk: Buffer) => {
    if (closed) return
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
    let newline: number
    while ((newline = buffered.indexOf(0x0a)) >= 0) {
      queue.push(buffered.subarray(0, newline).toString("utf8"))
      buffered = buffered.subarray(newline + 1)
    }
    if (buffered.length > MAX_LINE_BYTES) {
      queue.length = 0
      write([errLine("line_too_long", `a line is at most ${MAX_LINE_BYTES} bytes`)])
      finish()
      return
    }
    void drain()
  })

}

/** Serves the gate on host:port until the scope closes. */
export const GateTcpLive = (options: GateTcpOptions) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const gate = yield* Gate
    const runtime = yield* Effect.runtime<never>()
    const run = <A>(effect: Effect.Effect<A>) => Runtime.runPromise(runtime)(effect)
    const tls = options.tls
    const server: Server = tls === undefined
      ? createTcpServer()
      : createTlsServer({
        cert: yield* Effect.promise(() => readFile(tls.certFile)),
        key: yield* Effect.promise(() => readFile(tls.keyFile)),
        minVersion: "TLSv1.2",
        // A client that never finishes its handshake holds a connection slot no longer than this.
        handshakeTimeout: 10_000
      })
    server.maxConnections = MAX_CONNECTIONS
    // A TLS client that fails its handshake is its own problem, not the server's.
    server.on("tlsClientError", (_error: Error, socket: Socket) => socket.destroy())
    server.on(tls === undefined ? "connection" : "secureConnection", (socket: Socket) => serve(socket, gate, run, tls !== undefined))
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(options.port, options.host, () => resume(Effect.void))
      }),
      () => Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
    ).pipe(Effect.orDie)
    const address = server.address()
    yield* Effect.logInfo(`Text gate listening on ${options.host}:${typeof address === "object" && address !== null ? address.port : options.port}${tls === undefined ? " (plaintext)" : " (TLS)"}`)
  }))
