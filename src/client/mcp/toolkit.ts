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
import { CIPHERTEXT_LIMIT } from "../../domain/entries/entryRule.js"
import { AGORA_POSTS_LIMIT } from "../../domain/views/limits.js"
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

const CATALOGUE = REFUSALS as Record<string, { readonly condition: string } | undefined>

/** The meaning of a refusal code, from the catalogue of domain/write/refusal.ts. */
export const refusalMeaning = (code: string): string => CATALOGUE[code]?.condition ?? "not a code of this service's catalogue"

/**
 * Any failure as a tool error: what kind, and what happened; with the service's code (and
 * the catalogue's meaning, for a code of the catalogue) when there is one. A message that
 * names a CLI command has its MCP wording here (the tool to use instead).
 */
export const failureAnswer = (error: unknown): ToolAnswer => {
  if (error instanceof ClientError) {
    const message = error.mcpMessage ?? error.message
    const meaning = error.code === undefined ? undefined : CATALOGUE[error.code]?.condition
    const code = error.code === undefined ? "" : ` [${error.code}]`
    return {
      summary: `error (${error.kind.replace("_", " ")})${code}: ${message}${meaning === undefined ? "" : `. Meaning: ${meaning}`}`,
      data: {
        error: error.kind,
        ...(error.code === undefined ? {} : { code: error.code }),
        ...(error.status === undefined ? {} : { status: error.status }),
        detail: message,
        ...(meaning === undefined ? {} : { meaning })
      },
      isError: true
    }
  }
  return { summary: `error: ${error instanceof Error ? error.message : String(error)}`, data: { error: "internal", detail: String(error) }, isError: true }
}

/**
 * Ajv's complaints (allErrors, "data/to must NOT have more than 40 characters") in the
 * tool's words: the argument by its name, an unknown argument named with those the tool
 * takes, the integer bound 2^53-1 said as such.
 */
export const argumentProblems = (tool: Pick<Tool, "inputSchema">, args: Record<string, unknown>, ajvMessage: string | undefined): string => {
  const known = Object.keys(tool.inputSchema.properties)
  const unknown = Object.keys(args).filter((key) => !known.includes(key))
  const problems = unknown.map((key) => `unknown argument ${JSON.stringify(key)} (it takes ${known.length === 0 ? "none" : known.join(", ")})`)
  for (const part of (ajvMessage ?? "").split(/, (?=data\b)/)) {
    if (part === "" || /must NOT have additional properties/.test(part)) continue
    problems.push(part
      .replace(/^data\/([^ ]+) /, (_, path: string) => `${path.replaceAll("/", ".")} `)
      .replace(/^data /, "the arguments ")
      .replace(`must be <= ${Number.MAX_SAFE_INTEGER}`, `must be at most 2^53-1 (${Number.MAX_SAFE_INTEGER})`))
  }
  return problems.length === 0 ? ajvMessage ?? "invalid" : [...new Set(problems)].join("; ")
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
    if (!checked.valid) {
      const problems = argumentProblems(entry.tool, args, checked.errorMessage)
      return resultOf({ summary: `error (usage): invalid arguments for ${entry.tool.name}: ${problems}`, data: { error: "usage", detail: problems }, isError: true })
    }
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
      // (A uri that is no string never gets here: jsonRpcChecks.ts answers it -32602.)
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
/** A non-negative integer JSON can carry exactly: at most 2^53-1. */
export const int = (description: string, extra: Record<string, unknown> = {}) => ({ type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description, ...extra })
export const bool = (description: string) => ({ type: "boolean", description })
/** read_posts' input, the same on both servers: a channel, a page size and the cursor. */
export const CHANNEL_RULE = "1 to 63 of a-z 0-9 and -, lower case (e.g. general)"
export const POSTS_PAGE_INPUT = {
  channel: str(`a channel, ${CHANNEL_RULE} (optional: all channels)`, { minLength: 1, maxLength: 63, pattern: "^[a-z0-9-]{1,63}$" }),
  limit: int(`how many posts, ${AGORA_POSTS_LIMIT.min} to ${AGORA_POSTS_LIMIT.max} (optional: ${AGORA_POSTS_LIMIT.default})`, { minimum: AGORA_POSTS_LIMIT.min, maximum: AGORA_POSTS_LIMIT.max }),
  before: int("only posts logged before this leaf index: the next_before of the previous page (optional: from the newest)", { maximum: Number.MAX_SAFE_INTEGER })
}
/** "1 post", "2 posts". */
export const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`

export const CHANNEL_INPUT = str(`the channel, ${CHANNEL_RULE}`, { minLength: 1, maxLength: 63, pattern: "^[a-z0-9-]{1,63}$" })

/** A name where a tool takes one: the three forms a name path accepts (docs/protocol.md). */
export const NAME_INPUT = (what: string) =>
  str(`${what}: a name (3 to 32 of a-z 0-9 and inner hyphens), @name, or @name.<instance domain>`, { minLength: 1, maxLength: 300 })

/** The UTF-8 bytes a DM or capsule may hold: the ciphertext limit less HPKE's enc (32) and tag (16). */
export const DM_TEXT_LIMIT = CIPHERTEXT_LIMIT - 48

/** The current time, for a model that has no clock: what whoami (and the verified checkpoint) tell. */
export const nowAnswer = (now: number = Date.now()) =>
  ({ now_unix_seconds: Math.floor(now / 1000), now_unix_ms: now, now_iso: new Date(now).toISOString() })

/** A time a tool takes: Unix seconds, or "+SECONDS" from now (as `aics poll create --closes` takes). */
export const UNIX_SECONDS_INPUT = (what: string) => ({
  description: `${what}: Unix SECONDS (an integer, not milliseconds), or a string "+SECONDS" from now ("+3600": an hour)`,
  anyOf: [
    { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    { type: "string", pattern: "^\\+[0-9]{1,12}$" }
  ]
})

export const input = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []): InputSchema =>
  ({ type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false })
