// `aics mcp` driven by the SDK's own MCP client over stdio, as an LLM client runs it: the
// compiled CLI in a child process per agent, with the agent's key file, against the real
// service. Two agents go through a whole story (claim, post, look up, grant, DM, inbox,
// poll and vote, capsule, verify, audit), every tool's input schema compiles as JSON
// Schema, and refusals and bad arguments are tool errors after which the server still
// answers. And an agent that has nothing but its MCP client: the server starts without a
// key file (keygen makes it) or without the log key (the tools that need it say how a human
// gives it), long reads come in pages cut to the answer's text budget, and an over-long
// call is answered at once.

import { spawn } from "node:child_process"
import { readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Ajv } from "ajv"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../src/client/keyFile.js"
import { ANSWER_TEXT_BUDGET } from "../../src/client/mcp/toolkit.js"
import { CLI, runAics } from "../support/aicsCli.js"
import { callTool, type Called, connectAicsMcp } from "../support/mcpClient.js"
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
  const client = await connectAicsMcp(keyPath, { server: server!.baseUrl, vkey })
  clients.push(client)
  return client
}

const call = callTool

const ok = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> => {
  const result = await call(client, name, args)
  expect(result.isError, `${name}: ${result.summary}`).toBe(false)
  return result
}

let logVkey = ""

beforeAll(async () => {
  server = await startServer({ dataDir: await tempDataDir() })
  logVkey = (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim()
  keysDir = await tempDataDir()
})

/** The members of a tool's answer, at any depth, that are not snake_case (a report's own camelCase leaking through). */
const camelCaseMembers = (value: unknown): Array<string> => {
  if (Array.isArray(value)) return value.flatMap(camelCaseMembers)
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([name, v]) => [...(/[A-Z]/.test(name) ? [name] : []), ...camelCaseMembers(v)])
}

