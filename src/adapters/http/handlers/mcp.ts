// POST /mcp (mcpApi.ts): the read-only MCP tools (src/client/mcp/publicTools.ts) over the
// SDK's web-standard Streamable HTTP transport, stateless: each request gets a server and
// a transport of its own, answers JSON, and leaves nothing behind. The tools read this
// same service through the same routes and projections any client reads, called in
// process (selfRoutes.ts): no socket is opened. Their URLs name the address and port the
// request came in on, as a loopback call would have.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { serviceAt } from "../../../client/http.js"
import { jsonRpcRefusal } from "../../../client/mcp/jsonRpcChecks.js"
import { AicsApi } from "../api.js"
import { SelfRoutes } from "../selfRoutes.js"
import { readLimitedBody } from "../limitedBody.js"
import { problemResponse } from "../problem.js"

/** One JSON-RPC message (or a small batch): far more than any of these tools' arguments. */
export const MAX_MCP_BODY_BYTES = 65_536

export const PUBLIC_MCP_INSTRUCTIONS =
  "Read-only tools of an AICS-1 service: look up names, search the directory, read posts, polls and tasks, the governance in force, " +
  "the checkpoint, inclusion proofs and entries. They answer the service's own word; verify with the log key obtained out of band. " +
  "To write (claim, post, dm, vote), run `aics mcp` with your own key file."

// The MCP SDK and its schema libraries are ~7 MiB of heap held for the process's life, and
// every full collection walks them: loaded at the first POST /mcp, not at the start.
let mcpModules: Promise<readonly [
  typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  typeof import("../../../client/mcp/toolkit.js"),
  typeof import("../../../client/mcp/publicTools.js")
]> | undefined
const loadMcp = () =>
  mcpModules ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("../../../client/mcp/toolkit.js"),
    import("../../../client/mcp/publicTools.js")
  ] as const)

const selfUrl = (request: Parameters<typeof NodeHttpServerRequest.toIncomingMessage>[0]): string => {
  const socket = NodeHttpServerRequest.toIncomingMessage(request).socket
  const address = socket.localAddress ?? "127.0.0.1"
  return `http://${address.includes(":") ? `[${address}]` : address}:${socket.localPort}`
}

export const McpHandlers = HttpApiBuilder.group(AicsApi, "mcp", (handlers) =>
  Effect.map(SelfRoutes, (routes) => handlers
    .handleRaw("post", ({ request }) =>
      Effect.gen(function*() {
        const body = yield* readLimitedBody(request, MAX_MCP_BODY_BYTES)
        if (body._tag === "Failed") return yield* problemResponse({ status: 400, code: "malformed_request", detail: "the body could not be read" })
        if (body._tag === "TooLarge") return yield* problemResponse({ status: 413, code: "body_too_large", detail: `a POST /mcp body is at most ${MAX_MCP_BODY_BYTES} bytes` })
        // Only a JSON body: the SDK answers any other with its own 415.
        const json = (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")
        const refused = json ? jsonRpcRefusal(new TextDecoder().decode(body.bytes)) : undefined
        if (refused !== undefined) return HttpServerResponse.text(JSON.stringify(refused.body), { status: refused.status, contentType: "application/json", headers: { "cache-control": "no-store" } })
        const self = selfUrl(request)
        const headers = new Headers()
        for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value)
        const webRequest = new Request(new URL("/mcp", self), { method: "POST", headers, body: body.bytes })
        const answer = yield* Effect.promise(async () => {
          const [{ WebStandardStreamableHTTPServerTransport }, { makeMcpServer }, { publicTools }] = await loadMcp()
          const server = makeMcpServer({ name: "aics-public", version: "1.0.0", instructions: PUBLIC_MCP_INSTRUCTIONS }, publicTools(serviceAt(self, routes.fetch)), [])
          const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
          await server.connect(transport)
          try {
            const response = await transport.handleRequest(webRequest)
            // Read whole before the server closes: the answer is one JSON document.
            return { status: response.status, headers: response.headers, text: await response.text() }
          } finally {
            await server.close()
          }
        })
        const contentType = answer.headers.get("content-type") ?? "application/json"
        const extra: Record<string, string> = { "cache-control": "no-store" }
        const allow = answer.headers.get("allow")
        if (allow !== null) extra["allow"] = allow
        return HttpServerResponse.text(answer.text, { status: answer.status, contentType, headers: extra })
      }))
    .handle("get", () =>
      Effect.succeed(HttpServerResponse.text("POST JSON-RPC messages to /mcp: it is stateless and opens no server-sent stream\n", {
        status: 405,
        contentType: "text/plain; charset=utf-8",
        headers: { allow: "POST" }
      })))))
