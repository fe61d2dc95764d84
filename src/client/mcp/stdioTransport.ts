// The stdio transport of `aics mcp`: one JSON-RPC message per line on stdin, answers on
// stdout, as the SDK's StdioServerTransport does, except that a line it would drop in
// silence (not JSON, a batch, params that are not an object, no JSON-RPC message at all)
// is answered with a JSON-RPC error (jsonRpcChecks.ts), so the client never waits for an
// answer that will not come. A line longer than MAX_LINE_BYTES is not read as JSON, but its
// error answers the request's id, which TopLevelIdScanner finds while the line streams by
// (the SDK's client writes the id last, after the params): answered with id null, the error
// matched no request, and the client waited its whole timeout (60 s) for nothing.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { lineRefusal } from "./jsonRpcChecks.js"

/** A line longer than this is refused (the SDK's transport held 10 MiB too). */
const MAX_LINE_BYTES = 10 * 1024 * 1024

const overlong = (id: string | number | null): JSONRPCMessage =>
  ({ jsonrpc: "2.0", id, error: { code: -32600, message: `Invalid Request: a line is at most ${MAX_LINE_BYTES} bytes` } }) as unknown as JSONRPCMessage

const QUOTE = 0x22
const BACKSLASH = 0x5c
const isSpace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d
/** Bytes kept of a top-level key or of the id's value: an id or "id" is far shorter. */
const TOKEN_BYTES = 256

/**
 * The top-level "id" of one JSON object fed a chunk at a time, none of it held but the id's
 * own bytes: for a line too long to parse. It follows strings (and their escapes) and
 * nesting byte by byte; the bytes it acts on (" \ { } [ ] , :) are ASCII, which no byte of a
 * multi-byte UTF-8 character is. Anything that is not an object's syntax stops it, with no
 * id found (the error then answers id null, as for a line with none).
 */
export class TopLevelIdScanner {
  id: string | number | undefined
  private depth = 0
  private stopped = false
  private inString = false
  private escaped = false
  private scalar = false
  /** At depth 1, what comes next. */
  private expect: "key" | "colon" | "value" | "comma" = "key"
  /** What the string or scalar being read is: a top-level key, the id's value, another top-level value, or inside a nested value. */
  private role: "key" | "id" | "value" | "nested" = "nested"
  private token: Array<number> = []
  private key = ""

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.stopped; i++) this.step(bytes[i]!)
  }

  private collect(b: number): void {
    if ((this.role === "key" || this.role === "id") && this.token.length <= TOKEN_BYTES) this.token.push(b)
  }

  private tokenText(): string | undefined {
    return this.token.length > TOKEN_BYTES ? undefined : Buffer.from(this.token).toString("utf8")
  }

  private endString(): void {
    if (this.role === "key") {
      this.key = this.tokenText() ?? ""
      this.expect = "colon"
    } else if (this.role === "id" || this.role === "value") {
      const text = this.tokenText()
      if (this.role === "id" && text !== undefined) {
        try {
          this.id = JSON.parse(`"${text}"`) as string
        } catch {
          // Not a JSON string after all: no id.
        }
      }
      this.expect = "comma"
    }
  }

  private endScalar(): void {
    this.scalar = false
    const text = this.tokenText()
    if (this.role === "id" && text !== undefined && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) this.id = Number(text)
    this.expect = "comma"
  }

  private startToken(role: TopLevelIdScanner["role"]): void {
    this.role = role
    this.token = []
  }

  private step(b: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false
      else if (b === BACKSLASH) this.escaped = true
      else if (b === QUOTE) {
        this.inString = false
        this.endString()
        return
      }
      this.collect(b)
      return
    }
    if (this.scalar) {
      if (!(isSpace(b) || b === 0x2c || b === 0x7d)) {
        this.collect(b)
        return
      }
      this.endScalar()
    }
    if (isSpace(b)) return
    if (this.depth >= 2) {
      if (b === QUOTE) {
        this.inString = true
        this.role = "nested"
      } else if (b === 0x7b || b === 0x5b) this.depth++
      else if (b === 0x7d || b === 0x5d) {
        this.depth--
        if (this.depth === 1) this.expect = "comma"
      }
      return
    }
    if (this.depth === 0) {
      if (b === 0x7b) this.depth = 1
      else this.stopped = true
      return
    }
    // depth 1: the members of the message.
    if (this.expect === "key" && b === QUOTE) {
      this.startToken("key")
      this.inString = true
    } else if (this.expect === "colon" && b === 0x3a) this.expect = "value"
    else if (this.expect === "value") {
      if (b === 0x7b || b === 0x5b) this.depth = 2
      else {
        this.startToken(this.key === "id" ? "id" : "value")
        if (b === QUOTE) this.inString = true
        else {
          this.scalar = true
          this.token.push(b)
        }
      }
    } else if (this.expect === "comma" && b === 0x2c) this.expect = "key"
    // The end of the message, or what no object has there: nothing more to find.
    else this.stopped = true
  }
}