describe("aics mcp", () => {
  let alice: Client
  let bob: Client

  beforeAll(async () => {
    await createAgentKeyFile(join(keysDir!, "alice.json"), generateAgentKey())
    await createAgentKeyFile(join(keysDir!, "bob.json"), generateAgentKey())
    ;[alice, bob] = await Promise.all([agent(join(keysDir!, "alice.json"), logVkey), agent(join(keysDir!, "bob.json"), logVkey)])
  })

  it("lists tools whose input schemas are valid JSON Schema, and the resources", async () => {
    const { tools } = await alice.listTools()
    // This agent's tools, and the read-only ones of /mcp (publicTools.ts) it has no verified one of.
    expect(tools.map((t) => t.name).sort()).toEqual([
      "audit_log", "audit_name", "capsule_get", "capsule_put", "checkpoint", "claim", "directory_search", "dm", "get_entry", "governance", "grant", "inbox",
      "inclusion_proof", "keygen", "list_grants", "list_polls", "list_tasks", "lookup_name", "poll_create", "poll_show", "post", "read_post",
      "read_posts", "receipt", "revoke", "verify", "vote", "whoami"
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
    // In the shape of every tool error (docs/agents.md), the log-signed note beside it.
    expect(taken.data).toMatchObject({ error: "refused", code: taken.data.refused, status: 409, detail: expect.any(String), meaning: expect.any(String), receipt_note: expect.any(String) })

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
    // The key's own leaf (the claim) is checked too, and the answer says what was not: a later rotation.
    expect(looked.data).toMatchObject({ kid_index: claimed.data.index, kid_set_by: "claim", x25519_index: claimed.data.index, checkpoint_from_view: true })
    expect(looked.data.latest_checkpoint_size).toBeGreaterThanOrEqual(looked.data.checkpoint_size)
    expect(looked.summary).toMatch(/included under the name view's log-signed checkpoint of size \d+.*not checked: a later rotation \(after leaf \d+\).*the audit_name tool/)
    // Its own lookup_name, not /mcp's (publicTools.ts): it says what it checked, never that it is unchecked.
    expect(looked.data.verified).toBe(true)
    expect(looked.data.how_to_check).toBeUndefined()
    expect(looked.summary).not.toMatch(/NOT checked against the log|unverified/)
    const lookupTool = (await bob.listTools()).tools.find((t) => t.name === "lookup_name")!
    expect(lookupTool.description).toMatch(/^Resolves a name .* and checks the two leaves the view cites/)
    expect(lookupTool.description).not.toMatch(/NOT checked against the log/)
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
    // The root in U64 as every other hash, and in B64 as the checkpoint note has it.
    expect(verified.data.root_hash).toMatch(/^[A-Za-z0-9+/]{43}=$/)
    expect(verified.data.root_hash_hex).toMatch(/^[0-9a-f]{64}$/)
    expect(verified.data.receipts.length).toBeGreaterThanOrEqual(5)
    // snake_case as every other tool's answer and the service's JSON: the shape `aics verify --json` prints.
    expect(verified.data).toMatchObject({ missing_receipts: [], missing_receipt_count: 0, tiles_fetched: expect.any(Number), key_file: join(keysDir!, "alice.json") })
    expect(camelCaseMembers(verified.data)).toEqual([])
    const replayed = await ok(bob, "audit_log", {})
    expect(replayed.data).toMatchObject({ ok: true, problems: [], entries_replayed: replayed.data.checkpoint_size })
    expect(replayed.summary).toMatch(/^every leaf of the log at size \d+ is one the service had to write/)
    expect(camelCaseMembers(replayed.data)).toEqual([])
    const audited = await ok(bob, "audit_name", { name: "alice-mcp" })
    expect(audited.data.ok).toBe(true)
    expect(audited.data).toMatchObject({ name: "alice-mcp", entries_folded: expect.any(Number), checkpoint_size: expect.any(Number), bundles_fetched: expect.any(Number) })
    expect(audited.data.entries_folded).toBeGreaterThanOrEqual(audited.data.size)
    expect(camelCaseMembers(audited.data)).toEqual([])
    // The CLI prints the same shape.
    const printed = JSON.parse((await runAics(["audit", "name", "alice-mcp", "--json"], {
      cwd: keysDir!, env: { AICS_SERVER: server!.baseUrl, AICS_LOG_VKEY: logVkey }
    })).out)
    expect(Object.keys(printed).sort()).toEqual(Object.keys(audited.data).sort())
  })

  it("whoami waits, with wait_seconds, for a checkpoint covering the last receipt, and says how long or that the wait ran out", async () => {
    // Bounded, and 0 (look once) by default.
    const schema = (await alice.listTools()).tools.find((t) => t.name === "whoami")!.inputSchema as any
    expect(schema.properties.wait_seconds).toMatchObject({ type: "integer", minimum: 0, maximum: 120 })
    expect((await call(alice, "whoami", { wait_seconds: 121 })).isError).toBe(true)
    const once = await ok(alice, "whoami")
    expect(once.data).toMatchObject({ waited_ms: 0, wait_timed_out: false })

    // Right after a write, a wait ends once a checkpoint covers its receipt.
    const posted = await ok(alice, "post", { channel: "general", text: "is this covered yet?" })
    const waited = await ok(alice, "whoami", { wait_seconds: 30 })
    expect(waited.data).toMatchObject({ last_receipt_index: posted.data.index, checkpoint_covers_last_receipt: true, wait_timed_out: false })
    expect(waited.data.checkpoint_size).toBeGreaterThan(posted.data.index)
    expect(waited.data.waited_ms).toBeGreaterThanOrEqual(0)
    expect(waited.data.waited_ms).toBeLessThan(30_000)
    expect(waited.summary).toMatch(new RegExp(`it covers the last receipt, leaf ${posted.data.index} \\(waited [0-9.]+ s\\)`))

    // A receipt no checkpoint will cover (a leaf far past the log): the wait runs out, and says so.
    const path = join(keysDir!, "far.json")
    await createAgentKeyFile(path, generateAgentKey())
    const file = JSON.parse(await readFile(path, "utf8"))
    const hash = "A".repeat(43)
    await writeFile(path, JSON.stringify({
      ...file, seq: 1, prev: hash,
      receipts: [{ index: 1_000_000, leaf_hash: hash, logged: Date.now(), type: "post", seq: 0, receipt_note: "AAAA" }]
    }, null, 2) + "\n", { mode: 0o600 })
    const far = await agent(path, logVkey)
    const started = Date.now()
    const timedOut = await ok(far, "whoami", { wait_seconds: 1 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
    expect(timedOut.data).toMatchObject({ last_receipt_index: 1_000_000, checkpoint_covers_last_receipt: false, wait_timed_out: true })
    expect(timedOut.data.waited_ms).toBeGreaterThanOrEqual(1_000)
    expect(timedOut.summary).toMatch(/the last receipt, leaf 1000000, is still not covered after waiting [0-9.]+ s \(the wait ran out\)/)
    // Without a wait it only says the receipt is not covered yet, and how to wait for it.
    const notYet = await ok(far, "whoami")
    expect(notYet.data).toMatchObject({ checkpoint_covers_last_receipt: false, wait_timed_out: false, waited_ms: 0 })
    expect(notYet.summary).toMatch(/is not covered yet: .*whoami with wait_seconds/)
  })

  it("reads the governance in force and checks it, as aics governance does", async () => {
    const governance = await ok(alice, "governance", { subject: "@someone-else" })
    expect(governance.summary).toMatch(/^agent writes open; 0 policies announced for later; someone-else not suspended\. Checked: the views' checkpoints with the log key, and 0 leaves in force proved/)
    expect(governance.data).toMatchObject({ freeze: { state: "open" }, suspension: { subject: "someone-else", suspended: false }, checked_leaves: [], verified: true })
    // Its own, checked, not /mcp's word: the description says what it checks.
    const tool = (await alice.listTools()).tools.find((t) => t.name === "governance")!
    expect(tool.description).toMatch(/verified with the log key/)
  })

  it("fetches a lost receipt again, verified against the log key and the leaf, and keeps it in the key file", async () => {
    const posted = await ok(alice, "post", { channel: "general", text: "whose answer is lost" })
    // The answer lost: the key file as if the write's 202 never arrived to be kept.
    const path = join(keysDir!, "alice.json")
    const file = JSON.parse(await readFile(path, "utf8"))
    const lost = file.receipts.find((r: { index: number }) => r.index === posted.data.index)
    expect(lost).toBeDefined()
    await writeFile(path, JSON.stringify({ ...file, receipts: file.receipts.filter((r: { index: number }) => r.index !== posted.data.index) }, null, 2) + "\n", { mode: 0o600 })

    // verify says so, and names this server's receipt tool with the index, not the CLI's command.
    const short = await ok(alice, "verify", { wait_seconds: 20 })
    expect(short.data.missing_receipt_count).toBe(1)
    expect(short.summary).toContain(`call the receipt tool with index ${posted.data.index} (seq ${lost.seq}) to fetch it again`)
    expect(short.summary).not.toMatch(/aics receipt/)

    const again = await ok(alice, "receipt", { index: posted.data.index })
    expect(again.summary).toMatch(new RegExp(`^entry ${posted.data.index}: post by did:key:\\S+ \\(seq \\d+\\): receipt verified with the log key.*kept in the key file$`))
    expect(again.data).toMatchObject({ index: posted.data.index, type: "post", kept: "added", receipt_note: lost.receipt_note })
    const kept = JSON.parse(await readFile(path, "utf8")).receipts.find((r: { index: number }) => r.index === posted.data.index)
    expect(kept).toEqual(lost)
    expect((await ok(alice, "receipt", { index: posted.data.index })).data.kept).toBe("held")
    // An index past the log has no receipt.
    const missing = await call(alice, "receipt", { index: 1_000_000 })
    expect(missing.isError).toBe(true)
    expect(missing.summary).toMatch(/not_found|entry_not_found/)
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
  it("says what a model needs: secret slot names, time units and the current time, handles, refusal codes", async () => {
    const { tools } = await alice.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    // M1: a slot's name is a secret, not a label.
    for (const name of ["capsule_put", "capsule_get"]) expect(JSON.stringify(byName.get(name)), name).toMatch(/unguessable/)
    expect(byName.get("capsule_put")!.description).toMatch(/slot_taken/)
    // M2: units in the schemas, the current time in whoami, a millisecond time refused saying so.
    expect(JSON.stringify(byName.get("poll_create")!.inputSchema)).toMatch(/Unix SECONDS/)
    expect(JSON.stringify(byName.get("grant")!.inputSchema)).toMatch(/Unix SECONDS/)
    const me = await ok(alice, "whoami")
    expect(Math.abs(me.data.now_unix_seconds - Date.now() / 1000)).toBeLessThan(60)
    expect(Math.abs(me.data.now_unix_ms - Date.now())).toBeLessThan(60_000)
    const millis = await call(alice, "poll_create", { channel: "general", question: "When?", options: ["now", "later"], closes: Date.now() + 3_600_000 })
    expect(millis.isError).toBe(true)
    expect(millis.summary).toMatch(/error \(usage\).*Unix SECONDS.*milliseconds/)
    const relative = await ok(alice, "poll_create", { channel: "general", question: "In an hour?", options: ["yes", "no"], closes: "+3600" })
    expect(Math.abs(relative.data.closes - (Date.now() / 1000 + 3600))).toBeLessThan(60)
    // M4: name, @name and @name.<instance domain> alike.
    for (const name of ["bob-mcp", "@bob-mcp", "@bob-mcp.localhost"]) expect((await ok(alice, "lookup_name", { name })).data.name, name).toBe("bob-mcp")
    const elsewhere = await call(alice, "lookup_name", { name: "@bob-mcp.example.org" })
    expect(elsewhere.isError).toBe(true)
    expect(elsewhere.data).toMatchObject({ error: "usage", code: "name_invalid" })
    // M5: a DM to a bare key, and one without a grant: a refusal code and its meaning, in MCP's words.
    const toKey = await call(alice, "dm", { to: (await ok(bob, "whoami")).data.kid, text: "hi" })
    expect(toKey.isError).toBe(true)
    expect(toKey.data).toMatchObject({ error: "refused", code: "recipient_unknown" })
    expect(toKey.summary).toMatch(/only names receive DMs/)
    expect(toKey.summary).not.toMatch(/characters/)
    const ungranted = await call(alice, "dm", { to: "@bob-mcp.localhost", text: "no grant yet" })
    expect(ungranted.isError).toBe(true)
    expect(ungranted.data).toMatchObject({ error: "refused", code: "grant_required" })
    expect(ungranted.data.meaning).toMatch(/a dm cites a grant that is not in force/)
    expect(ungranted.summary).toMatch(/grant tool/)
    expect(ungranted.summary).not.toMatch(/aics grant/)
    const self = await call(alice, "grant", { sender: "alice-mcp" })
    expect(self.isError).toBe(true)
    expect(self.summary).toMatch(/capsule_put/)
    expect(self.summary).not.toMatch(/aics capsule/)
  })

  it("offers the read-only tools of /mcp, this agent's grants and a paged inbox, in one shape", async () => {
    // M3: list_polls, read_post, list_tasks, list_grants; the inbox paged.
    const posted = await ok(alice, "post", { channel: "shapes", text: "one post" })
    const post = await ok(bob, "read_post", { index: posted.data.index })
    expect(JSON.stringify(post.data)).toContain("one post")
    expect((await ok(bob, "list_polls")).data.polls.length).toBeGreaterThan(0)
    await ok(bob, "list_tasks")
    const granted = await ok(bob, "grant", { sender: "@alice-mcp.localhost", limit: 5 })
    const grants = await ok(bob, "list_grants", { in_force_only: true })
    expect(grants.data.grants.map((g: { index: number }) => g.index)).toContain(granted.data.index)
    for (const text of ["first", "second", "third"]) await ok(alice, "dm", { to: "@bob-mcp", text })
    const texts: Array<string> = []
    let from: number | undefined
    for (;;) {
      const page = await ok(bob, "inbox", { limit: 1, ...(from === undefined ? {} : { from }) })
      expect(page.data.messages.length).toBeLessThanOrEqual(1)
      for (const m of page.data.messages) {
        texts.push(m.text)
        // L4: the sender's name beside its key.
        expect(m.from_name).toBe("alice-mcp")
      }
      if (page.data.next_from === null) break
      from = page.data.next_from
    }
    expect(texts.slice(-3)).toEqual(["first", "second", "third"])
    // L4: read_posts has the shape of /mcp's (the service's own): author, not kid; "1 post".
    const posts = await ok(bob, "read_posts", { channel: "shapes" })
    expect(posts.data.posts[0].author).toBe((await ok(alice, "whoami")).data.kid)
    expect(posts.summary).toMatch(/^1 post of shapes/)
  })

  it("labels bad input usage or refused, with the service's code, and names the argument", async () => {
    // L1
    const channel = await call(alice, "read_posts", { channel: "General" })
    expect(channel.isError).toBe(true)
    expect(channel.summary).toMatch(/error \(usage\)/)
    expect(channel.summary).toMatch(/channel/)
    await ok(bob, "capsule_put", { slot: "bob-secret-slot-7f3a", text: "bob's" })
    const others = await call(alice, "capsule_get", { slot: "bob-secret-slot-7f3a" })
    expect(others.isError).toBe(true)
    expect(others.data).toMatchObject({ error: "refused", code: "not_authorized", status: 403 })
    const beyond = await call(alice, "inclusion_proof", { index: 5, size: 2 })
    expect(beyond.isError).toBe(true)
    expect(beyond.data.error).toBe("usage")
    expect(beyond.data.code).toEqual(expect.any(String))
    // L2
    const extra = await call(alice, "vote", { poll_index: 1, option: 0, sneaky: true })
    expect(extra.summary).toMatch(/unknown argument "sneaky" \(it takes poll_index, option\)/)
    const huge = await call(alice, "read_posts", { before: 2 ** 60 })
    expect(huge.isError).toBe(true)
    expect(huge.summary).toMatch(/before must be at most 2\^53-1/)
    const notAKey = await call(alice, "grant", { sender: "did:key:zNotAKey" })
    expect(notAKey.isError).toBe(true)
    expect(notAKey.summary).toMatch(/not a valid did:key/)
  })

  it("answers every malformed line on stdio with a JSON-RPC error", async () => {
    // L3: the SDK's stdio transport dropped these, and the client waited for ever.
    const child = spawn(process.execPath, [CLI, "mcp", "--key", join(keysDir!, "alice.json")], {
      env: { PATH: process.env["PATH"] ?? "", AICS_SERVER: server!.baseUrl, AICS_LOG_VKEY: logVkey },
      stdio: ["pipe", "pipe", "pipe"]
    })
    const answers: Array<any> = []
    let buffered = ""
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8")
      let newline: number
      while ((newline = buffered.indexOf("\n")) >= 0) {
        answers.push(JSON.parse(buffered.slice(0, newline)))
        buffered = buffered.slice(newline + 1)
      }
    })
    const lines = [
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      "this is not JSON",
      "[]",
      '[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1]}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}',
      '{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":42}}',
      "42",
      '{"jsonrpc":"2.0","id":6,"method":"tools/list"}'
    ]
    child.stdin.write(lines.join("\n") + "\n")
    const deadline = Date.now() + 15_000
    while (answers.length < lines.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    child.stdin.end()
    child.kill()
    expect(answers.length).toBe(lines.length)
    const byId = (id: unknown) => answers.find((a) => a.id === id)
    for (const id of [1, 2, 3, 4, 5]) {
      expect(byId(id)?.error?.code, String(id)).toBe(-32602)
      expect(byId(id)?.error?.message, String(id)).not.toMatch(/expected|invalid_type/)
    }
    const anonymous = answers.filter((a) => a.id === null).map((a) => a.error.code)
    expect(anonymous.sort()).toEqual([-32700, -32600, -32600, -32600].sort())
    expect(byId(6)?.result?.tools?.length).toBeGreaterThan(10)
  })

  it("aics watch: a filter the service refuses is a usage error with its detail", async () => {
    // L7
    for (const args of [["--channel", "General"], ["--type", "nosuch"]]) {
      const run = await runAics(["watch", ...args, "--count", "1"], { cwd: keysDir!, env: { AICS_SERVER: server!.baseUrl, AICS_LOG_VKEY: logVkey }, timeoutMs: 20_000 })
      expect(run.code, run.err).toBe(2)
      expect(run.err).toMatch(/^usage error: the service refuses these filters: 422 /)
      expect(run.err).not.toContain("{")
    }
  })
})

describe("aics mcp for an agent that has nothing but its MCP client", () => {
  /** An agent with a key file and a name, through its own `aics mcp`. */
  const named = async (name: string): Promise<Client> => {
    const path = join(keysDir!, `${name}.json`)
    await createAgentKeyFile(path, generateAgentKey())
    const client = await agent(path, logVkey)
    await ok(client, "claim", { name })
    return client
  }

  it("starts without a key file: keygen makes it (public keys only, mode 0600), and until then the tools that need it say to call keygen", async () => {
    const path = join(keysDir!, "fresh.json")
    const fresh = await agent(path, logVkey)
    for (const [tool, args] of [["whoami", {}], ["post", { channel: "general", text: "no key yet" }], ["inbox", {}]] as const) {
      const refused = await call(fresh, tool, args)
      expect(refused.isError, tool).toBe(true)
      expect(refused.data, tool).toMatchObject({ error: "key_file" })
      expect(refused.summary, tool).toMatch(/no key file at .*: call the keygen tool/)
      expect(refused.summary, tool).not.toMatch(/aics keygen/)
    }
    // What needs no key file works meanwhile.
    await ok(fresh, "directory_search", {})
    await ok(fresh, "checkpoint")
    await ok(fresh, "read_posts", {})

    const made = await ok(fresh, "keygen")
    expect(made.data).toMatchObject({ kid: expect.stringMatching(/^did:key:z/), x25519: expect.any(String), key_file: path, seq: 0, prev: null })
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    // The file `aics keygen` writes, and no private key in the answer.
    const file = JSON.parse(await readFile(path, "utf8"))
    expect((await readAgentKeyFile(path)).kid).toBe(made.data.kid)
    const said = made.summary + JSON.stringify(made.data)
    expect(said).not.toContain(file.seed)
    expect(said).not.toContain(file.x25519.secret)
    // Never over an existing key file.
    const again = await call(fresh, "keygen")
    expect(again.isError).toBe(true)
    expect(again.data).toMatchObject({ error: "key_file" })
    expect(again.summary).toMatch(/already exists.*whoami tells its key/)
    expect(JSON.parse(await readFile(path, "utf8")).kid).toBe(made.data.kid)

    expect((await ok(fresh, "whoami")).data.kid).toBe(made.data.kid)
    await ok(fresh, "claim", { name: "fresh-mcp" })
  })

  it("starts without the log key: its tools listed, keygen and /mcp's work, the others say how to get the key out of band and write nothing", async () => {
    const path = join(keysDir!, "blind.json")
    const blind = await connectAicsMcp(path, { server: server!.baseUrl, vkey: undefined })
    clients.push(blind)
    const listed = (await blind.listTools()).tools.map((t) => t.name)
    const seeing = await agent(join(keysDir!, "seeing.json"), logVkey)
    expect(listed).toEqual((await seeing.listTools()).tools.map((t) => t.name))
    expect(blind.getInstructions()).toMatch(/WITHOUT the log's verifier key/)
    expect(JSON.stringify((await ok(blind, "directory_search", { q: "alice" })).data)).toContain("alice-mcp")
    const made = await ok(blind, "keygen")
    for (const [tool, args] of [["whoami", {}], ["claim", { name: "blind-mcp" }], ["post", { channel: "general", text: "unverifiable" }], ["checkpoint", {}], ["read_posts", {}], ["verify", {}]] as const) {
      const refused = await call(blind, tool, args)
      expect(refused.isError, tool).toBe(true)
      expect(refused.data, tool).toMatchObject({ error: "usage" })
      expect(refused.summary, tool).toMatch(/which `aics mcp` does not have \(none of --vkey, --vkey-file, --vkey-dns or AICS_LOG_VKEY was given\)/)
      expect(refused.summary, tool).toMatch(/out of band, never from the service.*_aics\.<instance domain>.*AICS_LOG_VKEY/)
    }
    const resource = await blind.readResource({ uri: "aics://checkpoint" }).then(() => undefined, (error: unknown) => error)
    expect(String(resource)).toMatch(/verifier key/)
    // Nothing was written: the key's chain has not moved and the log has no entry of it.
    expect((await readAgentKeyFile(path)).seq).toBe(0)
    expect((await fetch(`${server!.baseUrl}/v2/keys/${encodeURIComponent(made.data.kid)}`)).status).toBe(404)
  })

  it("pages the inbox within the text budget: a small default page, no message fetched left out, each once", async () => {
    const [writer, reader] = await Promise.all([named("inbox-writer"), named("inbox-reader")])
    await ok(reader, "grant", { sender: "inbox-writer" })
    const texts = [...["A", "B", "C"].map((c) => c.repeat(60_000)), ...Array.from({ length: 12 }, (_, i) => `small ${i}`)]
    for (const text of texts) await ok(writer, "dm", { to: "inbox-reader", text })

    const pages: Array<Called> = []
    let cursor: { key?: string; from?: number } = {}
    for (;;) {
      // unread_only throughout: a message a read fetched but left out of its answer would be lost.
      const page = await ok(reader, "inbox", { unread_only: true, ...cursor })
      pages.push(page)
      expect(JSON.stringify(page.data).length, page.summary).toBeLessThan(ANSWER_TEXT_BUDGET)
      if (page.data.next_from === null) break
      cursor = { key: page.data.next_key, from: page.data.next_from }
    }
    expect(pages.flatMap((p) => p.data.messages.map((m: { text: string }) => m.text))).toEqual(texts)
    // Each long one alone, said to be cut short; then the default page of 10; then the rest.
    expect(pages.map((p) => p.data.messages.length)).toEqual([1, 1, 1, 10, 2])
    expect(pages.map((p) => p.data.truncated)).toEqual([true, true, true, false, false])
    expect(pages[0]!.summary).toMatch(/the page ended early.*more with key=did:key:\S+ from=\d+ unread_only=true/)
  })

  it("cuts a page of long posts to the text budget, its next_before reading on", async () => {
    const poster = await named("long-poster")
    const indexes: Array<number> = []
    for (let i = 0; i < 10; i++) indexes.push((await ok(poster, "post", { channel: "long-posts", text: `${i} `.repeat(8_000) })).data.index)
    const seen: Array<number> = []
    let before: number | undefined
    for (let pages = 0; ; pages++) {
      const page = await ok(poster, "read_posts", { channel: "long-posts", ...(before === undefined ? {} : { before }) })
      expect(JSON.stringify(page.data).length).toBeLessThan(ANSWER_TEXT_BUDGET + 20_000)
      if (pages === 0) {
        expect(page.data.truncated).toBe(true)
        expect(page.summary).toMatch(/the page ended early/)
      }
      seen.push(...page.data.posts.map((p: { index: number }) => p.index))
      if (page.data.next_before === null) break
      before = page.data.next_before
    }
    expect(seen).toEqual([...indexes].reverse())
  })

  it("answers an over-long call at once with an error naming the limit, and keeps serving", async () => {
    const poster = await named("long-caller")
    const started = Date.now()
    const failed = await poster.callTool({ name: "post", arguments: { channel: "general", text: "x".repeat(20 * 1024 * 1024) } }, undefined, { timeout: 30_000 })
      .then(() => undefined, (error: unknown) => error)
    expect(failed).toBeInstanceOf(McpError)
    expect((failed as McpError).code).toBe(-32600)
    expect((failed as McpError).message).toMatch(/a line is at most 10485760 bytes/)
    expect(Date.now() - started).toBeLessThan(20_000)
    expect((await ok(poster, "whoami")).data.name).toBe("long-caller")
  })
})

