// The stdio transport of `aics mcp`: one JSON-RPC message per line on stdin, answers on
// stdout, as the SDK's StdioServerTransport does, except that a line it would drop in
// silence (not JSON, a batch, params that are not an object, no JSON-RPC message at all)
// is answered with a JSON-RPC error (jsonRpcChecks.ts), so the client never waits for an
// answer that will not come.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { lineRefusal } from "./jsonRpcChecks.js"

/** A line longer than this is refused (the SDK's transport held 10 MiB too). */
const MAX_LINE_BYTES = 10 * 1024 * 1024

const OVERLONG = { jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: a line is at most ${MAX_LINE_BYTES} bytes` } } as unknown as JSONRPCMessage

export class CheckedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** The start of the line being read, as it came (each chunk searched once for its newline). */
  private chunks: Array<Buffer> = []
  private buffered = 0
  /** An over-long line was refused: the rest of it, up to its newline, is dropped unread. */
  private discarding = false
  private closed = false

  constructor(private readonly stdin: NodeJS.ReadableStream = process.stdin, private readonly stdout: NodeJS.WritableStream = process.stdout) {}

  private readonly onData = (data: Buffer | string) => {
    let chunk = typeof data === "string" ? Buffer.from(data) : data
    let newline: number
    while ((newline = chunk.indexOf(0x0a)) >= 0) {
      const end = chunk.subarray(0, newline)
      chunk = chunk.subarray(newline + 1)
      if (this.discarding) {
        this.discarding = false
        continue
      }
      const length = this.buffered + end.length
      const line = this.chunks.length === 0 ? end : Buffer.concat([...this.chunks, end], length)
      this.chunks = []
      this.buffered = 0
      if (length > MAX_LINE_BYTES) this.refuseOverlong()
      else this.take(line.toString("utf8").replace(/\r$/, ""))
    }
    if (this.discarding || chunk.length === 0) return
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.buffered > MAX_LINE_BYTES) {
      // Refused once, now; what is left of the line is not read as a line of its own.
      this.chunks = []
      this.buffered = 0
      this.discarding = true
      this.refuseOverlong()
    }
  }

  private refuseOverlong(): void {
    void this.send(OVERLONG).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
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
