// What both MCP servers share (the agent's `aics mcp` over stdio, the service's read-only
// /mcp): tools declared as a name, a JSON Schema for the input and a function, resources as
// a URI and a reader, served by the SDK's low-level Server. The low-level Server rather
// than McpServer because the inputs are declared here in JSON Schema, the language of the
// protocol, rather than in zod: what a client lists is exactly what is written below, and
// the same schema validates each call (ajv, through the SDK's validator) before a tool runs.
//
// A tool never crashes the server: invalid arguments, a refusal of the log, a failed
// verification or a network error all come back as a tool error (isError) that says what
// happened, with a refusal's code and its meaning (domain/write/refusal.ts).

import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema, type CallToolResult, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { REFUSALS } from "../../domain/write/refusal.js"
import { ClientError } from "../errors.js"

export interface InputSchema {
  readonly type: "object"
  readonly properties: Readonly<Record<string, unknown>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties: false
}

/** What a tool answers: a line for the model to read first, and the data behind it. */
export interface ToolAnswer {
  readonly summary: string
  readonly data?: unknown
  readonly isError?: boolean
}

export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: InputSchema
  /** True when the tool writes nothing (annotations.readOnlyHint). */
  readonly readOnly: boolean
  readonly run: (args: Record<string, any>) => Promise<ToolAnswer>
}

export interface Resource {
  readonly uri: string
  readonly name: string
  readonly description: string
  readonly mimeType: string
  readonly read: () => Promise<string>
}

/** The meaning of a refusal code, from the catalogue of domain/write/refusal.ts. */
export const refusalMeaning = (code: string): string =>
  (REFUSALS as Record<string, { readonly condition: string } | undefined>)[code]?.condition ?? "not a code of this service's catalogue"

/** Any failure as a tool error: what kind, and what happened. */
export const failureAnswer = (error: unknown): ToolAnswer => {
  if (error instanceof ClientError) return { summary: `error (${error.kind.replace("_", " ")}): ${error.message}`, data: { error: error.kind, detail: error.message }, isError: true }
  return { summary: `error: ${error instanceof Error ? error.message : String(error)}`, data: { error: "internal", detail: String(error) }, isError: true }
}

const resultOf = (answer: ToolAnswer): CallToolResult => ({
  content: [
    { type: "text", text: answer.summary },
    ...(answer.data === undefined ? [] : [{ type: "text" as const, text: JSON.stringify(answer.data, null, 2) }])
  ],
  ...(answer.isError === true ? { isError: true } : {})
})

/** An MCP server offering `tools` and `resources`; connect it to a transport. */
export const makeMcpServer = (
  info: { readonly name: string; readonly version: string; readonly instructions: string },
  tools: ReadonlyArray<Tool>,
  resources: ReadonlyArray<Resource>
): Server => {
  const server = new Server({ name: info.name, version: info.version }, {
    capabilities: { tools: {}, ...(resources.length > 0 ? { resources: {} } : {}) },
    instructions: info.instructions
  })
  const validator = new AjvJsonSchemaValidator()
  const byName = new Map(tools.map((tool) => [tool.name, { tool, validate: validator.getValidator<Record<string, unknown>>(tool.inputSchema as any) }]))

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as any,
      annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: true }
    }))
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const entry = byName.get(request.params.name)
    if (entry === undefined) return resultOf({ summary: `error: no tool named ${request.params.name}`, isError: true })
    const args = request.params.arguments ?? {}
    const checked = entry.validate(args)
    if (!checked.valid) return resultOf({ summary: `error (usage): invalid arguments for ${entry.tool.name}: ${checked.errorMessage}`, isError: true })
    try {
      return resultOf(await entry.tool.run(args))
    } catch (error) {
      return resultOf(failureAnswer(error))
    }
  })

  if (resources.length > 0) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: resources.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType }))
    }))
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const resource = resources.find((r) => r.uri === request.params.uri)
      if (resource === undefined) throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}`)
      try {
        return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: await resource.read() }] }
      } catch (error) {
        throw new McpError(ErrorCode.InternalError, failureAnswer(error).summary)
      }
    })
  }
  return server
}

// JSON Schema pieces the tools share.
export const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: "string", description, ...extra })
export const int = (description: string, extra: Record<string, unknown> = {}) => ({ type: "integer", minimum: 0, description, ...extra })
export const bool = (description: string) => ({ type: "boolean", description })
/** read_posts' input, the same on both servers: a channel, a page size and the cursor. */
export const POSTS_PAGE_INPUT = {
  channel: str("a channel (optional: all channels)", { maxLength: 64 }),
  limit: int("how many posts (optional)", { minimum: 1, maximum: 100 }),
  before: int("only posts logged before this leaf index: the next_before of the previous page (optional: from the newest)")
}
export const input = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []): InputSchema =>
  ({ type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false })
