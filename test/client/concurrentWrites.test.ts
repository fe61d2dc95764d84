// Writes with one key file at the same time, against the real service: the library's
// writes in one process, `aics post` in several processes, and an LLM client's parallel
// tool calls to `aics mcp`. Each goes under the key file's lock (src/client/keyFileLock.ts),
// so all are accepted with consecutive seqs and every receipt is kept. And verify says
// which receipts a key file lacks.

import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { claimName, postText } from "../../src/client/agent.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../src/client/keyFile.js"
import { rotate } from "../../src/client/rotation.js"
import { verifyLog } from "../../src/client/verify.js"
import type { LogClient } from "../../src/client/write.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { CLI, ok, startCliWorld, type CliWorld } from "../support/aicsCli.js"

let world: CliWorld
let client: LogClient
const mcpClients: Array<Client> = []

beforeAll(async () => {
  world = await startCliWorld("aics-concurrent-")
  client = { service: serviceAt(world.server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, world.vkey)! }
}, 60_000)

afterAll(async () => {
  for (const mcp of mcpClients) await mcp.close()
  await world?.stop()
})

/** A new key file in the agents' folder; its path. */
const newKeyFile = async (name: string): Promise<string> => {
  const path = join(world.agentsDir, name)
  await createAgentKeyFile(path, generateAgentKey())
  return path
}

/** The file's chain position and its receipts' seqs, in the order kept. */
const chainOf = async (path: string) => {
  const key = await readAgentKeyFile(path)
  return { seq: key.seq, seqs: key.receipts.map((r) => r.seq), indexes: key.receipts.map((r) => r.index) }
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i)

describe("parallel writes with one key file", () => {
  it("in one process: all accepted, consecutive seqs, every receipt kept", async () => {
    const path = await newKeyFile("library.json")
    const results = await Promise.all(upTo(8).map((i) => postText(client, path, "general", `parallel post ${i}`)))
    expect(results.map((r) => r._tag === "Accepted" ? "accepted" : `refused ${r.code}`)).toEqual(upTo(8).map(() => "accepted"))
    const seqs = results.map((r) => (r._tag === "Accepted" ? r.envelope.seq : -1)).sort((a, b) => a - b)
    expect(seqs).toEqual(upTo(8))
    const chain = await chainOf(path)
    expect(chain.seq).toBe(8)
    expect(chain.seqs).toEqual(upTo(8))
    expect(new Set(chain.indexes).size).toBe(8)
    expect(await readFile(`${path}.lock`).then(() => "left behind", () => "released")).toBe("released")
  })

  it("in several aics processes: all accepted, consecutive seqs, every receipt kept", async () => {
    await newKeyFile("processes.json")
    const runs = await Promise.all(upTo(4).map((i) => world.aics(["post", "general", `from process ${i}`, "--key", "processes.json"])))
    for (const run of runs) ok(run)
    const chain = await chainOf(join(world.agentsDir, "processes.json"))
    expect(chain.seq).toBe(4)
    expect(chain.seqs).toEqual(upTo(4))
  })

  it("a rotation among posts: nothing is signed at a stale position and no receipt is lost", async () => {
    const path = await newKeyFile("rotating.json")
    expect((await claimName(client, path, "rotating-agent"))._tag).toBe("Accepted")
    const [first, rotation, second] = await Promise.all([
      postText(client, path, "general", "before or after the rotation"),
      rotate(client, path),
      postText(client, path, "general", "after or before the rotation")
    ])
    expect([first._tag, rotation.result?._tag, second._tag]).toEqual(["Accepted", "Accepted", "Accepted"])
    const key = await readAgentKeyFile(path)
    expect(key.kid).toBe(rotation.newKid)
    const receipts = [...key.previous.flatMap((p) => p.receipts), ...key.receipts]
    expect(receipts.length).toBe(4)
    const report = await verifyLog(client, key, { waitMs: 20_000 })
    expect(report.ok).toBe(true)
    expect(report.missingReceiptCount).toBe(0)
  })
})

