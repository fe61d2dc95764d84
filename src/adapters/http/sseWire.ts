// How the live stream's bytes reach a client's socket (streamHub.ts). With a thousand
// subscribers the fan-out runs on the event loop that also sequences writes, so each write
// must cost as little as it can: the events a dispatch sends are encoded once
// (LeafEvent.bytes), joined once per filter group, framed once as an HTTP/1.1 chunk
// (RFC 9112 section 7.1), and that one Buffer is written as it is to the socket of every
// subscriber sharing the filter: one syscall each, nothing copied or re-framed per socket.
//
// A client that accepts gzip (Accept-Encoding, RFC 9110 12.5.3) gets the stream as one gzip
// stream (sharedGzip.ts) whose pieces are compressed once per group as well: the same
// compressed chunk goes to every such subscriber, and only the trailer's CRC-32 is its own.
// The socket writes are what the fan-out costs the sending thread, and on loopback most of
// a plain stream's cost went with its bytes (bench/README.md, bench/stream.ts): a batch of
// events compresses to about a quarter.
//
// Node's ServerResponse.write would frame every write itself (size line, data, CRLF: four
// writes corked into one writev per socket). Writing the framed chunk to the socket is the
// same bytes on the wire, in order with what the response writes itself (the head, `retry`,
// the last event and the terminating chunk of res.end), because both go through the
// socket's one queue. It is done only where it is exactly equivalent: a response that uses
// chunked framing (HTTP/1.1, a body) and is the one the socket is serving. Any other (HTTP/1.0)
// goes through res.write.

import type { ServerResponse } from "node:http"
import { Duration, Effect } from "effect"
import { deflatePiece, emptyTally, GZIP_HEADER, gzipEnd, tallyPiece, type DeflatedPiece, type GzipTally } from "./sharedGzip.js"

const CRLF = Buffer.from("\r\n", "latin1")

/** The bytes as one HTTP/1.1 chunk: size in hex, CRLF, the bytes, CRLF. */
const chunkOf = (parts: ReadonlyArray<Uint8Array>): Buffer => {
  let length = 0
  for (const part of parts) length += part.length
  return Buffer.concat([Buffer.from(`${length.toString(16)}\r\n`, "latin1"), ...parts, CRLF])
}

/** Event bytes written to many sockets: joined, framed and compressed once, on first need. */
export class SharedBytes {
  private plainBytes: Buffer | undefined
  private framedBytes: Buffer | undefined
  private deflated: DeflatedPiece | undefined
  private framedDeflated: Buffer | undefined

  constructor(private readonly parts: ReadonlyArray<Uint8Array>) {}

  static of(text: string): SharedBytes {
    return new SharedBytes([Buffer.from(text, "utf8")])
  }

  /** The events as they are. */
  plain(): Buffer {
    if (this.plainBytes === undefined) {
      const [only] = this.parts
      this.plainBytes = this.parts.length === 1 ? Buffer.from(only!.buffer, only!.byteOffset, only!.length) : Buffer.concat(this.parts)
    }
    return this.plainBytes
  }

  /** The events as one HTTP/1.1 chunk. */
  framed(): Buffer {
    return (this.framedBytes ??= chunkOf(this.parts))
  }

  /** The events as DEFLATE blocks any gzip stream of sharedGzip.ts can carry. */
  piece(): DeflatedPiece {
    return (this.deflated ??= deflatePiece(this.plain()))
  }

  /** Those blocks as one HTTP/1.1 chunk. */
  framedPiece(): Buffer {
    return (this.framedDeflated ??= chunkOf([this.piece().blocks]))
  }

  get empty(): boolean {
    return this.parts.every((part) => part.length === 0)
  }
}

/** True when writing framed chunks to the socket is exactly what res.write would send. */
const framesItself = (res: ServerResponse): boolean =>
  res.chunkedEncoding && res.headersSent && res.socket !== null && res.writableLength === res.socket.writableLength

/** True when the Accept-Encoding header takes gzip: named (or `*`) with a weight above 0. */
export const acceptsGzip = (acceptEncoding: string | undefined): boolean => {
  if (acceptEncoding === undefined) return false
  let named: boolean | undefined
  let any = false
  for (const item of acceptEncoding.split(",")) {
    const [coding = "", ...params] = item.split(";").map((part) => part.trim().toLowerCase())
    const weight = params.find((param) => param.startsWith("q="))
    const takes = weight === undefined || Number(weight.slice(2)) > 0
    if (coding === "gzip" || coding === "x-gzip") named = takes
    else if (coding === "*") any = takes
  }
  return named ?? any
}

