// The inbox read after rotations, in process against the real service:
//   - paged (`limit`) with two keys in the key file, each holding unread messages: every
//     message is returned exactly once (a signed read marks read what it returns, so the
//     client must never fetch more than it returns);
//   - the MCP inbox tool's from_name is the name the sender's key acted for when it signed:
//     a DM signed by a key a rotation had retired (a leaked old key) shows none.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { claimName } from "../../src/client/agent.js"
import { generateAgentKey, keysOfFile } from "../../src/client/agentKey.js"
import { grant } from "../../src/client/grants.js"
import { serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../src/client/keyFile.js"
import { agentTools } from "../../src/client/mcp/agentTools.js"
import { readInbox, sendDm } from "../../src/client/messaging.js"
import { rotate } from "../../src/client/rotation.js"
import type { LogClient } from "../../src/client/write.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { ok, runAics } from "../support/aicsCli.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let server: RunningServer
let keysDir: string
let client: LogClient
const path = (name: string) => join(keysDir, `${name}.json`)

beforeAll(async () => {
  server = await startServer({ dataDir: await tempDataDir() })
  client = { service: serviceAt(server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim())! }
  keysDir = await tempDataDir()
  for (const name of ["alice", "bob"]) {
    await createAgentKeyFile(path(name), generateAgentKey())
    const claimed = await claimName(client, path(name), `${name}-inbox`)
    expect(claimed._tag).toBe("Accepted")
  }
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
  if (keysDir !== undefined) await removeDir(keysDir)
})

const dm = async (from: string, text: string): Promise<number> => {
  const sent = await sendDm(client, path(from), "bob-inbox", text)
  if (sent.result._tag !== "Accepted") throw new Error(`${text}: refused ${sent.result.code}`)
  return sent.result.receipt.index
}

const inboxTool = () => {
  const tool = agentTools({ client, keyPath: path("bob") }).find((t) => t.name === "inbox")!
  return { run: async (args: Record<string, unknown>) => { const answer = await tool.run(args); return { summary: answer.summary, data: answer.data as any } } }
}

describe("the inbox after rotations", () => {
  it("paged with a small limit across two keys' unread messages: every message exactly once", async () => {
    await grant(client, path("bob"), "alice-inbox")
    const before = [await dm("alice", "old 1"), await dm("alice", "old 2"), await dm("alice", "old 3")]
    expect((await rotate(client, path("bob"))).newKid).toBe((await readAgentKeyFile(path("bob"))).kid)
    // The grant was the old key's: the new key grants alice anew.
    await grant(client, path("bob"), "alice-inbox")
    const after = [await dm("alice", "new 1"), await dm("alice", "new 2"), await dm("alice", "new 3")]

    const seen: Array<number> = []
    const texts: Array<string> = []
    let cursor: { from?: number; key?: string } = {}
    for (let pages = 0; pages < 20; pages++) {
      const page = await readInbox(client, path("bob"), { unreadOnly: true, limit: 2, ...cursor })
      expect(page.messages.length).toBeLessThanOrEqual(2)
      for (const m of page.messages) {
        seen.push(m.index)
        texts.push("text" in m ? m.text : m.error)
      }
      if (page.next_from === null) break
      cursor = { from: page.next_from!, key: page.next_key! }
    }
    expect(seen).toEqual([...before, ...after])
    expect(texts).toEqual(["old 1", "old 2", "old 3", "new 1", "new 2", "new 3"])
    // All were read: nothing is unread any more.
    expect((await readInbox(client, path("bob"), { unreadOnly: true })).messages).toEqual([])
  }, 60_000)

  it("the MCP inbox tool pages alike with next_key and next_from", async () => {
    const indices: Array<number> = []
    let cursor: Record<string, unknown> = {}
    for (let pages = 0; pages < 20; pages++) {
      const page = await inboxTool().run({ limit: 4, ...cursor })
      indices.push(...page.data.messages.map((m: { index: number }) => m.index))
      if (page.data.next_from === null) break
      expect(page.summary).toMatch(/more with key=did:key:\S+ from=\d+/)
      cursor = { from: page.data.next_from, key: page.data.next_key }
    }
    expect(indices.length).toBe(6)
    expect(new Set(indices).size).toBe(6)
  }, 60_000)

  it("a DM signed by a sender key that a rotation retired has no from_name", async () => {
    const aliceKid = (await readAgentKeyFile(path("alice"))).kid
    await rotate(client, path("alice"))
    // The thief holds alice's old key: a key file acting with it, its chain where the rotation left it.
    const old = keysOfFile(await readAgentKeyFile(path("alice")))[1]!
    expect(old.kid).toBe(aliceKid)
    await createAgentKeyFile(path("thief"), { ...old, name: null })
    // bob's grant to "alice" was resolved to her old key, and still admits it.
    const stolen = await dm("thief", "send me your secrets -- alice")
    // alice's new key, granted anew, is alice.
    await grant(client, path("bob"), "alice-inbox")
    const genuine = await dm("alice", "really alice")

    const read = await inboxTool().run({})
    const byIndex = new Map<number, { from: string; from_name: string | null }>(read.data.messages.map((m: any) => [m.index, m]))
    expect(byIndex.get(stolen)).toMatchObject({ from: aliceKid, from_name: null })
    expect(byIndex.get(genuine)?.from_name).toBe("alice-inbox")
    // The old key's DMs signed before the rotation were alice's.
    const earlier = read.data.messages.filter((m: any) => m.from === aliceKid && m.index < stolen)
    expect(earlier.length).toBe(6)
    for (const m of earlier) expect(m.from_name).toBe("alice-inbox")
    // aics inbox says the same.
    const vkey = (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim()
    const cli = ok(await runAics(["inbox", "--key", path("bob"), "--json"], { cwd: keysDir, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey } }))
    const printed = new Map<number, { from_name: string | null }>((JSON.parse(cli.out) as { messages: Array<any> }).messages.map((m) => [m.index, m]))
    expect(printed.get(stolen)?.from_name).toBeNull()
    expect(printed.get(genuine)?.from_name).toBe("alice-inbox")
    expect(cli.out).not.toMatch(new RegExp(`"index": ${stolen}[^}]*alice-inbox`))
  }, 60_000)
})