describe("aics mcp, with an LLM client's parallel tool calls", () => {
  it("accepts five parallel posts with consecutive seqs and keeps five receipts", async () => {
    const path = await newKeyFile("mcp.json")
    const mcp = await mcpOn(path)
    const results = await Promise.all(upTo(5).map((i) => mcp.callTool({ name: "post", arguments: { channel: "general", text: `tool call ${i}` } })))
    const summaries = results.map((r) => (r.content as Array<{ text: string }>)[0]!.text)
    expect(results.map((r) => r.isError === true), summaries.join("\n")).toEqual(upTo(5).map(() => false))
    const chain = await chainOf(path)
    expect(chain.seq).toBe(5)
    expect(chain.seqs).toEqual(upTo(5))
    const verified = await mcp.callTool({ name: "verify", arguments: { wait_seconds: 20 } })
    const report = JSON.parse((verified.content as Array<{ text: string }>)[1]!.text)
    expect(report.receipts.map((r: { status: string }) => r.status)).toEqual(upTo(5).map(() => "ok"))
    expect(report.missing_receipt_count).toBe(0)
  })
})

/** `aics mcp` on the key file, driven by the SDK's client (closed after the tests). */
const mcpOn = async (path: string): Promise<Client> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--key", path],
    env: { PATH: process.env["PATH"] ?? "", AICS_SERVER: world.server.baseUrl, AICS_LOG_VKEY: world.vkey },
    stderr: "pipe"
  })
  const mcp = new Client({ name: "aics-test", version: "1.0.0" })
  await mcp.connect(transport)
  mcpClients.push(mcp)
  return mcp
}

describe("verify of a key file that lost receipts", () => {
  it("names the seqs its chain counts but it keeps no receipt of", async () => {
    const path = await newKeyFile("lossy.json")
    const indexes: Array<number> = []
    for (const i of upTo(4)) {
      const posted = await postText(client, path, "general", `post ${i}`)
      if (posted._tag !== "Accepted") throw new Error(`post ${i} refused: ${posted.code}`)
      indexes.push(posted.receipt.index)
    }
    // What two unserialized writes did: receipts gone (seq 1 in the middle, seq 3 the last),
    // the chain position still past them.
    const json = JSON.parse(await readFile(path, "utf8")) as { receipts: Array<{ seq: number }> }
    json.receipts = json.receipts.filter((r) => r.seq !== 1 && r.seq !== 3)
    await writeFile(path, JSON.stringify(json, null, 2) + "\n", { mode: 0o600 })

    const key = await readAgentKeyFile(path)
    const report = await verifyLog(client, key, { waitMs: 20_000 })
    expect(report.receipts.map((r) => [r.seq, r.status])).toEqual([[0, "ok"], [2, "ok"]])
    expect(report.missingReceipts).toEqual([{ kid: key.kid, seqs: [1, 3] }])
    expect(report.missingReceiptCount).toBe(2)
    // The log kept its promises: the file is what is short.
    expect(report.ok).toBe(true)

    const run = ok(await world.aics(["verify", "--key", "lossy.json", "--wait", "20"]))
    expect(run.out).toMatch(/2 of 2 receipts verified\n2 receipts missing from the key file \(seq 1, 3 of did:key:\S+\): /)
    const printed = JSON.parse(ok(await world.aics(["verify", "--key", "lossy.json", "--wait", "20", "--json"])).out)
    // snake_case, as every other answer of the CLI and the service; the MCP tool answers the same shape.
    expect(printed).toMatchObject({ missing_receipt_count: 2, missing_receipts: [{ kid: key.kid, seqs: [1, 3] }], key_file: "lossy.json" })
    expect(printed).not.toHaveProperty("missingReceipts")
    // The MCP tool says it in the line the model reads first.
    const verified = await (await mcpOn(path)).callTool({ name: "verify", arguments: { wait_seconds: 20 } })
    expect((verified.content as Array<{ text: string }>)[0]!.text).toMatch(/; 2 receipts missing from the key file \(seq 1, 3 of did:key:/)
    // In this server's words: its receipt tool, with each one's leaf (the key view's), not the CLI's command.
    const summary = (verified.content as Array<{ text: string }>)[0]!.text
    expect(summary).toContain(`call the receipt tool with index ${indexes[1]} (seq 1) and index ${indexes[3]} (seq 3) to fetch each again`)
    expect(summary).not.toMatch(/aics receipt/)
    const answered = JSON.parse((verified.content as Array<{ text: string }>)[1]!.text)
    expect(answered).toMatchObject({ missing_receipt_count: 2, missing_receipts: [{ kid: key.kid, seqs: [1, 3] }] })
    expect(Object.keys(answered).sort()).toEqual(Object.keys(printed).sort())
  })
})
