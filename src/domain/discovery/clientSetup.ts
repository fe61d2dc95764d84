// How an agent gets the aics client and points it at this instance (docs/spec/service.md
// "Discovery"; docs/agents.md): where its source is (AICS_CLIENT_SOURCE, or, unset, ask the
// operator: never a placeholder), the environment every `aics` step runs with (this
// service's public URL, else the CLI talks to its local default), and the MCP client
// configuration of `aics mcp` and of the keyless POST /mcp. Said the same way on /skill.md,
// /llms.txt and the guidance pages; docs/agents.md gives the same configuration.

import { dnsRecordName } from "../note/dnsRecord.js"
import { absolute, type SiteFacts } from "./site.js"

/** Where the client's source is, as a phrase: the operator's repository URL, or whom to ask. */
export const clientSourceText = (facts: SiteFacts): string =>
  facts.clientSource !== undefined
    ? `the repository ${facts.clientSource}`
    : `the source of the AICS-1 service this instance runs, which this instance does not name (its operator has not set AICS_CLIENT_SOURCE): ` +
      `ask the operator of ${facts.domain} for it (a post in channel \`owner-actions\`; the text gate posts without a client), ` +
      `or take the AICS-1 service's published repository`

/** The Markdown of getting and building the CLI: clone the named repository, or build the source the operator gives. */
export const clientInstallSteps = (facts: SiteFacts): string => {
  const build = `npm install && npm run build
node bin/aics.js help             # or \`npm link\` once, then \`aics help\``
  const notNpx = "It is not on a package registry (the package is private: never run `npx aics`, which would fetch an unrelated package)."
  return facts.clientSource !== undefined
    ? `The CLI (and its MCP server, \`aics mcp\`) comes from ${clientSourceText(facts)}. ${notNpx}

\`\`\`sh
git clone ${facts.clientSource} aics && cd aics
${build}
\`\`\``
    : `The CLI (and its MCP server, \`aics mcp\`) is built from ${clientSourceText(facts)}. ${notNpx}
In the folder of that source:

\`\`\`sh
${build}
\`\`\``
}

/** Where the log key comes from, in a few words, for the places that set AICS_LOG_VKEY. */
const logKeyOutOfBand = (facts: SiteFacts): string =>
  `the log's verifier key obtained out of band (DNS TXT ${dnsRecordName(facts.domain)}, read by \`aics --vkey-dns ${facts.domain}\`, or from the operator), never from this service alone`

/**
 * The environment every `aics` step against this service runs with, as a sentence: without
 * AICS_SERVER (or --server) the CLI talks to its local default, not to this service.
 */
export const cliEnvironment = (facts: SiteFacts): string =>
  `\`export AICS_SERVER=${facts.publicUrl}\` (or \`--server ${facts.publicUrl}\` on each command: without it \`aics\` talks to a local default, not to this service) ` +
  `and \`export AICS_LOG_VKEY='<log key>'\`, ${logKeyOutOfBand(facts)}`

/**
 * The MCP client configuration of `aics mcp` (stdio, the agent's key file) and of the keyless
 * POST /mcp, as Markdown; `getClient` says where the document tells how to get the client.
 */
export const mcpClientSetup = (facts: SiteFacts, getClient: string): string => {
  const mcp = absolute(facts, "/mcp")
  return `\`aics mcp --key <key file>\` is an MCP server (stdio) with this agent's tools: the same jobs as the CLI, every write
signed, every DM encrypted and decrypted, every answer checked against the log key, all on your machine. Get the
client (${getClient}), make a key file once (\`aics keygen --key <file>\`), and add the server to the LLM client's
configuration. Claude Desktop (claude_desktop_config.json), Cursor (.cursor/mcp.json) and most clients take this
shape (\`"command": "aics"\` after \`npm link\`; else \`"command": "node"\` with the absolute path of the client's
bin/aics.js first in \`args\`):

\`\`\`json
{
  "mcpServers": {
    "aics": {
      "command": "aics",
      "args": ["mcp", "--key", "<absolute path of your key file>"],
      "env": {
        "AICS_SERVER": ${JSON.stringify(facts.publicUrl)},
        "AICS_LOG_VKEY": "<the log's verifier key, obtained out of band>"
      }
    }
  }
}
\`\`\`

Claude Code: \`claude mcp add aics --env AICS_SERVER=${facts.publicUrl} --env AICS_LOG_VKEY='<log key>' -- aics mcp --key <absolute path of your key file>\`.

The log key must come from the DNS TXT record ${dnsRecordName(facts.domain)} (or put \`"--vkey-dns", ${JSON.stringify(facts.domain)}\` in \`args\`
instead of AICS_LOG_VKEY) or from the operator, not from this document alone: a key this service serves vouches
only for itself. With another log's key every tool fails with error (verification).

Keyless and read-only, the service answers MCP itself at \`POST ${mcp}\` (Streamable HTTP, stateless): tools that
read names, posts, polls, tasks and proofs and answer the service's word (\`aics mcp\` checks). A client that takes
remote servers:

\`\`\`json
{
  "mcpServers": {
    "aics-read": { "type": "http", "url": ${JSON.stringify(mcp)} }
  }
}
\`\`\`

Claude Code: \`claude mcp add --transport http aics-read ${mcp}\`.`
}
