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

export class CheckedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private buffer = Buffer.alloc(0)
  private closed = false

  constructor(private readonly stdin: NodeJS.ReadableStream = process.stdin, private readonly stdout: NodeJS.WritableStream = process.stdout) {}

  private readonly onData = (chunk: Buffer | string) => {
    this.buffer = Buffer.concat([this.buffer, typeof chunk === "string" ? Buffer.from(chunk) : chunk])
    let newline: number
    while ((newline = this.buffer.indexOf(0x0a)) >= 0) {
      const line = this.buffer.toString("utf8", 0, newline).replace(/\r$/, "")
      this.buffer = this.buffer.subarray(newline + 1)
      this.take(line)
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.buffer = Buffer.alloc(0)
      void this.send({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: a line is at most ${MAX_LINE_BYTES} bytes` } } as unknown as JSONRPCMessage)
    }
  }

  private readonly onError = (error: Error) => this.onerror?.(error)

  private take(line: string): void {
    if (line.trim() === "") return
    const refused = lineRefusal(line)
    if (refused !== undefined) {
      void this.send(refused.body as unknown as JSONRPCMessage)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(JSON.parse(line))
    if (parsed.success) {
      this.onmessage?.(parsed.data)
      return
    }
    // Not a message the SDK knows; answered when it asked for an answer (it has an id).
    const id = (JSON.parse(line) as { id?: unknown }).id
    if (typeof id === "string" || typeof id === "number") {
      void this.send({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 request, notification or response" } } as unknown as JSONRPCMessage)
    }
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.onData)
    this.stdin.on("error", this.onError)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) resolve()
      else this.stdout.once("drain", () => resolve())
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
