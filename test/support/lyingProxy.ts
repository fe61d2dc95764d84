// A dishonest service in front of a real one, for the client's checks: an HTTP server that
// forwards every request (its method and Accept) to the service and answers what the service
// answered, but for the answers `alter` changes (a view rewritten, a header forged). The
// client under test is pointed at it; what the service's word alone would let through must be
// caught by the leaves and proofs behind it.
//
// A write (any method but GET and HEAD) is forwarded whole, its headers (Host and the
// signature's among them) and body as sent, so the service takes it as the client signed it;
// the proxy can then lose its answer (CUT: the connection closed, no answer), or not forward
// it at all (`drop`), as a network that fails a write at either side of the service.

import { createServer, request as httpRequest, type IncomingMessage } from "node:http"

/** An answer as the proxy passes it on. */
export interface ProxiedAnswer {
  readonly status: number
  /** Without the hop-by-hop and length headers, which the proxy sets itself. */
  readonly headers: Headers
  readonly body: Uint8Array
}

/** What `alter` returns to close the connection instead of answering: the service's answer is lost. */
export const CUT = "cut"

/** What `alter` returns: the answer to send instead, CUT, or undefined to send the service's. */
export type Alter = (path: string, answer: ProxiedAnswer, method: string) => ProxiedAnswer | typeof CUT | undefined

/** Whether a request is not forwarded at all: its connection is closed with no answer. */
export type Drop = (path: string, method: string) => boolean

const HOP_HEADERS = ["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"]

const bodyOf = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The request as sent, headers and body, to the service: its answer as the proxy passes it on. */
const forwardWhole = async (upstream: string, request: IncomingMessage, path: string): Promise<ProxiedAnswer> => {
  const body = await bodyOf(request)
  const target = new URL(`${upstream}${path}`)
  return new Promise((resolve, reject) => {
    const out = httpRequest(target, { method: request.method, headers: { ...request.headers, connection: "close" } }, (answer) => {
      bodyOf(answer).then((bytes) => {
        const headers = new Headers()
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_HEADERS.includes(name)) headers.set(name, Array.isArray(value) ? value.join(", ") : value)
        }
        resolve({ status: answer.statusCode ?? 502, headers, body: new Uint8Array(bytes) })
      }, reject)
    })
    out.once("error", reject)
    out.end(body)
  })
}

/**
 * Starts the proxy to `upstream` (its base URL, read at each request); `alter` is read at each
 * request too, and `drop` when given.
 */
export const startLyingProxy = async (
  upstream: () => string,
  alter: () => Alter | undefined,
  drop?: () => Drop | undefined
): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const proxy = createServer((request, response) => {
    const path = request.url ?? "/"
    const method = request.method ?? "GET"
    if (drop?.()?.(path, method) === true) {
      request.socket.destroy()
      return
    }
    const forwarded = method === "GET" || method === "HEAD"
      ? fetch(`${upstream()}${path}`, { method, headers: { accept: request.headers.accept ?? "*/*" } }).then(async (answer): Promise<ProxiedAnswer> => {
        const headers = new Headers(answer.headers)
        for (const name of HOP_HEADERS) headers.delete(name)
        return { status: answer.status, headers, body: new Uint8Array(await answer.arrayBuffer()) }
      })
      : forwardWhole(upstream(), request, path)
    forwarded
      .then((honest) => {
        const sent = alter()?.(path, honest, method) ?? honest
        if (sent === CUT) {
          request.socket.destroy()
          return
        }
        response.writeHead(sent.status, Object.fromEntries(sent.headers)).end(sent.body)
      })
      .catch(() => response.writeHead(502).end())
  })
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  const address = proxy.address()
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve()))
  }
}

/** An Alter of the JSON body of 200 answers at paths `matches` accepts: `edit` returns the new document (or undefined: as is). */
export const alterJson = (matches: (path: string) => boolean, edit: (json: any, path: string) => unknown): Alter => (path, answer) => {
  if (answer.status !== 200 || !matches(path) || !(answer.headers.get("content-type") ?? "").includes("json")) return undefined
  const edited = edit(JSON.parse(new TextDecoder().decode(answer.body)), path)
  return edited === undefined ? undefined : { ...answer, body: new TextEncoder().encode(JSON.stringify(edited)) }
}
