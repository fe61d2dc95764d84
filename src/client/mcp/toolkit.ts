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
import { fromUtf8 } from "../../domain/bytes.js"
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

/** What a running tool may do besides answering. */
export interface ToolCall {
  /**
   * Sends an MCP progress notification (`progress` rising with each), when the call carried a
   * progressToken; absent otherwise. A client may keep waiting on them (the SDK's
   * resetTimeoutOnProgress) rather than time a long call out.
   */
  readonly progress?: ((progress: number, message: string) => void) | undefined
}

export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: InputSchema
  /** True when the tool writes nothing (annotations.readOnlyHint). */
  readonly readOnly: boolean
  readonly run: (args: Record<string, any>, call?: ToolCall) => Promise<ToolAnswer>
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
 * Seconds to wait before trying again: the Retry-After the refusal carried when it is
 * given, else the "retry in N s" of this service's rate_limited detail (domain/admission),
 * the one place the header's number also reaches the words of a refusal.
 */
export const retryAfterOf = (given: number | undefined, detail: string): number | undefined => {
  if (given !== undefined && Number.isSafeInteger(given) && given >= 0) return given
  const said = /\bretry in (\d{1,9}) s\b/.exec(detail)
  return said === null ? undefined : Number(said[1])
}

/**
 * The one shape of every failure a tool answers (docs/agents.md): `error` the kind
 * (ClientErrorKind, or "internal"), the service's `code` and HTTP `status` when it said
 * them, the `detail`, the catalogue's `meaning` of a code of the catalogue, and
 * `retry_after` (seconds) when the refusal says when to try again. A log-signed refusal
 * (agentTools.ts writeAnswer) has this shape too, and more beside it.
 */
export const failureData = (failure: {
  readonly kind: string
  readonly code?: string | undefined
  readonly status?: number | undefined
  readonly detail: string
  readonly retryAfter?: number | undefined
}) => {
  const meaning = failure.code === undefined ? undefined : CATALOGUE[failure.code]?.condition
  return {
    error: failure.kind,
    ...(failure.code === undefined ? {} : { code: failure.code }),
    ...(failure.status === undefined ? {} : { status: failure.status }),
    detail: failure.detail,
    ...(meaning === undefined ? {} : { meaning }),
    ...(failure.retryAfter === undefined ? {} : { retry_after: failure.retryAfter })
  }
}

/**
 * Any failure as a tool error: what kind, and what happened; with the service's code (and
 * the catalogue's meaning, for a code of the catalogue) when there is one. A message that
 * names a CLI command has its MCP wording here (the tool to use instead).
 */
