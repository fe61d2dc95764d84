// The lists of the MCP tools that other texts read (src/client/mcp/toolNames.ts) against the
// tools themselves, in process: `aics mcp --help` once left out governance, receipt and
// audit_log, and /mcp's OpenAPI description (llms-full.txt) governance. The help, the
// OpenAPI description and docs/agents.md must name every tool.

import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import * as OpenApi from "@effect/platform/OpenApi"
import { AicsApi } from "../../src/adapters/http/api.js"
import { COMMAND_USAGE } from "../../src/client/cliUsage.js"
import { serviceAt } from "../../src/client/http.js"
import { agentResources, agentTools } from "../../src/client/mcp/agentTools.js"
import { publicTools } from "../../src/client/mcp/publicTools.js"
import { AGENT_OWN_TOOL_NAMES, AGENT_TOOL_NAMES, PUBLIC_TOOL_NAMES, SHARED_PUBLIC_TOOL_NAMES, TOOLS_WITHOUT_LOG_KEY } from "../../src/client/mcp/toolNames.js"
import { crypto } from "../../src/client/crypto.js"
import { makeVerifierKey } from "../../src/domain/note/verifierKey.js"

// Building the tools calls nothing: a service nobody listens at, and any key, will do.
const service = serviceAt("http://127.0.0.1:9")
const vkey = makeVerifierKey(crypto.sha256, "example.org/aics", crypto.ed25519.publicKey(new Uint8Array(32).fill(7)))
const context = { client: { service, vkey }, keyPath: "/nonexistent/key.json" }

/** Whether `text` names the tool as a word of its own (not within another tool's name). */
const names = (text: string, tool: string): boolean => new RegExp(`(^|[^a-z_])${tool}([^a-z_]|$)`).test(text)

describe("the MCP tools' names", () => {
  it("are those of the tools, in their order, on both servers", () => {
    expect(agentTools(context).map((t) => t.name)).toEqual(AGENT_TOOL_NAMES)
    expect(agentTools(context).map((t) => t.name)).toEqual([...AGENT_OWN_TOOL_NAMES, ...SHARED_PUBLIC_TOOL_NAMES])
    expect(publicTools(service).map((t) => t.name)).toEqual([...PUBLIC_TOOL_NAMES])
    for (const name of SHARED_PUBLIC_TOOL_NAMES) expect(PUBLIC_TOOL_NAMES, name).toContain(name)
    // What works without the log key checks nothing against it: keygen, and the service's word.
    expect([...TOOLS_WITHOUT_LOG_KEY].sort()).toEqual(["keygen", ...SHARED_PUBLIC_TOOL_NAMES].sort())
  })

  it("are all in `aics mcp --help`, /mcp's OpenAPI description and docs/agents.md", () => {
    for (const tool of AGENT_TOOL_NAMES) expect(names(COMMAND_USAGE.mcp, tool), `aics mcp --help names ${tool}`).toBe(true)
    const spec = OpenApi.fromApi(AicsApi) as { paths: Record<string, { post?: { description?: string } }> }
    const described = spec.paths["/mcp"]?.post?.description ?? ""
    for (const tool of PUBLIC_TOOL_NAMES) expect(names(described, tool), `POST /mcp names ${tool}`).toBe(true)
    const docs = readFileSync("docs/agents.md", "utf8")
    const table = docs.slice(docs.indexOf("## Tools"), docs.indexOf("Names: wherever"))
    for (const tool of AGENT_TOOL_NAMES) expect(table, `docs/agents.md's table names ${tool}`).toContain(`\`${tool}\``)
  })

  it("describe what they answer: no replies to a post, no X25519 key or envelopes in aics://key", () => {
    const readPost = publicTools(service).find((t) => t.name === "read_post")!
    expect(readPost.description).not.toMatch(/with its text and its replies/)
    expect(readPost.description).toMatch(/replies are not listed/)
    const key = agentResources(context).find((r) => r.uri === "aics://key")!
    expect(key.description).not.toMatch(/X25519 key and envelopes/)
    expect(key.description).toMatch(/GET \/v2\/keys\/\{kid\}/)
  })
})
