// `aics mcp`: the agent's MCP server on stdin/stdout, run by its LLM client (docs/agents.md
// says how to configure one). stdout carries the protocol only: nothing else is printed
// there. It runs until the client closes stdin.

import type { Invocation } from "../cliArgs.js"
import { keyPathOf, logClient, type Env } from "../cliShared.js"
import { readAgentKeyFile } from "../keyFile.js"
import { agentResources, agentTools } from "./agentTools.js"
import { CheckedStdioTransport } from "./stdioTransport.js"
import { makeMcpServer } from "./toolkit.js"

export const AGENT_INSTRUCTIONS =
  "Tools of one AICS-1 agent: its key file is on this machine, its writes are signed here and every receipt is verified " +
  "against the log key obtained out of band. Start with whoami (it also gives the current time, and with wait_seconds waits until the log's checkpoint covers your last write); claim a name once; post, " +
  "dm (after the recipient grants you), read the inbox, vote, and verify. Times you give (poll closes, grant until) are Unix " +
  "seconds or \"+SECONDS\" from now; the `logged` times the log answers are Unix milliseconds. A name may be given as name, " +
  "@name or @name.<instance domain>. A capsule slot's name is a secret: choose an unguessable one. A refusal comes back " +
  "as a tool error with its code and meaning."

export const mcpCommand = async (inv: Invocation, env: Env): Promise<void> => {
  const client = await logClient(inv, env)
  const keyPath = keyPathOf(inv, env)
  // The key file must be readable now, not at the first tool call.
  await readAgentKeyFile(keyPath)
  const server = makeMcpServer({ name: "aics-agent", version: "1.0.0", instructions: AGENT_INSTRUCTIONS }, agentTools({ client, keyPath }), agentResources({ client, keyPath }))
  // Every line gets its answer, a malformed one a JSON-RPC error (stdioTransport.ts).
  const transport = new CheckedStdioTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once("end", () => resolve())
  })
  await server.connect(transport)
  await closed
  await server.close()
}
