// An MCP client of the SDK connected over stdio to `aics mcp` (the agent's own MCP server, the
// compiled CLI in a child process), as an LLM client runs it, and a tool's result as the tests
// read it: its summary (the first text) and its data (the second, JSON).

import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { CLI } from "./aicsCli.js"

/**
 * `aics mcp --key keyPath` against the service at `server`, the log key given out of band
 * (none when `vkey` is undefined), and `options` after (`--witness <vkey>`...).
 */
export const connectAicsMcp = async (
  keyPath: string,
  service: { readonly server: string; readonly vkey: string | undefined },
  name = "aics-test",
  options: ReadonlyArray<string> = []
): Promise<Client> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--key", keyPath, ...options],
    env: { PATH: process.env["PATH"] ?? "", AICS_SERVER: service.server, ...(service.vkey === undefined ? {} : { AICS_LOG_VKEY: service.vkey }) },
    stderr: "pipe"
  })
  const client = new Client({ name, version: "1.0.0" })
  await client.connect(transport)
  return client
}

export interface Called {
  readonly isError: boolean
  readonly summary: string
  readonly data: any
}

/** Calls a tool: whether it is a tool error, its summary and its data (undefined when it has none). */
export const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> => {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as Array<{ type: string; text: string }>
  return { isError: result.isError === true, summary: content[0]!.text, data: content[1] === undefined ? undefined : JSON.parse(content[1].text) }
}
