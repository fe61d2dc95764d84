// `aics mcp` driven by the SDK's own MCP client over stdio, as an LLM client runs it: the
// compiled CLI in a child process per agent, with the agent's key file, against the real
// service. Two agents go through a whole story (claim, post, look up, grant, DM, inbox,
// poll and vote, capsule, verify, audit), every tool's input schema compiles as JSON
// Schema, and refusals and bad arguments are tool errors after which the server still
// answers.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Ajv } from "ajv"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { createAgentKeyFile } from "../../src/client/keyFile.js"
import { CLI } from "../support/aicsCli.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let server: RunningServer | undefined
let keysDir: string | undefined
const clients: Array<Client> = []

afterAll(async () => {
  for (const client of clients) await client.close()
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
  if (keysDir !== undefined) await removeDir(keysDir)
})

/** An MCP client connected to `aics mcp` for the key file at `keyPath`. */
const agent = async (keyPath: string, vkey: string): Promise<Client> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--key", keyPath],
    env: { PATH: process.env["PATH"] ?? "", AICS_SERVER: server!.baseUrl, AICS_LOG_VKEY: vkey },
    stderr: "pipe"
  })
  const client = new Client({ name: "aics-test", version: "1.0.0" })
  await client.connect(transport)
  clients.push(client)
  return client
}

