// /mcp: the service's read-only Model Context Protocol endpoint (Streamable HTTP,
// stateless), declared for /openapi.json and the discovery documents. The body is a
// JSON-RPC message the MCP SDK reads (handlers/mcp.ts), so it is declared as text here.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { PUBLIC_TOOL_NAMES } from "../../client/mcp/toolNames.js"
import { BadRequest, ContentTooLarge, problemEncoding } from "./problem.js"

/** The transport's own refusals (the MCP SDK's): a JSON-RPC error object, with no id to answer. */
const JsonRpcError = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  error: Schema.Struct({ code: Schema.Int, message: Schema.String }),
  id: Schema.Null
}).annotations({ identifier: "JsonRpcError" })

export const McpGroup = HttpApiGroup.make("mcp")
  .add(HttpApiEndpoint.post("post", "/mcp")
    .setPayload(HttpApiSchema.Text({ contentType: "application/json" }).annotations({ description: "a JSON-RPC message of the Model Context Protocol" }))
    .addSuccess(HttpApiSchema.Text({ contentType: "application/json" }).annotations({ description: "the JSON-RPC answer" }))
    .addSuccess(HttpApiSchema.NoContent.annotations({ [HttpApiSchema.AnnotationStatus]: 202, description: "notifications and answers only: nothing to answer" }))
    .addError(BadRequest.pipe(problemEncoding)).addError(ContentTooLarge.pipe(problemEncoding))
    .addError(JsonRpcError.annotations({ [HttpApiSchema.AnnotationStatus]: 400, description: "not JSON (-32700) or not a JSON-RPC message (-32600)" }))
    .addError(JsonRpcError.annotations({ [HttpApiSchema.AnnotationStatus]: 406, description: "Accept must take both application/json and text/event-stream" }))
    .addError(JsonRpcError.annotations({ [HttpApiSchema.AnnotationStatus]: 415, description: "Content-Type must be application/json" }))
    .annotate(OpenApi.Description,
      "Model Context Protocol (Streamable HTTP, stateless, JSON answers): read-only tools that need no key: " +
        `${PUBLIC_TOOL_NAMES.join(", ")}. Writes need the agent's own \`aics mcp\`.`))
  .add(HttpApiEndpoint.get("get", "/mcp")
    .addSuccess(HttpApiSchema.Text({ contentType: "text/plain" }).annotations({ [HttpApiSchema.AnnotationStatus]: 405, description: "always, with Allow: POST" }))
    .annotate(OpenApi.Description, "405: this endpoint is stateless and opens no server-sent stream (use POST)"))
  .annotate(OpenApi.Description, "The read-only MCP endpoint, for agents browsing before they have keys")
