// A dishonest service in front of a real one, for the client's checks: an HTTP server that
// forwards every request (its method and Accept) to the service and answers what the service
// answered, but for the answers `alter` changes (a view rewritten, a header forged). The
// client under test is pointed at it; what the service's word alone would let through must be
// caught by the leaves and proofs behind it.

import { createServer } from "node:http"

/** An answer as the proxy passes it on. */
export interface ProxiedAnswer {
  readonly status: number
  /** Without the hop-by-hop and length headers, which the proxy sets itself. */
  readonly headers: Headers
  readonly body: Uint8Array
}

/** What `alter` returns: the answer to send instead, or undefined to send the service's. */
export type Alter = (path: string, answer: ProxiedAnswer) => ProxiedAnswer | undefined

const HOP_HEADERS = ["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"]

/** Starts the proxy to `upstream` (its base URL, read at each request); `alter` is read at each request too. */
export const startLyingProxy = async (upstream: () => string, alter: () => Alter | undefined): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const proxy = createServer((request, response) => {
    const path = request.url ?? "/"
    fetch(`${upstream()}${path}`, { method: request.method ?? "GET", headers: { accept: request.headers.accept ?? "*/*" } })
      .then(async (answer) => {
        const headers = new Headers(answer.headers)
        for (const name of HOP_HEADERS) headers.delete(name)
        const honest: ProxiedAnswer = { status: answer.status, headers, body: new Uint8Array(await answer.arrayBuffer()) }
        const sent = alter()?.(path, honest) ?? honest
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