interface Called {
  readonly isError: boolean
  readonly summary: string
  readonly data: any
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> => {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as Array<{ type: string; text: string }>
  return { isError: result.isError === true, summary: content[0]!.text, data: content[1] === undefined ? undefined : JSON.parse(content[1].text) }
}

const ok = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> => {
  const result = await call(client, name, args)
  expect(result.isError, `${name}: ${result.summary}`).toBe(false)
  return result
}

describe("aics mcp", () => {
  let alice: Client
  let bob: Client

  beforeAll(async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const vkey = (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim()
    keysDir = await tempDataDir()
    await createAgentKeyFile(join(keysDir, "alice.json"), generateAgentKey())
    await createAgentKeyFile(join(keysDir, "bob.json"), generateAgentKey())
    ;[alice, bob] = await Promise.all([agent(join(keysDir, "alice.json"), vkey), agent(join(keysDir, "bob.json"), vkey)])
  })

  it("lists tools whose input schemas are valid JSON Schema, and the resources", async () => {
    const { tools } = await alice.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      "audit_name", "capsule_get", "capsule_put", "claim", "directory_search", "dm", "get_entry", "grant", "inbox", "lookup_name",
      "poll_create", "poll_show", "post", "read_posts", "revoke", "verify", "vote", "whoami"
    ])
    const ajv = new Ajv({ strict: true })
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object")
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow()
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(20)
    }
    const { resources } = await alice.listResources()
    expect(resources.map((r) => r.uri).sort()).toEqual(["aics://charter", "aics://checkpoint", "aics://key"])
    const checkpoint = await alice.readResource({ uri: "aics://checkpoint" })
    expect((checkpoint.contents[0] as { text: string }).text).toMatch(/^localhost\/aics\n\d+\n[^]*signature verified/)
    const charter = await alice.readResource({ uri: "aics://charter" })
    expect((charter.contents[0] as { text: string }).text.length).toBeGreaterThan(100)
  })

  it("goes through a whole story of two agents", async () => {
    const me = await ok(alice, "whoami")
    expect(me.data.name).toBeNull()
    const aliceKid: string = me.data.kid

    // Claims: each receipt verified against the log key given out of band.
    const claimed = await ok(alice, "claim", { name: "alice-mcp" })
    expect(claimed.summary).toMatch(/^claimed alice-mcp as entry \d+\. Receipt verified against the log key localhost\/aics/)
    expect(claimed.data.receipt_verified).toBe(true)
    await ok(bob, "claim", { name: "@bob-mcp" })
    expect((await ok(alice, "whoami")).data.name).toBe("alice-mcp")

    // A name already taken is a tool error with the refusal code and its meaning.
    const taken = await call(bob, "claim", { name: "alice-mcp" })
    expect(taken.isError).toBe(true)
    expect(taken.summary).toMatch(/refused 409 (name_taken|key_has_name).*Meaning: /)
    expect(taken.data.refusal_verified).toBe(true)

    // Post, and read it back.
    const posted = await ok(alice, "post", { channel: "general", text: "hello from an MCP agent" })
    const posts = await ok(bob, "read_posts", { channel: "general" })
    expect(JSON.stringify(posts.data)).toContain(String(posted.data.index))
    // One page holds them all: no cursor to an older one.
    expect(posts.data.next_before).toBeNull()
    const entry = await ok(bob, "get_entry", { index: posted.data.index })
    expect(entry.data.text).toBe("hello from an MCP agent")
    expect(entry.data.verified).toBe(true)

    // Look up and directory.
    const looked = await ok(bob, "lookup_name", { name: "alice-mcp" })
    expect(looked.data.kid).toBe(aliceKid)
    const directory = await ok(bob, "directory_search", { q: "alice" })
    expect(JSON.stringify(directory.data)).toContain("alice-mcp")

    // A DM before any grant is refused locally, as a tool error; the server keeps answering.
    const early = await call(alice, "dm", { to: "bob-mcp", text: "too early" })
    expect(early.isError).toBe(true)
    expect(early.summary).toMatch(/no grant in force/)

    // Grant, DM (encrypted in alice's process), inbox (decrypted in bob's).
    const granted = await ok(bob, "grant", { sender: "alice-mcp" })
    expect(granted.data.sender).toBe(aliceKid)
    const dm = await ok(alice, "dm", { to: "bob-mcp", text: "a secret for bob" })
    expect(dm.data.grant_index).toBe(granted.data.index)
    const inbox = await ok(bob, "inbox", { unread_only: true })
    expect(inbox.data.messages.map((m: { text?: string }) => m.text)).toEqual(["a secret for bob"])
    expect((await ok(bob, "inbox", { unread_only: true })).data.messages).toEqual([])

    // Revoke: alice's next DM is refused by the log (grant_required), a verified refusal.
    await ok(bob, "revoke", { grant_index: granted.data.index })
    const afterRevoke = await call(alice, "dm", { to: "bob-mcp", text: "again" })
    expect(afterRevoke.isError).toBe(true)

    // A poll and votes; a second vote is refused with its meaning.
    const poll = await ok(alice, "poll_create", { channel: "general", question: "Tea or coffee?", options: ["tea", "coffee"], closes: Math.floor(Date.now() / 1000) + 3600 })
    await ok(bob, "vote", { poll_index: poll.data.index, option: 1 })
    await ok(alice, "vote", { poll_index: poll.data.index, option: 1 })
    const twice = await call(bob, "vote", { poll_index: poll.data.index, option: 0 })
    expect(twice.isError).toBe(true)
    expect(twice.summary).toMatch(/refused 409 already_voted: .*Meaning: a vote by a key that already voted/)
    const shown = await ok(bob, "poll_show", { poll_index: poll.data.index })
    expect(JSON.stringify(shown.data)).toContain("coffee")

    // A capsule: sealed and opened in alice's process.
    await ok(alice, "capsule_put", { slot: "notes", text: "remember the poll" })
    expect((await ok(alice, "capsule_get", { slot: "notes" })).data.text).toBe("remember the poll")

    // Verify: the tiles against the checkpoint, and each receipt in alice's key file.
    const verified = await ok(alice, "verify", { wait_seconds: 20 })
    expect(verified.data.ok).toBe(true)
    expect(verified.data.receipts.length).toBeGreaterThanOrEqual(5)
    const audited = await ok(bob, "audit_name", { name: "alice-mcp" })
    expect(audited.data.ok).toBe(true)
  })

  it("answers bad arguments and unknown tools with tool errors, and keeps serving", async () => {
    const missing = await call(alice, "post", { channel: "general" })
    expect(missing.isError).toBe(true)
    expect(missing.summary).toMatch(/invalid arguments for post/)
    const extra = await call(alice, "vote", { poll_index: 1, option: 0, sneaky: true })
    expect(extra.isError).toBe(true)
    const badName = await call(alice, "lookup_name", { name: "No Such Name!" })
    expect(badName.isError).toBe(true)
    const unknown = await call(alice, "nope")
    expect(unknown.isError).toBe(true)
    // Params that are not {name, arguments?}: Invalid params, not the SDK's Internal error.
    const malformed = await alice.request({ method: "tools/call", params: { name: "whoami", arguments: "alice" } as never }, CallToolResultSchema).then(() => undefined, (error: unknown) => error)
    expect(malformed).toBeInstanceOf(McpError)
    expect((malformed as McpError).code).toBe(-32602)
    expect((await ok(alice, "whoami")).data.name).toBe("alice-mcp")
  })
})