export const failureAnswer = (error: unknown): ToolAnswer => {
  if (error instanceof ClientError) {
    const message = error.mcpMessage ?? error.message
    const data = failureData({ kind: error.kind, code: error.code, status: error.status, detail: message, retryAfter: retryAfterOf(error.retryAfter, message) })
    const code = error.code === undefined ? "" : ` [${error.code}]`
    return {
      summary: `error (${error.kind.replace("_", " ")})${code}: ${message}${data.meaning === undefined ? "" : `. Meaning: ${data.meaning}`}`,
      data,
      isError: true
    }
  }
  return { summary: `error: ${error instanceof Error ? error.message : String(error)}`, data: failureData({ kind: "internal", detail: String(error) }), isError: true }
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

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = byName.get(request.params.name)
    if (entry === undefined) return resultOf({ summary: `error: no tool named ${request.params.name}`, isError: true })
    const args = request.params.arguments ?? {}
    const checked = entry.validate(args)
    if (!checked.valid) {
      const problems = argumentProblems(entry.tool, args, checked.errorMessage)
      return resultOf({ summary: `error (usage): invalid arguments for ${entry.tool.name}: ${problems}`, data: { error: "usage", detail: problems }, isError: true })
    }
    const token = request.params._meta?.progressToken
    const call: ToolCall = token === undefined ? {} : {
      progress: (progress, message) => {
        // A notification that cannot be sent (the client went away) is no reason to stop the tool.
        extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } }).catch(() => undefined)
      }
    }
    try {
      return resultOf(await entry.tool.run(args, call))
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
/**
 * Characters of texts (posts, messages: each item's JSON) one tool answer carries at most,
 * past its first item: an LLM client takes a tool's result whole into the model's context,
 * and clients cut or refuse results of a few tens of thousands of tokens. A page that
 * would pass it ends early, saying so (`truncated`) and how to read on.
 */
export const ANSWER_TEXT_BUDGET = 100_000

/** The size an item adds to an answer: its JSON. */
export const answerSize = (item: unknown): number => JSON.stringify(item)?.length ?? 0

/**
 * A page of posts (newest first) cut to ANSWER_TEXT_BUDGET: its first post always, then
 * while they fit. A cut page's next_before is its last post's index, as the service's own
 * page's is (only posts before it), so reading on with it leaves no post out.
 */
export const postsWithinBudget = <P extends { readonly index: number }>(
  posts: ReadonlyArray<P>,
  nextBefore: number | null
): { readonly posts: ReadonlyArray<P>; readonly next_before: number | null; readonly truncated: boolean } => {
  let used = 0
  let kept = 0
  while (kept < posts.length && (kept === 0 || used + answerSize(posts[kept]) <= ANSWER_TEXT_BUDGET)) used += answerSize(posts[kept++])
  return kept === posts.length
    ? { posts, next_before: nextBefore, truncated: false }
    : { posts: posts.slice(0, kept), next_before: posts[kept - 1]!.index, truncated: true }
}

/**
 * The polls' list cut to ANSWER_TEXT_BUDGET: its first poll always, then while they fit (16
 * options of 200 characters each make a poll some 3 KB, and the list holds up to
 * POLLS_LISTED). The service's list has no cursor: a cut list says so, and poll_show reads
 * the others by index.
 */
export const pollsWithinBudget = (json: any): any => {
  if (!Array.isArray(json?.polls)) return json
  let used = 0
  let kept = 0
  while (kept < json.polls.length && (kept === 0 || used + answerSize(json.polls[kept]) <= ANSWER_TEXT_BUDGET)) used += answerSize(json.polls[kept++])
  return kept === json.polls.length ? json : { ...json, polls: json.polls.slice(0, kept), truncated: true }
}

/** What a page cut to the budget says in its summary. */
export const cutShort = (truncated: boolean): string =>
  truncated ? ` (the page ended early: an answer carries about ${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters of text at most)` : ""

/**
 * The text of an entry's body, when it is text: a post's, a poll's question, the charter;
 * null for no body, a ciphertext (a payload naming ct_hash: a DM or capsule) or bytes that
 * are not UTF-8. The two get_entry tools say it beside the bytes.
 */
export const bodyText = (body: Uint8Array | null, payload: unknown): string | null => {
  if (body === null || (typeof payload === "object" && payload !== null && "ct_hash" in payload)) return null
  try {
    return fromUtf8(body)
  } catch {
    return null
  }
}

/** read_posts' input, the same on both servers: a channel, a page size and the cursor. */
export const CHANNEL_RULE = "1 to 63 of a-z 0-9 and -, lower case (e.g. general)"
/**
 * The page size read_posts asks for when not told: smaller than the service's own default
 * (AGORA_POSTS_LIMIT), whose 50 texts of up to 16 KiB would be cut to the budget anyway.
 */
export const MCP_POSTS_DEFAULT = 20
export const POSTS_PAGE_INPUT = {
  channel: str(`a channel, ${CHANNEL_RULE} (optional: all channels)`, { minLength: 1, maxLength: 63, pattern: "^[a-z0-9-]{1,63}$" }),
  limit: int(`how many posts at most, ${AGORA_POSTS_LIMIT.min} to ${AGORA_POSTS_LIMIT.max} (optional: ${MCP_POSTS_DEFAULT}); a page ends earlier when its texts ` +
    `pass about ${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters (truncated: true)`, { minimum: AGORA_POSTS_LIMIT.min, maximum: AGORA_POSTS_LIMIT.max }),
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
