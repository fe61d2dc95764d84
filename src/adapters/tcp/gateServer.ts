// The text gate over TCP (docs/spec/service.md "What the service does" 6, "Authentication" 7;
// docs/protocol.md 17.4): a line-oriented server, plaintext (port 7701 in docs/spec/service.md, key
// identities only: the session machine refuses secrets there) or TLS (port 7700). One
// connection is one session: the gate greets with `session <id>`, then answers each line
// in order; `quit` closes.
//
// A careful server's limits, each so that a client cannot make the server hold unbounded
// memory or time:
//   - a line ends at LF, CR LF or a bare CR (a client that ends lines with CR alone would
//     otherwise wait for the line deadline); it is at most MAX_LINE_BYTES (a longer one is
//     answered `err line_too_long` and the connection closes, since the rest of it cannot
//     be read as a command); its bytes are kept as a list of chunks and joined once;
//   - the first byte must come within LINE_MS of connecting, each line must be complete
//     within LINE_MS of its first byte, and a connection idle for IDLE_MS closes;
//   - lines are handled one at a time with the socket paused; at most MAX_QUEUED_LINES are
//     split off ahead of their turn, and the rest of what was read (at most one chunk of
//     the socket) is held unsplit with the socket paused until they are answered. So a
//     client may pipeline any number of lines, each answered in order, while the memory a
//     connection holds stays bounded (TCP's flow control pushes back on the client);
//   - a reply is written with backpressure: the next line waits for 'drain', and a client
//     that does not read (MAX_UNREAD_BYTES unread, or no drain within DRAIN_MS) is cut off;
//   - at most MAX_CONNECTIONS at once, and MAX_CONNECTIONS_PER_ADDRESS from one address;
//   - a failure of the gate itself answers `err internal` and closes that connection only;
//   - on shutdown every connection is told `err shutting_down` and closed after SHUTDOWN_GRACE_MS.

import { createServer as createTcpServer, type Server, type Socket } from "node:net"
import { trackTcpConnections } from "../metrics/connectionStates.js"
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls"
import { type Duration, Effect, Layer, Runtime } from "effect"
import { Gate } from "../../app/Gate.js"
import { MAX_LINE_BYTES } from "../../domain/gate/command.js"
import { errLine, TCP_IDLE_SECONDS, TCP_LINE_SECONDS } from "../../domain/gate/session.js"
import { addressGroup } from "../../domain/admission/clientAddress.js"
import { capConnectionsPerAddress } from "./connectionsPerAddress.js"
import { readCertificates, reloadCertificates, secureContextOptions, type CertificateFiles } from "./certificateReload.js"

export const IDLE_MS = TCP_IDLE_SECONDS * 1000
export const LINE_MS = TCP_LINE_SECONDS * 1000
export const MAX_CONNECTIONS = 1024
export const MAX_CONNECTIONS_PER_ADDRESS = 32
export const MAX_QUEUED_LINES = 64
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024
export const DRAIN_MS = 30 * 1000
export const SHUTDOWN_GRACE_MS = 1000

export interface GateTcpOptions {
  readonly host: string
  readonly port: number
  /**
   * PEM files: the server speaks TLS (and its sessions may carry secrets) when given. They
   * are reread every `reloadEvery` (default a minute) and a renewed pair is served to new
   * connections (certificateReload.ts).
   */
  readonly tls?: CertificateFiles & { readonly reloadEvery?: Duration.DurationInput } | undefined
  /** Connections one address (IPv6: /64) holds at once; MAX_CONNECTIONS_PER_ADDRESS when absent. */
  readonly connectionsPerAddress?: number | undefined
  /** The line deadline (ms); LINE_MS when absent (tests shorten it). */
  readonly lineMs?: number | undefined
}

type Run = <A>(effect: Effect.Effect<A>) => Promise<A>

interface Connection {
  readonly socket: Socket
  /** Tells the client the server is going away, and ends the connection. */
  readonly shutdown: () => void
}

