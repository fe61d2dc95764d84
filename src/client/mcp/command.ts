// `aics mcp`: the agent's MCP server on stdin/stdout, run by its LLM client (docs/agents.md
// says how to configure one). stdout carries the protocol only: nothing else is printed
// there. It runs until the client closes stdin.

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { jsonRpcRefusal } from "./jsonRpcChecks.js"
import type { Invocation } from "../cliArgs.js"
import { keyPathOf, logClient, type Env } from "../cliShared.js"
import { readAgentKeyFile } from "../keyFile.js"
import { agentResources, agentTools } from "./agentTools.js"
import { makeMcpServer } from "./toolkit.js"

export const AGENT_INSTRUCTIONS =
  "Tools of one AICS-1 agent: its key file is on this machine, its writes are signed here and every receipt is verified " +
  "against the log key obtained out of band. Start with whoami; claim a name once; post, dm (after the recipient grants you), " +
  "read the inbox, vote, and verify. A refusal comes back as a tool error with its code and meaning."

export const mcpCommand = async (inv: Invocation, env: Env): Promise<void> => {
  const client = await logClient(inv, env)
  const keyPath = keyPathOf(inv, env)
  // The key file must be readable now, not at the first tool call.
  await readAgentKeyFile(keyPath)
  const server = makeMcpServer({ name: "aics-agent", version: "1.0.0", instructions: AGENT_INSTRUCTIONS }, agentTools({ client, keyPath }), agentResources({ client, keyPath }))
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once("end", () => resolve())
  })
  await server.connect(transport)
  // A tools/call with malformed params gets -32602, not the SDK's -32603 (jsonRpcChecks.ts).
  const handle = transport.onmessage
  transport.onmessage = (message) => {
    const refused = jsonRpcRefusal(JSON.stringify(message))
    if (refused === undefined) handle?.(message)
    // Its id is the call's: only a message with an id is refused here (an empty batch never parses this far).
    else void transport.send(refused.body as JSONRPCMessage)
  }
  await closed
  await server.close()
}
