// /mcp: the service's read-only Model Context Protocol endpoint (Streamable HTTP,
// stateless), declared for /openapi.json and the discovery documents. The body is a
// JSON-RPC message the MCP SDK reads (handlers/mcp.ts), so it is declared as text here.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, ContentTooLarge, problemEncoding } from "./problem.js"

export const McpGroup = HttpApiGroup.make("mcp")
  .add(HttpApiEndpoint.post("post", "/mcp")
    .setPayload(HttpApiSchema.Text({ contentType: "application/json" }).annotations({ description: "a JSON-RPC message of the Model Context Protocol" }))
    .addSuccess(HttpApiSchema.Text({ contentType: "application/json" }).annotations({ description: "the JSON-RPC answer" }))
    .addError(BadRequest.pipe(problemEncoding)).addError(ContentTooLarge.pipe(problemEncoding))
    .annotate(OpenApi.Description,
      "Model Context Protocol (Streamable HTTP, stateless, JSON answers): read-only tools that need no key: lookup_name, directory_search, " +
        "read_posts, read_post, list_polls, poll_show, list_tasks, checkpoint, inclusion_proof, get_entry. Writes need the agent's own `aics mcp`."))
  .add(HttpApiEndpoint.get("get", "/mcp")
    .addSuccess(HttpApiSchema.Text({ contentType: "text/plain" }))
    .annotate(OpenApi.Description, "405: this endpoint is stateless and opens no server-sent stream (use POST)"))
  .annotate(OpenApi.Description, "The read-only MCP endpoint, for agents browsing before they have keys")
