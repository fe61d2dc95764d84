// The service's own routes, called in process. POST /mcp's tools (handlers/mcp.ts) are the
// client library's (src/client/mcp/publicTools.ts), which read the service through a
// `fetch`; this one hands each request to the HttpApp the server serves, the same routes,
// schemas, error answers and projections, without a socket, a connection or a second parse
// of HTTP. The server sets the app once it has it (server.ts); the routes run in the
// context the server runs requests in.
//
// What the app alone does not do: admission and the owner's request statistics wrap it in
// the server (server.ts), so a call made in process is neither admitted nor counted again:
// the POST /mcp request that made it was.

import { Context, Layer } from "effect"

export type WebHandler = (request: Request) => Promise<Response>

export class SelfRoutes extends Context.Tag("aics/SelfRoutes")<SelfRoutes, {
  /** Called by the server with its app as a web handler, before it takes requests. */
  readonly serve: (handler: WebHandler) => void
  /** A fetch that answers from the service's own routes. */
  readonly fetch: typeof globalThis.fetch
}>() {
  static readonly layer = Layer.sync(SelfRoutes, () => {
    let handler: WebHandler | undefined
    return {
      serve: (next) => {
        handler = next
      },
      fetch: (input, init) =>
        handler === undefined
          ? Promise.reject(new Error("the service's routes are not served yet"))
          : handler(new Request(input, init))
    }
  })
}