/** A stream head's coding headers (the answer varies with Accept-Encoding either way). */
export const codingHeaders = (gzip: boolean): Record<string, string> =>
  gzip ? { vary: "accept-encoding", "content-encoding": "gzip" } : { vary: "accept-encoding" }

/**
 * One response's side of the stream: its coding, and for gzip the running tally its
 * trailer needs. Every byte of the body after the head goes through it.
 */
export class StreamWire {
  private readonly tally: GzipTally | undefined

  constructor(readonly res: ServerResponse, gzip: boolean) {
    this.tally = gzip ? emptyTally() : undefined
  }

  /** The head's coding headers. */
  headers(): Record<string, string> {
    return codingHeaders(this.tally !== undefined)
  }

  /**
   * Starts the body right after the head with `first` (for gzip, after the gzip header),
   * written through the response: the head goes out with it, before anything written to
   * the socket itself.
   */
  begin(first: SharedBytes): void {
    const { res, tally } = this
    if (tally === undefined) return void res.write(first.plain())
    tallyPiece(tally, first.piece())
    res.write(Buffer.concat([GZIP_HEADER, first.piece().blocks]))
  }

  /** True once the body has ended or the connection closed: nothing more may be written. */
  get finished(): boolean {
    return this.res.writableEnded || this.res.destroyed
  }

  /** Writes the bytes to the client, framed (and compressed) once for every socket that takes them. */
  write(bytes: SharedBytes): void {
    if (bytes.empty || this.finished) return
    const { res, tally } = this
    if (tally === undefined) {
      if (framesItself(res)) res.socket!.write(bytes.framed())
      else res.write(bytes.plain())
      return
    }
    tallyPiece(tally, bytes.piece())
    if (framesItself(res)) res.socket!.write(bytes.framedPiece())
    else res.write(bytes.piece().blocks)
  }

  /**
   * The last bytes (an event), then the end of the body; once only (a shutdown and a drop may
   * both end a stream: a second end would be an error event on the response).
   */
  end(last: string): void {
    if (this.finished) return
    const { res, tally } = this
    if (tally === undefined) return void res.end(last)
    const piece = deflatePiece(Buffer.from(last, "utf8"))
    tallyPiece(tally, piece)
    res.end(Buffer.concat([piece.blocks, gzipEnd(tally)]))
  }
}

/** Bytes written to this response that the kernel has not taken yet. */
export const unsentBytes = (res: ServerResponse): number => res.writableLength

/**
 * Resolves once the response's socket is attached: at once, unless an earlier response on
 * the same connection (HTTP pipelining) is still being written. False if it closes first.
 */
export const attached = (res: ServerResponse) =>
  Effect.async<boolean>((resume) => {
    if (res.socket !== null) return resume(Effect.succeed(true))
    const onSocket = () => finish(true)
    const onClose = () => finish(false)
    const finish = (ok: boolean) => {
      res.off("socket", onSocket)
      res.off("close", onClose)
      resume(Effect.succeed(ok))
    }
    res.once("socket", onSocket)
    res.once("close", onClose)
    return Effect.sync(() => {
      res.off("socket", onSocket)
      res.off("close", onClose)
    })
  })

/**
 * True once the socket's buffer drained; false if it stayed full for `stall` or closed.
 * The socket's own drain: bytes written to it directly never set the response's.
 */
export const drained = (res: ServerResponse, stall: Duration.Duration) =>
  Effect.async<boolean>((resume) => {
    const socket = res.socket
    // It may have drained already, between the write that filled it and this wait.
    if (socket === null || socket.destroyed || !socket.writableNeedDrain) {
      resume(Effect.succeed(socket !== null && !socket.destroyed && !res.destroyed))
      return
    }
    const onDrain = () => finish(true)
    const onClose = () => finish(false)
    const timer = setTimeout(() => finish(false), Duration.toMillis(stall))
    const stop = () => {
      clearTimeout(timer)
      socket.off("drain", onDrain)
      socket.off("close", onClose)
    }
    const finish = (ok: boolean) => {
      stop()
      resume(Effect.succeed(ok))
    }
    socket.once("drain", onDrain)
    socket.once("close", onClose)
    return Effect.sync(stop)
  })
