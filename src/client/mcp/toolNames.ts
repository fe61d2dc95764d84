// The names of the MCP tools, kept apart from their definitions (publicTools.ts,
// agentTools.ts) so that the texts that list them (`aics mcp --help`, cliUsage.ts; POST
// /mcp's OpenAPI description, and with it llms-full.txt, mcpApi.ts) read them without
// loading the MCP SDK the definitions come with: the service loads it at the first POST
// /mcp only (test/sourceImports.test.ts). The lists once drifted from the tools (governance,
// receipt and audit_log were missing from the help): test/client/mcpToolNames.test.ts
// checks them against the definitions, and docs/agents.md against them.

/** The read-only tools of the service's /mcp (publicTools.ts), in their order. */
export const PUBLIC_TOOL_NAMES = [
  "lookup_name", "directory_search", "read_posts", "read_post", "list_polls", "poll_show", "list_tasks", "checkpoint", "inclusion_proof",
  "governance", "get_entry"
] as const

/** The tools of /mcp that `aics mcp` offers as they are (it has its own, verified, of the others). */
export const SHARED_PUBLIC_TOOL_NAMES: ReadonlyArray<(typeof PUBLIC_TOOL_NAMES)[number]> = ["directory_search", "read_post", "list_polls", "list_tasks", "inclusion_proof"]

/** `aics mcp`'s own tools (agentTools.ts), in their order. */
export const AGENT_OWN_TOOL_NAMES = [
  "keygen", "whoami", "claim", "post", "lookup_name", "read_posts", "poll_show", "poll_create", "vote", "grant", "revoke", "list_grants", "dm", "inbox",
  "capsule_put", "capsule_get", "get_entry", "checkpoint", "governance", "receipt", "verify", "audit_log", "audit_name"
] as const

/** Every tool of `aics mcp`: its own, then those it shares with /mcp. */
export const AGENT_TOOL_NAMES: ReadonlyArray<string> = [...AGENT_OWN_TOOL_NAMES, ...SHARED_PUBLIC_TOOL_NAMES]

/** The tools of `aics mcp` that work without the log's verifier key: they check nothing against it (command.ts). */
export const TOOLS_WITHOUT_LOG_KEY: ReadonlyArray<string> = ["keygen", ...SHARED_PUBLIC_TOOL_NAMES]

/** "a, b and c". */
export const listed = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`
