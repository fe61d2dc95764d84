// JSON-RPC messages the MCP SDK answers badly or not at all, checked before it sees them, on
// both servers (POST /mcp, handlers/mcp.ts; `aics mcp` on stdio, command.ts):
//   - text that is not JSON: the SDK's HTTP transport answers -32700, its stdio transport
//     drops the line and the client waits for ever; both get -32700 Parse error here;
//   - an empty batch `[]`, which the HTTP transport answers 202 with nothing, where JSON-RPC
//     2.0 (section 6) answers one Invalid Request error;
//   - a request whose params are there but not an object (`"x"`, `[1]`, null): MCP's params
//     are always objects; the stdio transport dropped it, the HTTP one answered -32700;
//     here -32602 Invalid params;
//   - a tools/call whose params are not `{name: string, arguments?: object}`, or a
//     resources/read whose params are not `{uri: string}`, which the SDK answers -32603
//     Internal error with its schema library's dump, where the caller's mistake is -32602.
// On stdio also (`lineRefusal`): a batch (MCP over stdio is one message per line) and any
// other line that is not a JSON-RPC message, answered -32600 Invalid Request rather than
// dropped. A notification (no id) is never answered, as JSON-RPC says.
// Anything else goes to the SDK as it is.

export interface JsonRpcRefusal {
  readonly status: number
  readonly body: { readonly jsonrpc: "2.0"; readonly id: string | number | null; readonly error: { readonly code: number; readonly message: string } }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const refusal = (status: number, id: string | number | null, code: number, message: string): JsonRpcRefusal =>
  ({ status, body: { jsonrpc: "2.0", id, error: { code, message } } })

/** The shapes of params the SDK's handlers parse with a dump for an error. */
const PARAMS: Readonly<Record<string, { readonly ok: (params: Record<string, unknown>) => boolean; readonly shape: string }>> = {
  "tools/call": {
    ok: (params) => typeof params["name"] === "string" && (params["arguments"] === undefined || isRecord(params["arguments"])),
    shape: "tools/call takes {\"name\": string, \"arguments\"?: object}"
  },
  "resources/read": {
    ok: (params) => typeof params["uri"] === "string",
    shape: "resources/read takes {\"uri\": string}"
  }
}

/** The refusal of one parsed message, if it is one; undefined for a message the SDK may have. */
const messageRefusal = (message: unknown, strict: boolean): JsonRpcRefusal | undefined => {
  if (!isRecord(message)) return strict ? refusal(400, null, -32600, "Invalid Request: a JSON-RPC message is an object") : undefined
  const id = message["id"]
  const hasId = typeof id === "string" || typeof id === "number"
  const method = message["method"]
  if (typeof method !== "string") {
    // A response from the client (result or error with an id) is the SDK's to take.
    if ("result" in message || "error" in message) return undefined
    return strict ? refusal(400, hasId ? id : null, -32600, "Invalid Request: a JSON-RPC request has a string \"method\"") : undefined
  }
  if (strict && message["jsonrpc"] !== "2.0") return hasId ? refusal(400, id, -32600, "Invalid Request: \"jsonrpc\" must be \"2.0\"") : undefined
  if (!hasId) return undefined
  const params = message["params"]
  if (params !== undefined && !isRecord(params)) return refusal(200, id, -32602, `Invalid params: the params of ${method} are an object (got ${params === null ? "null" : Array.isArray(params) ? "an array" : typeof params})`)
  const expected = PARAMS[method]
  if (expected !== undefined && !(isRecord(params) && expected.ok(params))) return refusal(200, id, -32602, `Invalid params: ${expected.shape}`)
  return undefined
}

/** The refusal a POST /mcp body gets before the SDK, if it is one of those above; undefined otherwise. */
export const jsonRpcRefusal = (text: string): JsonRpcRefusal | undefined => {
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    return undefined // the HTTP transport's own -32700
  }
  if (Array.isArray(message) && message.length === 0) return refusal(400, null, -32600, "Invalid Request: an empty batch")
  return messageRefusal(message, false)
}

/** The refusal of one stdio line (one message), if it is not one the SDK takes; undefined otherwise. */
export const lineRefusal = (line: string): JsonRpcRefusal | undefined => {
  if (line.trim() === "") return undefined
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return refusal(400, null, -32700, "Parse error: the line is not JSON (one JSON-RPC message per line)")
  }
  if (Array.isArray(message)) {
    return refusal(400, null, -32600, message.length === 0 ? "Invalid Request: an empty batch" : "Invalid Request: no batches over stdio, one JSON-RPC message per line")
  }
  return messageRefusal(message, true)
}
