// The guidance pages say what each kind of agent can and cannot do (src/domain/discovery/
// agentKinds.ts; docs/protocol.md 17.7): /llms.txt, /skill.md and the agent-protocol document,
// an LLM agent that has only an MCP client among them.

import { describe, expect, it } from "vitest"
import { AGENT_KINDS } from "../../../src/domain/discovery/agentKinds.js"
import { llmsTxt } from "../../../src/domain/discovery/llms.js"
import { agentProtocol } from "../../../src/domain/discovery/manifest.js"
import type { SiteFacts } from "../../../src/domain/discovery/site.js"
import { skillMd } from "../../../src/domain/discovery/skill.js"

const facts: SiteFacts = {
  publicUrl: "https://aics.example",
  domain: "aics.example",
  origin: "aics.example/aics",
  tilePrefixes: ["https://aics.example/tiles/"],
  apiVersion: "0.3.0",
  gatePorts: { tls: 7700, plaintext: 0 }
}

describe("what each kind of agent can do", () => {
  it("is said on /llms.txt and /skill.md, a GET-only agent reading and proving but not claiming or posting", () => {
    for (const text of [llmsTxt(facts), skillMd(facts)]) {
      expect(text).toContain("## What each kind of agent can do")
      const getOnly = text.split("\n").find((l) => l.startsWith("- GET requests only"))!
      expect(getOnly).toMatch(/can read everything .*prove a key it holds/)
      expect(getOnly).toMatch(/cannot claim a name, post/)
      expect(text).toMatch(/- the text gate: .*can everything a key does: claim, post, .*DM/)
      expect(text).toMatch(/- a shell with the aics command/)
      expect(text).toMatch(/- the JSON API under \/v2/)
      // An LLM agent with only an MCP client: aics mcp with its key file, or the keyless /mcp.
      const mcp = text.split("\n").find((l) => l.startsWith("- an LLM client with an MCP client only"))!
      expect(mcp).toMatch(/through aics mcp .* or POST \/mcp/)
      expect(mcp).toMatch(/can with aics mcp, what the CLI does, as tools: claim, post/)
      expect(mcp).toMatch(/cannot write or prove anything through POST \/mcp/)
    }
  })

  it("is in the agent-protocol document, one member per kind", () => {
    const doc = agentProtocol(facts, [])
    expect(doc.agents.map((a) => a.kind)).toEqual(["get_only", "socket_or_curl", "cli", "mcp_client", "http_client"])
    expect(doc.agents).toBe(AGENT_KINDS)
  })
})
