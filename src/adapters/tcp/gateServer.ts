// The text gate over TCP (docs/spec/service.md "What the service does" 6, "Authentication" 7;
// docs/protocol.md 17.4): a line-oriented server, plaintext (port 7701 in docs/spec/service.md, key
// identities only: the session machine refuses secrets there) or TLS (port 7700). One
// connection is one session: the gate greets with `session <id>`, then answers each line
// in order; `quit` closes.
//
// A careful server's limits, each so that a client cannot make the server hold unbounded
// memory or time:
//   - a line ends at LF, and a CR right before the LF is dropped (CR LF); a CR anywhere else
//     stays in the line, which the gate refuses (`err usage`: no control characters). POST /t
//     splits its body the same way, so the same bytes are the same commands on both
//     transports: a bare CR that ended a line here but not there would let one transport
//     smuggle a second command past what the other showed (the SMTP-smuggling pattern);
//   - a line is at most MAX_LINE_BYTES: a longer one is answered `err line_too_long` once the
//     complete lines before it are answered, and the connection closes, since the rest of it
//     cannot be read as a command; its bytes are kept as a list of chunks and joined once,
//     and splitting looks at each byte read a bounded number of times (linear);
//   - the first byte must come within LINE_MS of connecting, each line must be complete
//     within LINE_MS of its first byte, and a connection idle for IDLE_MS closes. The time
//     the server spends answering queued lines (the socket paused) is not the client's: the
//     line deadline stops meanwhile and a line left unfinished gets a new one on resume;
//   - lines are handled one at a time with the socket paused; at most MAX_QUEUED_LINES are
//     split off ahead of their turn, and the rest of what was read (at most one chunk of
//     the socket) is held unsplit with the socket paused until they are answered. So a
//     client may pipeline any number of lines, each answered in order, while the memory a
//     connection holds stays bounded (TCP's flow control pushes back on the client): at most
//     MAX_QUEUED_LINES complete lines plus one chunk held plus one partial line of
//     MAX_LINE_BYTES, and MAX_UNREAD_BYTES of replies written but unread (below);
//   - a line the address's gate_lines budget refuses (`err rate_limited`) pauses reading for
//     its retry-after time (at most MAX_PACE_MS): one connection cannot spin the server on
//     refused lines;
//   - a client that half-closes (sends FIN after its lines) is answered every line, then the
//     connection ends; bytes after its last LF are its last line, as POST /t reads a body's
//     last line without LF;
//   - a reply is written with backpressure: the next line waits for 'drain', and a client
//     that does not read (MAX_UNREAD_BYTES unread, or no drain within DRAIN_MS) is cut off;
//   - at most MAX_CONNECTIONS at once, and MAX_CONNECTIONS_PER_ADDRESS from one address;
//   - a failure of the gate itself answers `err internal` and closes that connection only;
//   - on shutdown every connection is told `err shutting_down` and closed after
//     SHUTDOWN_GRACE_MS; an err line that comes while a command runs (shutdown, idle) is
//     written after that command's reply, so a command that ran is never left unanswered.

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
import { reportLine } from "../logging/logging.js"

export const IDLE_MS = TCP_IDLE_SECONDS * 1000
export const LINE_MS = TCP_LINE_SECONDS * 1000
export const MAX_CONNECTIONS = 1024
export const MAX_CONNECTIONS_PER_ADDRESS = 32
export const MAX_QUEUED_LINES = 64
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024
export const DRAIN_MS = 30 * 1000
export const SHUTDOWN_GRACE_MS = 1000
/** The longest a connection refused by its address's gate_lines budget goes unread. */
export const MAX_PACE_MS = 60 * 1000

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
  /** The longest line (bytes); MAX_LINE_BYTES when absent (tests shorten it below a socket read). */
  readonly maxLineBytes?: number | undefined
}

type Run = <A>(effect: Effect.Effect<A>) => Promise<A>

interface Connection {
  readonly socket: Socket
  /** Tells the client the server is going away, and ends the connection. */
  readonly shutdown: () => void
}