const serve = (socket: Socket, gate: typeof Gate.Service, run: Run, tls: boolean, lineMs: number): Connection => {
  const transport = { tls, method: "tcp" } as const
  // The connection's address group, for the address's gate budgets (gate_sessions, gate_lines, writes).
  const client = addressGroup(socket.remoteAddress ?? "unknown")
  let id: string | undefined
  let chunks: Array<Buffer> = []
  let partialBytes = 0
  const queue: Array<string> = []
  /** Bytes read but not yet split into lines, held while MAX_QUEUED_LINES wait (the socket is paused meanwhile). */
  let held: Buffer | undefined
  /** The last line ended with CR: an LF right after it (maybe in the next chunk) ends nothing more. */
  let afterCr = false
  /** No byte has arrived yet: the line deadline then counts from connecting. */
  let silent = true
  let busy = false
  let closed = false
  let lineTimer: NodeJS.Timeout | undefined

  /** Writes lines; false when the peer is not reading and the reply must wait for 'drain'. */
  const write = (lines: ReadonlyArray<string>): boolean => {
    if (closed || lines.length === 0) return true
    const ok = socket.write(lines.map((line) => `${line}\n`).join(""))
    if (socket.writableLength > MAX_UNREAD_BYTES) {
      cut()
      return true
    }
    return ok
  }
  /** Ends the connection after what was written; a peer that keeps sending is cut off. */
  const finish = () => {
    if (closed) return
    closed = true
    clearTimeout(lineTimer)
    socket.end()
    setTimeout(() => socket.destroy(), SHUTDOWN_GRACE_MS).unref()
  }
  /** A peer that breaks a limit: no goodbye that it would not read anyway. */
  const cut = () => {
    closed = true
    clearTimeout(lineTimer)
    socket.destroy()
  }
  const fail = (code: string, detail: string) => {
    write([errLine(code, detail)])
    finish()
  }
  const armLineDeadline = () => {
    clearTimeout(lineTimer)
    // Two cases, worded apart: a connection that never sent a byte, and a line begun but not ended.
    lineTimer = setTimeout(() => silent
      ? fail("line_timeout", `nothing was sent within ${lineMs / 1000} s of connecting; send a line (help) within ${lineMs / 1000} s`)
      : fail("line_timeout", `a line must end (LF, CR LF or CR) within ${lineMs / 1000} s of its first byte; this one did not`), lineMs)
    lineTimer.unref()
  }

  /** Resolves once the peer has read what was written (or the connection is gone). */
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        socket.off("drain", done)
        socket.off("close", done)
        resolve()
      }
      const timer = setTimeout(() => {
        cut()
        done()
      }, DRAIN_MS)
      socket.once("drain", done)
      socket.once("close", done)
    })

  /** Runs one exchange; a failure of the gate answers `err internal` and ends this connection. */
  const exchange = async (lines: ReadonlyArray<string>) => {
    try {
      const reply = await run(gate.exchange(id, lines, transport, client))
      id = reply.id
      return reply
    } catch {
      fail("internal", "the gate failed; the connection is closed")
      return undefined
    }
  }

  // The greeting: a new session, and what to type first. Lines wait for it.
  const greeted = exchange([]).then((reply) => {
    if (reply === undefined) return
    // Over the address's gate_sessions budget: the refusal, and the connection closes.
    if (reply.close) {
      write(reply.lines)
      return finish()
    }
    write([...reply.lines, `# AICS-1 text gate${tls ? " (TLS)" : " (plaintext: key identities only)"}; send help`])
  })

  const handleQueue = async () => {
    if (busy) return
    busy = true
    socket.pause()
    try {
      await greeted
      while (!closed) {
        // Lines held back while the queue was full are split as it empties, in order.
        if (held !== undefined && queue.length < MAX_QUEUED_LINES) {
          const rest = held
          held = undefined
          split(rest)
        }
        if (queue.length === 0 || closed) break
        const reply = await exchange([queue.shift()!])
        if (reply === undefined) break
        const flushed = write(reply.lines)
        if (reply.close) finish()
        else if (!flushed && !closed) await drained()
      }
    } finally {
      busy = false
      if (!closed && held === undefined) socket.resume()
    }
  }

  /** The next line end (LF or CR) in chunk from start, or -1. */
  const lineEnd = (chunk: Buffer, start: number): number => {
    const lf = chunk.indexOf(0x0a, start)
    const cr = chunk.indexOf(0x0d, start)
    return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr)
  }

  /**
   * Splits lines off the chunk into the queue, until the queue holds MAX_QUEUED_LINES: what
   * is left then is held (and the socket paused) until the queue has room again.
   */
  const split = (chunk: Buffer) => {
    let start = 0
    // The LF of a CR LF whose CR ended the last chunk.
    if (afterCr && chunk.length > 0) {
      if (chunk[0] === 0x0a) start = 1
      afterCr = false
    }
    let end: number
    while (queue.length < MAX_QUEUED_LINES && (end = lineEnd(chunk, start)) >= 0) {
      chunks.push(chunk.subarray(start, end))
      queue.push(Buffer.concat(chunks).toString("utf8"))
      chunks = []
      partialBytes = 0
      start = end + 1
      if (chunk[end] === 0x0d) {
        if (start < chunk.length) {
          if (chunk[start] === 0x0a) start++
        } else {
          afterCr = true
        }
      }
    }
    if (queue.length >= MAX_QUEUED_LINES && lineEnd(chunk, start) >= 0) {
      // The lines waiting are the server's delay, not the client's: no deadline runs until
      // the held bytes are split (a line they leave unfinished arms it then).
      clearTimeout(lineTimer)
      held = chunk.subarray(start)
      socket.pause()
      return
    }
    if (start < chunk.length) {
      if (partialBytes === 0) armLineDeadline()
      chunks.push(chunk.subarray(start))
      partialBytes += chunk.length - start
    } else {
      clearTimeout(lineTimer)
    }
    if (partialBytes > MAX_LINE_BYTES) {
      queue.length = 0
      return fail("line_too_long", `a line is at most ${MAX_LINE_BYTES} bytes`)
    }
  }

  const onData = (chunk: Buffer) => {
    silent = false
    if (held !== undefined) {
      // Paused, the socket should send nothing more; should a chunk come anyway, it waits
      // behind the held one, within the bound of what a client may leave unanswered.
      held = Buffer.concat([held, chunk])
      if (held.length > MAX_UNREAD_BYTES) return cut()
      socket.pause()
    } else {
      split(chunk)
    }
    if (closed) return
    handleQueue().catch(() => fail("internal", "the gate failed; the connection is closed"))
  }

  socket.setNoDelay(true)
  armLineDeadline()
  socket.setTimeout(IDLE_MS, () => fail("idle_timeout", `no line for ${IDLE_MS / 1000} s`))
  socket.on("error", () => socket.destroy())
  socket.on("close", () => {
    closed = true
    clearTimeout(lineTimer)
    if (id !== undefined) run(gate.end(id)).catch(() => undefined)
  })
  socket.on("data", (chunk: Buffer) => {
    if (!closed) onData(chunk)
  })

  return { socket, shutdown: () => fail("shutting_down", "the service is stopping; reconnect later") }
}

