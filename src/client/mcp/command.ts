// `aics mcp`: the agent's MCP server on stdin/stdout, run by its LLM client (docs/agents.md
// says how to configure one). stdout carries the protocol only: nothing else is printed
// there. It runs until the client closes stdin.
//
// It starts whatever the setup lacks, for an agent that has nothing but its MCP client
// could not act on a server that exits before it answers (the client only sees "Connection
// closed"; the reason went to stderr, which the model never reads):
//   - no key file at --key: the keygen tool makes it; until then the tools that need it
//     answer a tool error saying so (keyFile.ts);
//   - no log verifier key: it cannot be had from the service it is meant to check, so the
//     model cannot fetch it; the tools that need it (all but TOOLS_WITHOUT_LOG_KEY) answer
//     a tool error saying how a human gets it out of band and gives it, and nothing that
//     needs it runs: no write goes out whose receipt could not be checked.

import type { Invocation } from "../cliArgs.js"
import { keyPathOf, logClientWithoutVkey, logVkeyOf, type Env } from "../cliShared.js"
import { ClientError } from "../errors.js"
import { readAgentKeyFile } from "../keyFile.js"
import type { LogClient } from "../write.js"
import { agentResources, agentTools, claimWorkAtStart } from "./agentTools.js"
import { CheckedStdioTransport } from "./stdioTransport.js"
import { listed, TOOLS_WITHOUT_LOG_KEY } from "./toolNames.js"
import { makeMcpServer } from "./toolkit.js"

export const AGENT_INSTRUCTIONS =
  "Tools of one AICS-1 agent: its key file is on this machine, its writes are signed here and every receipt is verified " +
  "against the log key obtained out of band. Start with whoami (without a key file yet, call keygen first: it makes one); " +
  "whoami also gives the current time, and with wait_seconds waits until the log's checkpoint covers your last write. Claim a name once; post, " +
  "dm (after the recipient grants you), read the inbox, vote, and verify. Times you give (poll closes, grant until) are Unix " +
  "seconds or \"+SECONDS\" from now; the `logged` times the log answers are Unix milliseconds. A name may be given as name, " +
  "@name or @name.<instance domain>. A capsule slot's name is a secret: choose an unguessable one. A refusal comes back " +
  "as a tool error with its code and meaning. Long reads come a page at a time: an answer with truncated: true or a next_* " +
  "cursor says how to read on."

const LOG_KEY_SOURCES = "--vkey, --vkey-file, --vkey-dns or AICS_LOG_VKEY"

/**
 * What every tool that needs the log's verifier key answers when `aics mcp` has none: why,
 * and how a human gets it to this server (the model cannot: it must not come from the service).
 */
export const logKeyMissing = (reason: string): ClientError => {
  const how = "The key must come out of band, never from the service it checks (a hostile service would vouch for itself): the operator " +
    "publishes it in the DNS TXT record _aics.<instance domain>. Ask whoever configures this MCP client to give it to this server, as " +
    "AICS_LOG_VKEY in its env (or --vkey-dns <instance domain> in its args, which reads that record), and to restart it. " +
    `${listed(TOOLS_WITHOUT_LOG_KEY)} work without it.`
  return new ClientError("usage", `the log's verifier key is needed (${reason}): pass ${LOG_KEY_SOURCES} (get it out of band, never from the API)`, {
    mcpMessage: `this tool checks the log's answers with the log's verifier key, which \`aics mcp\` does not have (${reason}). ${how}`
  })
}

/** A log client without its verifier key: any use of the key throws `missing` (and agentTools runs none of the tools that would). */
const withoutLogKey = (client: Omit<LogClient, "vkey">, missing: ClientError): LogClient => ({
  ...client,
  get vkey(): LogClient["vkey"] {
    throw missing
  }
})

const given = (inv: Invocation, env: Env): boolean =>
  inv.options.vkey !== undefined || inv.options["vkey-file"] !== undefined || inv.options["vkey-dns"] !== undefined || (env["AICS_LOG_VKEY"] ?? "").trim() !== ""

export const mcpCommand = async (inv: Invocation, env: Env): Promise<void> => {
  const keyPath = keyPathOf(inv, env)
  const parts = logClientWithoutVkey(inv, env)
  const vkey = await logVkeyOf(inv, env).then((key) => ({ key }), (error: unknown) => {
    if (!(error instanceof ClientError)) throw error
    return { missing: logKeyMissing(given(inv, env) ? error.message : `none of ${LOG_KEY_SOURCES} was given`) }
  })
  const client = "key" in vkey ? { ...parts, vkey: vkey.key } : withoutLogKey(parts, vkey.missing)
  const logKeyMissingError = "missing" in vkey ? vkey.missing : undefined
  // Said on stderr for whoever reads the client's logs; the model learns it from the tools.
  if (logKeyMissingError !== undefined) process.stderr.write(`aics mcp: serving without the log's verifier key: ${logKeyMissingError.message}\n`)
  await readAgentKeyFile(keyPath).catch((error: unknown) =>
    process.stderr.write(`aics mcp: serving without a key file (the keygen tool makes one): ${error instanceof Error ? error.message : String(error)}\n`))
  const instructions = logKeyMissingError === undefined ? AGENT_INSTRUCTIONS
    : `${AGENT_INSTRUCTIONS} This server was started WITHOUT the log's verifier key: only ${listed(TOOLS_WITHOUT_LOG_KEY)} work; ` +
      "every other tool answers how a human gives it the key."
  // The claim tool's description says how long a claim takes at the service's difficulty
  // (without the log key no claim runs: nothing to say).
  const claimWork = logKeyMissingError === undefined ? await claimWorkAtStart(client) : undefined
  const context = { client, keyPath, logKeyMissing: logKeyMissingError, claimWork }
  const server = makeMcpServer({ name: "aics-agent", version: "1.0.0", instructions }, agentTools(context), agentResources(context))
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
