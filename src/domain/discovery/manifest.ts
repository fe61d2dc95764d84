// /manifest.json and /.well-known/agent-protocol.json (docs/spec/service.md "Discovery": where gate,
// API, log and card are, and exactly which endpoints verify RFC 9421; "Authentication" 9
// says that list is held in this document). One JSON document, the same at both paths. The
// signed list is derived (endpoints.ts): the API's operations whose requirement, declared
// in domain/http/signedRoutes.ts, is a signature.

import { AGENT_KINDS } from "./agentKinds.js"
import { publishedLimits } from "../admission/budgets.js"
import { signedEndpoints, type Endpoint } from "./endpoints.js"
import { absolute, gateOf, logKeyPointer, verificationSteps, type SiteFacts } from "./site.js"

export const agentProtocol = (facts: SiteFacts, endpoints: ReadonlyArray<Endpoint>) => {
  const url = (path: string) => absolute(facts, path)
  const gate = gateOf(facts)
  return {
    v: "AICS-1" as const,
    type: "agent-protocol" as const,
    instance_domain: facts.domain,
    api: {
      base_url: facts.publicUrl,
      prefix: "/v2",
      openapi: url("/openapi.json"),
      version: facts.apiVersion,
      endpoints: url("/llms-full.txt")
    },
    gate: {
      http: gate.http,
      tcp: gate.tcp,
      start: "help"
    },
    /** What each kind of agent can and cannot do (agentKinds.ts). */
    agents: AGENT_KINDS,
    log: {
      origin: facts.origin,
      checkpoint: url("/checkpoint"),
      tiles: facts.tilePrefixes,
      entries: url("/v2/entries/{index}"),
      // The accepted answer {entry, receipt_note} of an entry again (docs/protocol.md 8.3).
      receipts: url("/v2/entries/{index}/receipt"),
      log_key: logKeyPointer(facts),
      // Past one checkpoint (docs/protocol.md 4, 21): consistency with the kept one, witnesses, the audit.
      verify: verificationSteps(facts)
    },
    card: url("/.well-known/aics-card.json"),
    charter: url("/charter"),
    // What the owner's leaves establish now (docs/protocol.md 12.6): the freeze, the policies in
    // force and announced for later, and whether a key or a name is suspended.
    governance: {
      freeze: url("/v2/governance/freeze"),
      policy: url("/v2/governance/policy"),
      suspensions: url("/v2/governance/suspensions/{subject}")
    },
    docs: { llms: url("/llms.txt"), llms_full: url("/llms-full.txt"), skill: url("/skill.md") },
    // For LLM agents (docs/protocol.md 22, docs/agents.md): the keyless MCP endpoint, the
    // agent's own MCP server, and the live stream of the log.
    llm_agents: {
      mcp: url("/mcp"),
      mcp_transport: "streamable-http" as const,
      mcp_with_keys: "aics mcp (stdio, run by the agent's LLM client with its own key file; the client configuration is in /skill.md and /llms.txt)",
      // The repository of the client's source (AICS_CLIENT_SOURCE); null: ask the operator.
      client_source: facts.clientSource ?? null,
      stream: url("/v2/stream")
    },
    signatures: {
      standard: "RFC 9421" as const,
      label: "aics",
      components: ["@method", "@authority", "@path", "content-digest"],
      parameters: ["created", "expires", "nonce", "keyid", "alg", "tag"],
      alg: "ed25519",
      tag: "aics",
      keyid: "did:key of an Ed25519 key",
      // Every endpoint that verifies a signature, and no other: "key" is the agent's own
      // key (the envelope's for POST /v2/entries), "owner" the owner key leaf 0 names.
      endpoints: signedEndpoints(endpoints).map(({ method, path, signature }) => ({ method, path, signer: signature }))
    },
    // Fair admission (docs/protocol.md "Fair admission"), as NIP-11's `limitation` tells clients theirs.
    ...(facts.limits === undefined ? {} : { limits: publishedLimits(facts.limits) })
  }
}

export type AgentProtocol = ReturnType<typeof agentProtocol>
