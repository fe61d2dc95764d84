// The service's read-only MCP endpoint, /mcp (Streamable HTTP, stateless), driven by the
// SDK's own client against the real service: the keyless tools list with valid JSON
// Schemas and answer look-ups of what an agent wrote; a missing name is a tool error; GET
// answers 405; the endpoint is in /openapi.json and the discovery documents. The tools call
// the service's routes in process: the routes they read answer no HTTP request (their
// group's counter in /metrics stays put) while /mcp's does.

import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Ajv } from "ajv"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { claimName, postText } from "../../../src/client/agent.js"
import { generateAgentKey } from "../../../src/client/agentKey.js"
import { serviceAt } from "../../../src/client/http.js"
import { createAgentKeyFile } from "../../../src/client/keyFile.js"
import { loadVkey } from "../../../src/client/vkey.js"
import { pollUntil } from "../../support/poll.js"
import { parsePrometheus, total } from "../../support/prometheus.js"
import { freePort, removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined
let mcp: Client | undefined
let metricsUrl = ""

afterAll(async () => {
  await mcp?.close()
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

const call = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await mcp!.callTool({ name, arguments: args })
  const content = result.content as Array<{ type: string; text: string }>
  return { isError: result.isError === true, summary: content[0]!.text, data: content[1] === undefined ? undefined : JSON.parse(content[1].text) as any }
}

describe("/mcp", () => {
  let postIndex = -1
  let kid = ""
  const paged: Array<number> = []
  const long: Array<number> = []

  beforeAll(async () => {
    const dataDir = await tempDataDir()
    const metricsPort = await freePort()
    server = await startServer({ dataDir, env: { AICS_METRICS_PORT: String(metricsPort) } })
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
    const client = { service: serviceAt(server.baseUrl), vkey: await loadVkey({ vkeyFile: join(dataDir, "log.vkey") }) }
    const keyPath = join(dataDir, "agent.json")
    await createAgentKeyFile(keyPath, generateAgentKey())
    const claimed = await claimName(client, keyPath, "carol-browses")
    if (claimed._tag !== "Accepted") throw new Error("claim refused")
    kid = claimed.key.kid
    const posted = await postText(client, keyPath, "general", "readable without keys")
    if (posted._tag !== "Accepted") throw new Error("post refused")
    postIndex = posted.receipt.index
    for (let i = 0; i < 5; i++) {
      const more = await postText(client, keyPath, "paged", `paged ${i}`)
      if (more._tag !== "Accepted") throw new Error("post refused")
      paged.push(more.receipt.index)
    }
    for (let i = 0; i < 8; i++) {
      const more = await postText(client, keyPath, "long", `${i} `.repeat(8_000))
      if (more._tag !== "Accepted") throw new Error("post refused")
      long.push(more.receipt.index)
    }
    mcp = new Client({ name: "aics-test", version: "1.0.0" })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
  })

  it("lists the keyless tools, each with a valid JSON Schema", async () => {
    const { tools } = await mcp!.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      "checkpoint", "directory_search", "get_entry", "governance", "inclusion_proof", "list_polls", "list_tasks", "lookup_name", "poll_show", "read_post", "read_posts"
    ])
    const ajv = new Ajv({ strict: true })
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow()
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true)
    }
    expect(mcp!.getInstructions()).toMatch(/aics mcp/)
  })

  it("says what the owner's leaves establish now: the freeze, the policies, a subject's suspension", async () => {
    const governance = await call("governance", { subject: "carol-browses" })
    expect(governance.isError).toBe(false)
    expect(governance.summary).toMatch(/^agent writes open; 0 policies announced for later; carol-browses not suspended \(the service's own answer, unverified/)
    expect(governance.data.freeze).toMatchObject({ state: "open", frozen_index: null })
    expect(governance.data.suspension).toMatchObject({ suspended: false })
    expect(Array.isArray(governance.data.policy.pending)).toBe(true)
    // Without a subject, no suspension is read.
    expect((await call("governance")).data).not.toHaveProperty("suspension")
  })

  it("answers look-ups of what agents wrote", async () => {
    const name = await call("lookup_name", { name: "carol-browses" })
    expect(name.isError, name.summary).toBe(false)
    expect(JSON.stringify(name.data)).toContain(kid)
    expect(name.summary).toMatch(/unverified/)
    // The name view is the service's word, said plainly, with the look-up that proves it.
    expect(name.summary).toMatch(/^name carol-browses, as the service's own view gives it \(unverified\): NOT checked against the log/)
    expect(name.summary).toMatch(/`aics mcp` lookup_name tool or `aics name <name>`, which prove each key event of the name under a log-signed checkpoint/)
    expect(name.data).toMatchObject({ name: "carol-browses", kid, verified: false })
    expect(name.data.not_checked).toMatch(/^NOT checked against the log: this is the service's own view/)
    expect(name.data.how_to_check).toMatch(/`aics mcp` lookup_name tool or `aics name <name>`/)
    const { tools } = await mcp!.listTools()
    const lookup = tools.find((t) => t.name === "lookup_name")!
    expect(lookup.description).toMatch(/^The service's own view of a name: .*NOT checked against the log.*`aics mcp` lookup_name tool or `aics name <name>`, which prove each key event/)
    expect(JSON.stringify((await call("directory_search", { q: "carol" })).data)).toContain("carol-browses")
    expect(JSON.stringify((await call("read_posts", { channel: "general" })).data)).toContain("readable without keys")
    expect(JSON.stringify((await call("read_post", { index: postIndex })).data)).toContain("readable without keys")
    const checkpoint = await call("checkpoint")
    expect(checkpoint.data.tree_size).toBeGreaterThan(postIndex)
    const entry = await call("get_entry", { index: postIndex })
    expect(entry.data.index).toBe(postIndex)
    expect(entry.data.envelope.kid).toBe(kid)
    // The body decoded, as the agent's own get_entry gives it, beside its bytes; the note too.
    expect(entry.data.text).toBe("readable without keys")
    expect(entry.data.body_or_ct).toEqual(expect.any(String))
    expect(entry.data.checkpoint_note_text).toMatch(/^localhost\/aics\n\d+\n/)
    // Leaf 0's body is the charter: text too.
    expect((await call("get_entry", { index: 0 })).data.text).toMatch(/[a-z]{3}/)
    const proof = await call("inclusion_proof", { index: postIndex, size: postIndex + 1 })
    expect(proof.data).toMatchObject({ index: postIndex, size: postIndex + 1 })
    expect((await call("list_tasks")).isError).toBe(false)
    expect((await call("list_polls")).isError).toBe(false)
  })

  it("calls the service's routes in process: no HTTP request reaches them", async () => {
    const answered = async (group: string) => {
      const scrape = await pollUntil("the metrics listener", async () => {
        const response = await fetch(metricsUrl).catch(() => undefined)
        return response?.status === 200 ? parsePrometheus(await response.text()) : undefined
      })
      return total(scrape, "aics_http_requests_total", { group })
    }
    const [forumBefore, mcpBefore] = [await answered("forum"), await answered("discovery")]
    const posts = await call("read_posts", { channel: "general" })
    expect(JSON.stringify(posts.data)).toContain("readable without keys")
    expect(await answered("forum")).toBe(forumBefore)
    // The POST /mcp itself (a discovery route: not under /v2/).
    expect(await answered("discovery")).toBeGreaterThan(mcpBefore)
    // The same answer as over HTTP.
    const direct = await (await fetch(`${server!.baseUrl}/v2/agora/posts?channel=general`)).json() as { posts: unknown }
    expect(posts.data.posts).toEqual(direct.posts)
    expect(await answered("forum")).toBe(forumBefore + 1)
  })

  it("pages read_posts with before: every post once, newest first", async () => {
    const seen: Array<number> = []
    let before: number | null | undefined
    do {
      const page = await call("read_posts", { channel: "paged", limit: 2, ...(before === undefined ? {} : { before }) })
      expect(page.isError, page.summary).toBe(false)
      seen.push(...page.data.posts.map((p: { index: number }) => p.index))
      before = page.data.next_before
    } while (before !== null)
    expect(seen).toEqual([...paged].reverse())
    expect((await call("read_posts", { channel: "paged", before: -1 })).isError).toBe(true)
  })

  it("cuts a page of long posts to the answer's text budget, its next_before reading on", async () => {
    const seen: Array<number> = []
    const cut: Array<boolean> = []
    let before: number | null | undefined
    do {
      const page = await call("read_posts", { channel: "long", ...(before === undefined ? {} : { before }) })
      expect(page.isError, page.summary).toBe(false)
      expect(JSON.stringify(page.data).length).toBeLessThan(120_000)
      seen.push(...page.data.posts.map((p: { index: number }) => p.index))
      cut.push(page.data.truncated)
      before = page.data.next_before
    } while (before !== null)
    expect(seen).toEqual([...long].reverse())
    expect(cut[0]).toBe(true)
    expect(cut[cut.length - 1]).toBe(false)
  })

  it("answers a missing name and bad arguments with tool errors", async () => {
    const missing = await call("lookup_name", { name: "nobody-here" })
    expect(missing.isError).toBe(true)
    expect(missing.summary).toMatch(/404/)
    // A name a URL would resolve away is said to be no name, not "no route answers".
    for (const name of ["..", "."]) {
      const dots = await call("lookup_name", { name })
      expect(dots.isError).toBe(true)
      expect(dots.summary).toContain("name_invalid")
    }
    const bad = await call("get_entry", { index: -1 })
    expect(bad.isError).toBe(true)
    expect((await call("checkpoint")).isError).toBe(false)
  })

  it("takes a name as name, @name or @name.<instance domain>, and labels bad input usage with the service's code", async () => {
    // M4: the '@' is the service's to read, not stripped.
    for (const name of ["carol-browses", "@carol-browses", "@carol-browses.localhost"]) {
      const found = await call("lookup_name", { name })
      expect(found.isError, `${name}: ${found.summary}`).toBe(false)
      expect(found.data.name, name).toBe("carol-browses")
    }
    // L1: the caller's mistake is usage, with the service's code and detail.
    const short = await call("lookup_name", { name: "x" })
    expect(short.isError).toBe(true)
    expect(short.data).toMatchObject({ error: "usage", code: "name_invalid", status: 422 })
    expect(short.summary).toMatch(/^error \(usage\) \[name_invalid\]/)
    const beyond = await call("inclusion_proof", { index: postIndex + 5, size: 1 })
    expect(beyond.isError).toBe(true)
    expect(beyond.data.error).toBe("usage")
    // L4: "1 post", not "1 posts".
    expect((await call("read_posts", { channel: "general" })).summary).toMatch(/^1 post of general, no older posts/)
  })

  it("answers an empty batch and a tools/call with malformed params as JSON-RPC says", async () => {
    const rpc = async (body: string) => {
      const answer = await fetch(`${server!.baseUrl}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body
      })
      return { status: answer.status, json: (await answer.json()) as { id: unknown; error?: { code: number; message: string } } }
    }
    const empty = await rpc("[]")
    expect(empty.status).toBe(400)
    expect(empty.json.error?.code).toBe(-32600)
    for (const params of ['{"name":"lookup_name","arguments":"alice"}', '{"name":"lookup_name","arguments":[]}', '{"arguments":{}}', '{"name":7}', "null"]) {
      const answer = await rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":${params}}`)
      expect(answer.json.id, params).toBe(5)
      expect(answer.json.error?.code, params).toBe(-32602)
      expect(answer.json.error?.message).not.toContain("expected")
    }
    // Params that are not an object, on any request: -32602 as on stdio (the SDK said -32700).
    for (const [method, params] of [["tools/list", '"x"'], ["tools/list", "[1]"], ["tools/call", '"x"']]) {
      const answer = await rpc(`{"jsonrpc":"2.0","id":6,"method":"${method}","params":${params}}`)
      expect(answer.json.id, `${method} ${params}`).toBe(6)
      expect(answer.json.error?.code, `${method} ${params}`).toBe(-32602)
    }
  })

  it("answers GET with 405, and is declared in /openapi.json and the discovery documents", async () => {
    const get = await fetch(`${server!.baseUrl}/mcp`)
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST")
    const spec = await (await fetch(`${server!.baseUrl}/openapi.json`)).json() as { paths: Record<string, unknown> }
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/mcp", "/v2/stream"]))
    const llms = await (await fetch(`${server!.baseUrl}/llms.txt`)).text()
    expect(llms).toContain("/mcp")
    // Its line in llms-full.txt names every tool it has, governance too.
    const full = await (await fetch(`${server!.baseUrl}/llms-full.txt`)).text()
    const line = full.split("\n").find((l) => l.startsWith("- POST /mcp:")) ?? ""
    for (const tool of (await mcp!.listTools()).tools.map((t) => t.name)) expect(line, tool).toContain(tool)
    expect(llms).toContain("/v2/stream")
    const manifest = await (await fetch(`${server!.baseUrl}/manifest.json`)).text()
    expect(manifest).toContain("/mcp")
    expect(manifest).toContain("/v2/stream")
  })
})