const serve = (socket: Socket, gate: typeof Gate.Service, run: Run, tls: boolean, lineMs: number, maxLineBytes: number): Connection => {
  const transport = { tls, method: "tcp" } as const
  // The connection's address group, for the address's gate budgets (gate_sessions, gate_lines, writes).
  const client = addressGroup(socket.remoteAddress ?? "unknown")
  let id: string | undefined
  /** The line being read (no LF yet): its bytes as chunks, joined once when it ends. */
  let chunks: Array<Buffer> = []
  let partialBytes = 0
  const queue: Array<string> = []
  /** Bytes read but not yet split into lines, held while MAX_QUEUED_LINES wait (the socket is paused meanwhile). */
  let held: Buffer | undefined
  /** No byte has arrived yet: the line deadline then counts from connecting. */
  let silent = true
  /** The peer half-closed (FIN): nothing more comes; the connection ends once every line is answered. */
  let peerEnded = false
  /** The line being read passed MAX_LINE_BYTES: the lines before it are answered, then `err line_too_long`. */
  let tooLong = false
  let busy = false
  let closed = false
  /** An exchange is running: an err line that comes meanwhile waits for its reply (pendingErr). */
  let inFlight = false
  let pendingErr: string | undefined
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
  /**
   * Answers `err <code>` and ends the connection. While an exchange runs, its command has run
   * (or is running): its reply is written first, then the err line, unless the gate takes
   * longer than SHUTDOWN_GRACE_MS to answer.
   */
  const fail = (code: string, detail: string) => {
    if (closed) return
    const line = errLine(code, detail)
    if (!inFlight) {
      write([line])
      return finish()
    }
    if (pendingErr !== undefined) return
    pendingErr = line
    clearTimeout(lineTimer)
    socket.pause()
    setTimeout(() => {
      if (closed) return
      write([line])
      finish()
    }, SHUTDOWN_GRACE_MS).unref()
  }
  const armLineDeadline = () => {
    clearTimeout(lineTimer)
    // Two cases, worded apart: a connection that never sent a byte, and a line begun but not ended.
    lineTimer = setTimeout(() => silent
      ? fail("line_timeout", `nothing was sent within ${lineMs / 1000} s of connecting; send a line (help) within ${lineMs / 1000} s`)
      : fail("line_timeout", `a line must end with LF (or CR LF) within ${lineMs / 1000} s of its first byte; this one did not`), lineMs)
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

  /** Resolves after ms (or once the connection is gone): a refused client's pause, the socket paused. */
  const paced = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        socket.off("close", done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      socket.once("close", done)
    })

  /** Runs one exchange; a failure of the gate answers `err internal` and ends this connection. */
  const exchange = async (lines: ReadonlyArray<string>) => {
    inFlight = true
    try {
      const reply = await run(gate.exchange(id, lines, transport, client))
      id = reply.id
      return reply
    } catch {
      inFlight = false
      fail("internal", "the gate failed; the connection is closed")
      return undefined
    } finally {
      inFlight = false
    }
  }

  /** Writes a reply, then an err line that waited for it (and ends); false when the connection is ending. */
  const answer = (lines: ReadonlyArray<string>): boolean => {
    const flushed = write(lines)
    if (pendingErr !== undefined) {
      write([pendingErr])
      finish()
    }
    return flushed
  }

  // The greeting: a new session, and what to type first. Lines wait for it.
  const greeted = exchange([]).then((reply) => {
    if (reply === undefined) return
    // Over the address's gate_sessions budget: the refusal, and the connection closes.
    if (reply.close) {
      answer(reply.lines)
      return finish()
    }
    answer([...reply.lines, `# AICS-1 text gate${tls ? " (TLS)" : " (plaintext: key identities only)"}; send help`])
  })

  /** Ends the line being read with its last bytes (a CR right before its LF is dropped: CR LF). */
  const endLine = (tail: Buffer) => {
    chunks.push(tail)
    const joined = chunks.length === 1 ? tail : Buffer.concat(chunks)
    const line = joined.length > 0 && joined[joined.length - 1] === 0x0d ? joined.subarray(0, joined.length - 1) : joined
    queue.push(line.toString("utf8"))
    chunks = []
    partialBytes = 0
  }

  const handleQueue = async () => {
    if (busy) return
    busy = true
    socket.pause()
    // The lines waiting are the server's delay, not the client's: no line deadline runs while
    // they are answered (a line left unfinished gets a new one when reading resumes).
    clearTimeout(lineTimer)
    try {
      await greeted
      while (!closed) {
        // Lines held back while the queue was full are split as it empties, in order.
        if (held !== undefined && queue.length < MAX_QUEUED_LINES) {
          const rest = held
          held = undefined
          split(rest)
        }
        if (queue.length === 0 && held === undefined) {
          // Every complete line before it answered: now the line that was too long.
          if (tooLong) fail("line_too_long", `a line is at most ${maxLineBytes} bytes`)
          // The peer ended with bytes after its last LF: they are its last line, as POST /t
          // reads a body's last line without LF.
          else if (peerEnded && partialBytes > 0) {
            endLine(Buffer.alloc(0))
            continue
          }
          break
        }
        if (queue.length === 0) break
        const reply = await exchange([queue.shift()!])
        if (reply === undefined) break
        const flushed = answer(reply.lines)
        if (reply.close) finish()
        else if (!flushed && !closed) await drained()
        // Refused by the address's gate_lines budget: nothing more is read before a token is back.
        if (reply.limited !== undefined && !closed) await paced(Math.min(reply.limited.retryAfter * 1000, MAX_PACE_MS))
      }
    } finally {
      busy = false
      if (!closed) {
        if (peerEnded) finish()
        else if (held === undefined && !tooLong) {
          socket.resume()
          if (partialBytes > 0) armLineDeadline()
        }
      }
    }
  }

  /**
   * Splits lines (each ending at LF) off the chunk into the queue, until the queue holds
   * MAX_QUEUED_LINES: what is left then is held (and the socket paused) until the queue has
   * room again. Each byte is searched for LF at most twice (once to see that a line is held,
   * once to split it), so splitting is linear in what is read.
   */
  const split = (chunk: Buffer) => {
    let start = 0
    let end: number
    while (queue.length < MAX_QUEUED_LINES && (end = chunk.indexOf(0x0a, start)) >= 0) {
      endLine(chunk.subarray(start, end))
      start = end + 1
    }
    if (start === chunk.length) return
    if (queue.length >= MAX_QUEUED_LINES && chunk.indexOf(0x0a, start) >= 0) {
      held = chunk.subarray(start)
      socket.pause()
      return
    }
    // The rest begins or continues the line being read.
    const begun = partialBytes === 0
    chunks.push(chunk.subarray(start))
    partialBytes += chunk.length - start
    if (partialBytes > maxLineBytes) {
      // Its bytes are dropped now; the lines queued before it are still answered.
      tooLong = true
      chunks = []
      clearTimeout(lineTimer)
      socket.pause()
    } else if (begun && !busy && !peerEnded) {
      armLineDeadline()
    }
  }

  const onData = (chunk: Buffer) => {
    silent = false
    if (tooLong) return
    if (held !== undefined) {
      // Paused, the socket should send nothing more; should a chunk come anyway, it waits
      // behind the held one, within the bound of what a client may leave unanswered.
      held = Buffer.concat([held, chunk])
      if (held.length > MAX_UNREAD_BYTES) return cut()
      socket.pause()
    } else {
      split(chunk)
    }
    // A chunk that only continues a line needs no turn (nor a new deadline).
    if (closed || (queue.length === 0 && held === undefined && !tooLong)) return
    void handleQueue().catch(() => fail("internal", "the gate failed; the connection is closed"))
  }

  /** The peer sent FIN: every line it sent is still answered, then the connection ends. */
  const onEnd = () => {
    peerEnded = true
    clearTimeout(lineTimer)
    if (closed || busy) return
    void handleQueue().catch(() => fail("internal", "the gate failed; the connection is closed"))
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
  // Half-open (see GateTcpLive): set before any byte is read, for a TLS socket too.
  socket.allowHalfOpen = true
  socket.on("end", onEnd)
  if (socket.readableEnded) onEnd()

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
    // Half-open: a client that sends its lines and then FIN (`nc -N`) is still answered, every
    // line, before the server ends the connection (serve's onEnd); Node's default would end
    // the write side at the FIN and lose the replies still queued. A TLS socket is made
    // half-open by serve once its handshake is done: a TLS server made so would keep a
    // client that sends FIN mid-handshake until handshakeTimeout, and shutdown with it.
    const server: Server = tls === undefined ? createTcpServer({ allowHalfOpen: true }) : yield* Effect.gen(function*() {
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
      const connection = serve(socket, gate, run, tls !== undefined, options.lineMs ?? LINE_MS, options.maxLineBytes ?? MAX_LINE_BYTES)
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
    // Where it listens is part of the start's report, whatever the log level (logging.ts).
    yield* reportLine("Text gate listening", { address: `${options.host}:${typeof address === "object" && address !== null ? address.port : options.port}`, transport: tls === undefined ? "plaintext" : "TLS" })
  }))
