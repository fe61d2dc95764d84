// Pre-signed write requests and a sender that keeps each key's requests in order (a key's
// chain must arrive in seq order) while many keys write at once. Shared by the end-to-end
// write tests, the crash test and bench/write.

import { connect, type Socket } from "node:net"
import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { signRequest } from "../../src/domain/http/messageSignature.js"
import { accepted, envelopeFor, makeAgent, postPayload, writeRequestBody, type TestAgent } from "./agents.js"

export interface SignedWrite {
  readonly kid: string
  readonly seq: number
  readonly body: Uint8Array
  readonly headers: Readonly<Record<string, string>>
}

/**
 * One post by `agent` at its chain position, signed now (or at `created`), valid for 300 s;
 * the agent's chain advances as if it were accepted.
 */
export const signedPost = (agent: TestAgent, text: string, options: { readonly origin: string; readonly authority: string; readonly created?: number }): SignedWrite => {
  const post = postPayload(text)
  const envelope = envelopeFor(agent, options.origin, "post", post.payload, { created: options.created ?? Math.floor(Date.now() / 1000) })
  accepted(agent, envelope)
  const body = writeRequestBody(envelope, post.body)
  const headers = Either.getOrThrow(signRequest({
    seed: agent.seed,
    keyid: agent.kid,
    nonce: envelope.nonce,
    created: envelope.created,
    expires: envelope.expires,
    method: "POST",
    authority: options.authority,
    path: "/v2/entries",
    body
  }, nodeCrypto))
  return {
    kid: agent.kid,
    seq: envelope.seq,
    body,
    headers: {
      "content-type": "application/json",
      "content-digest": headers["Content-Digest"],
      "signature-input": headers["Signature-Input"],
      signature: headers.Signature
    }
  }
}

/** `perKey` posts for each of `keys` fresh agents, signed now, valid for 300 s. */
export const presignPosts = (options: {
  readonly keys: number
  readonly perKey: number
  readonly origin: string
  readonly authority: string
  readonly label?: string
}): Array<Array<SignedWrite>> => {
  const created = Math.floor(Date.now() / 1000)
  return Array.from({ length: options.keys }, (_, k) => {
    const agent: TestAgent = makeAgent(`${options.label ?? "load"}-${k}-${created}-${Math.random()}`)
    // The label is in the text, so runs with other labels (a bench's warm-up) post other
    // bodies: bodies are stored once per digest, and a repeated one writes nothing new.
    return Array.from({ length: options.perKey }, (_, i) =>
      signedPost(agent, `post ${i} from ${options.label ?? "load"} key ${k}`, { origin: options.origin, authority: options.authority, created }))
  })
}

export interface WriteResult {
  readonly write: SignedWrite
  readonly status: number
  /** The answer's JSON, parsed on first use (the sender itself needs only the status). */
  readonly json: { entry: Record<string, any>; receipt_note: string } | undefined
  /** Milliseconds from send to answer. */
  readonly latency: number
  /** performance.now() at the answer. */
  readonly answeredAt: number
}

/**
 * Sends each key's writes in order, all keys at once, one keep-alive connection per key.
 * Stops a key at its first answer that is not 202 (the rest of its chain cannot be
 * accepted) or at a network error (cutOff counts the writes that never got an answer).
 *
 * The requests are written as pre-built bytes on raw sockets and the answers read with a
 * minimal HTTP/1.1 parser, as wrk does: bench/write runs this on the same two cores as the
 * server, and fetch (undici) cost about as much CPU per request as the server's own
 * handling, so it measured the client as much as the service.
 */
export const sendInOrder = async (
  baseUrl: string,
  perKey: ReadonlyArray<ReadonlyArray<SignedWrite>>,
  onResult?: (result: WriteResult) => void
): Promise<Array<WriteResult>> => {
  const { hostname, port, host } = new URL(baseUrl)
  const prebuilt = perKey.map((writes) => writes.map((write) => requestBytes(host, write)))
  const results: Array<WriteResult> = []
  await Promise.all(perKey.map(async (writes, k) => {
    const connection = new Connection(hostname, Number(port))
    try {
      for (let i = 0; i < writes.length; i++) {
        const started = performance.now()
        let answer: RawAnswer
        try {
          answer = await connection.exchange(prebuilt[k]![i]!)
        } catch {
          return
        }
        const answeredAt = performance.now()
        const result = answered(writes[i]!, answer, started, answeredAt)
        results.push(result)
        onResult?.(result)
        if (answer.status !== 202) return
      }
    } finally {
      connection.close()
    }
  }))
  return results
}