export class CheckedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** The start of the line being read, as it came (each chunk searched once for its newline). */
  private chunks: Array<Buffer> = []
  private buffered = 0
  /**
   * The over-long line being dropped, up to its newline, but for its id: the scanner that
   * looks for it, until it is found and answered (then undefined, with `discarding` still set).
   */
  private discarding = false
  private overlongId: TopLevelIdScanner | undefined
  private closed = false

  constructor(private readonly stdin: NodeJS.ReadableStream = process.stdin, private readonly stdout: NodeJS.WritableStream = process.stdout) {}

  private readonly onData = (data: Buffer | string) => {
    let chunk = typeof data === "string" ? Buffer.from(data) : data
    let newline: number
    while ((newline = chunk.indexOf(0x0a)) >= 0) {
      const end = chunk.subarray(0, newline)
      chunk = chunk.subarray(newline + 1)
      if (this.discarding) {
        // The over-long line ends: refused now with the id found in it, if not already.
        const scanner = this.overlongId
        scanner?.feed(end)
        if (scanner !== undefined) this.refuseOverlong(scanner.id ?? null)
        this.discarding = false
        this.overlongId = undefined
        continue
      }
      const length = this.buffered + end.length
      const line = this.chunks.length === 0 ? end : Buffer.concat([...this.chunks, end], length)
      this.chunks = []
      this.buffered = 0
      if (length > MAX_LINE_BYTES) {
        const scanner = new TopLevelIdScanner()
        scanner.feed(line)
        this.refuseOverlong(scanner.id ?? null)
      } else this.take(line.toString("utf8").replace(/\r$/, ""))
    }
    if (chunk.length === 0) return
    if (this.discarding) {
      const scanner = this.overlongId
      if (scanner === undefined) return
      scanner.feed(chunk)
      if (scanner.id !== undefined) this.answerOverlongNow(scanner)
      return
    }
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.buffered > MAX_LINE_BYTES) {
      // What is left of the line is not read as a line of its own; it is refused once, as
      // soon as its id is known (or at its newline, with the id or without).
      const scanner = new TopLevelIdScanner()
      for (const part of this.chunks) scanner.feed(part)
      this.chunks = []
      this.buffered = 0
      this.discarding = true
      this.overlongId = scanner
      if (scanner.id !== undefined) this.answerOverlongNow(scanner)
    }
  }

  /** The over-long line's id is known before its end: refused now, the rest of it dropped unread. */
  private answerOverlongNow(scanner: TopLevelIdScanner): void {
    this.overlongId = undefined
    this.refuseOverlong(scanner.id ?? null)
  }

  private refuseOverlong(id: string | number | null): void {
    void this.send(overlong(id)).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
  }

  private readonly onError = (error: Error) => this.onerror?.(error)

  private take(line: string): void {
    if (line.trim() === "") return
    // lineRefusal (jsonRpcChecks.ts) parses the line to check it; a line it lets by is JSON.
    const refused = lineRefusal(line)
    if (refused !== undefined) {
      void this.send(refused.body as unknown as JSONRPCMessage).catch(() => undefined)
      return
    }
    const message: unknown = JSON.parse(line)
    const parsed = JSONRPCMessageSchema.safeParse(message)
    if (parsed.success) {
      this.onmessage?.(parsed.data)
      return
    }
    // Not a message the SDK knows; answered when it asked for an answer (it has an id).
    const id = (message as { id?: unknown }).id
    if (typeof id === "string" || typeof id === "number") {
      void this.send({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 request, notification or response" } } as unknown as JSONRPCMessage).catch(() => undefined)
    }
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.onData)
    this.stdin.on("error", this.onError)
  }

  /** Resolves once stdout took the message; rejects when stdout fails or closes before it drains. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) {
        resolve()
        return
      }
      const settle = (error?: Error) => {
        this.stdout.off("drain", onDrain)
        this.stdout.off("error", onError)
        this.stdout.off("close", onClose)
        if (error === undefined) resolve()
        else reject(error)
      }
      const onDrain = () => settle()
      const onError = (error: Error) => settle(error)
      const onClose = () => settle(new Error("stdout closed before the message was written"))
      this.stdout.once("drain", onDrain)
      this.stdout.once("error", onError)
      this.stdout.once("close", onClose)
    })
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off("data", this.onData)
    this.stdin.off("error", this.onError)
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause()
    this.onclose?.()
  }
}