/** Serves the gate on host:port until the scope closes. */
export const GateTcpLive = (options: GateTcpOptions) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const gate = yield* Gate
    const runtime = yield* Effect.runtime<never>()
    // A defect is logged here with its cause; the connection answers `err internal`.
    const run: Run = (effect) =>
      Runtime.runPromise(runtime)(effect.pipe(Effect.tapErrorCause((cause) => Effect.logError("text gate: an exchange failed", cause))))
    const tls = options.tls
    const server: Server = tls === undefined ? createTcpServer() : yield* Effect.gen(function*() {
      const loaded = yield* Effect.orDie(readCertificates(tls))
      const tlsServer: TlsServer = createTlsServer({
        ...secureContextOptions(loaded.cert, loaded.key),
        // A client that never finishes its handshake holds a connection slot no longer than this.
        handshakeTimeout: 10_000
      })
      yield* Effect.forkScoped(reloadCertificates(tlsServer, tls, loaded, tls.reloadEvery))
      return tlsServer
    })
    server.maxConnections = MAX_CONNECTIONS
    trackTcpConnections(server, tls === undefined ? "gate" : "gate_tls")
    const connections = new Set<Connection>()
    // Counted on the raw connection, before TLS, so handshakes count against the address too.
    capConnectionsPerAddress(server, options.connectionsPerAddress ?? MAX_CONNECTIONS_PER_ADDRESS)
    // A TLS client that fails its handshake is its own problem, not the server's.
    server.on("tlsClientError", (_error: Error, socket: Socket) => socket.destroy())
    server.on(tls === undefined ? "connection" : "secureConnection", (socket: Socket) => {
      if (socket.destroyed) return
      const connection = serve(socket, gate, run, tls !== undefined, options.lineMs ?? LINE_MS)
      connections.add(connection)
      socket.once("close", () => connections.delete(connection))
    })
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(options.port, options.host, () => resume(Effect.void))
      }),
      // close() waits for every connection: each is told, ended, and destroyed after a grace.
      () => Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        for (const connection of connections) connection.shutdown()
      })
    ).pipe(Effect.orDie)
    const address = server.address()
    yield* Effect.logInfo("Text gate listening").pipe(Effect.annotateLogs({ address: `${options.host}:${typeof address === "object" && address !== null ? address.port : options.port}`, transport: tls === undefined ? "plaintext" : "TLS" }))
  }))
