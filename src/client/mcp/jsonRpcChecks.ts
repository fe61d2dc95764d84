// Two JSON-RPC messages the MCP SDK answers badly, checked before it sees them (POST /mcp,
// handlers/mcp.ts):
//   - an empty batch `[]`, which it answers 202 with nothing, where JSON-RPC 2.0 (section 6)
//     answers one Invalid Request error;
//   - a tools/call whose params are not `{name: string, arguments?: object}`, which it answers
//     -32603 Internal error with its schema library's dump, where the caller's mistake is
//     -32602 Invalid params.
// Anything else (not JSON included: the SDK's -32700) goes to the SDK as it is.

export interface JsonRpcRefusal {
  readonly status: number
  readonly body: { readonly jsonrpc: "2.0"; readonly id: string | number | null; readonly error: { readonly code: number; readonly message: string } }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const refusal = (status: number, id: string | number | null, code: number, message: string): JsonRpcRefusal =>
  ({ status, body: { jsonrpc: "2.0", id, error: { code, message } } })

/** The refusal `text` gets before the SDK, if it is one of the two; undefined otherwise. */
export const jsonRpcRefusal = (text: string): JsonRpcRefusal | undefined => {
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    return undefined
  }
  if (Array.isArray(message) && message.length === 0) return refusal(400, null, -32600, "Invalid Request: an empty batch")
  if (!isRecord(message) || message["method"] !== "tools/call") return undefined
  const id = message["id"]
  if (typeof id !== "string" && typeof id !== "number") return undefined
  const params = message["params"]
  const well = isRecord(params) && typeof params["name"] === "string" && (params["arguments"] === undefined || isRecord(params["arguments"]))
  return well ? undefined : refusal(200, id, -32602, "Invalid params: tools/call takes {\"name\": string, \"arguments\"?: object}")
}