/**
 * How many of `perKey`'s writes sendInOrder got no answer for although every earlier answer
 * of their key was 202: their connection was closed under them (a key stopped by a refusal
 * sends no more, and those are not counted). A bench whose load was cut measured less load
 * than it says.
 */
export const cutOff = (perKey: ReadonlyArray<ReadonlyArray<SignedWrite>>, results: ReadonlyArray<WriteResult>): number => {
  const statusOf = new Map(results.map((r) => [r.write, r.status]))
  let cut = 0
  for (const writes of perKey) {
    const first = writes.findIndex((write) => !statusOf.has(write))
    if (first >= 0 && (first === 0 || statusOf.get(writes[first - 1]!) === 202)) cut += writes.length - first
  }
  return cut
}

const answered = (write: SignedWrite, answer: RawAnswer, started: number, answeredAt: number): WriteResult => {
  let json: WriteResult["json"] | undefined
  return {
    write,
    status: answer.status,
    get json() {
      json ??= JSON.parse(answer.body.toString("utf8")) as WriteResult["json"]
      return json
    },
    latency: answeredAt - started,
    answeredAt
  }
}

/**
 * GET requests on one keep-alive raw connection, for pollers that run beside the load (the
 * bench's checkpoint watcher) and the benches' read latencies, so they cost the load
 * generator's cores little. `headers` (a signed read's) are sent as given.
 */
export const rawGetter = (baseUrl: string) => {
  const { hostname, port, host } = new URL(baseUrl)
  const connection = new Connection(hostname, Number(port))
  return {
    get: async (path: string, headers: Readonly<Record<string, string>> = {}): Promise<{ readonly status: number; readonly text: string }> => {
      let head = `GET ${path} HTTP/1.1\r\nhost: ${host}\r\n`
      for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
      const answer = await connection.exchange(Buffer.from(`${head}\r\n`, "latin1"))
      return { status: answer.status, text: answer.body.toString("utf8") }
    },
    close: () => connection.close()
  }
}

const requestBytes = (authority: string, write: SignedWrite): Buffer => {
  let head = `POST /v2/entries HTTP/1.1\r\nhost: ${authority}\r\ncontent-length: ${write.body.length}\r\n`
  for (const [name, value] of Object.entries(write.headers)) head += `${name}: ${value}\r\n`
  return Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), write.body])
}

interface RawAnswer {
  readonly status: number
  readonly body: Buffer
}

const HEAD_END = Buffer.from("\r\n\r\n")

/** One keep-alive HTTP/1.1 connection with at most one request outstanding. */
class Connection {
  private socket: Socket | undefined
  private received: Buffer = Buffer.alloc(0)
  private waiting: { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void } | undefined

  constructor(private readonly host: string, private readonly port: number) {}

  exchange(request: Buffer): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject }
      this.open().write(request)
    })
  }

  close(): void {
    this.socket?.destroy()
  }

  private open(): Socket {
    if (this.socket !== undefined && !this.socket.destroyed) return this.socket
    const socket = connect({ host: this.host, port: this.port, noDelay: true })
    socket.on("data", (chunk: Buffer) => {
      this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk])
      this.answer()
    })
    const lost = (error?: Error) => {
      const waiting = this.waiting
      this.waiting = undefined
      this.received = Buffer.alloc(0)
      waiting?.reject(error ?? new Error("the connection closed"))
    }
    socket.on("error", lost)
    socket.on("close", () => lost())
    this.socket = socket
    return socket
  }

  /** Resolves the outstanding request once its whole answer (Content-Length framed) is in. */
  private answer(): void {
    const end = this.received.indexOf(HEAD_END)
    if (end < 0 || this.waiting === undefined) return
    const head = this.received.toString("latin1", 0, end)
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)
    if (length === null) {
      this.socket?.destroy(new Error(`an answer without Content-Length: ${head}`))
      return
    }
    const bodyStart = end + HEAD_END.length
    const bodyEnd = bodyStart + Number(length[1])
    if (this.received.length < bodyEnd) return
    const body = this.received.subarray(bodyStart, bodyEnd)
    this.received = this.received.subarray(bodyEnd)
    const waiting = this.waiting
    this.waiting = undefined
    waiting.resolve({ status: Number(head.slice(9, 12)), body })
  }
}

export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export { encodeU64 }
