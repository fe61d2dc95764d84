// A lost receipt fetched again by the client (src/client/reissuedReceipt.ts; docs/protocol.md
// 8.3), against the real service: the library's fetchReceipt checks the note with the log
// key and the entry with its inclusion proof, and refuses an answer whose note or members do
// not hold; `aics receipt <index>` (the compiled CLI) keeps it in the key file exactly as the
// lost 202 would have, fills a receipt `aics verify` reports missing, and says when the entry
// is no key's of the file or the index is past the tree.

import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { ClientError } from "../../src/client/errors.js"
import { serviceAt } from "../../src/client/http.js"
import { fetchReceipt, keptReissued } from "../../src/client/reissuedReceipt.js"
import type { LogClient } from "../../src/client/write.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { formatVerifierKey, makeVerifierKey, parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { makeAgent } from "../support/agents.js"
import { type CliWorld, ok, runAics, startCliWorld } from "../support/aicsCli.js"
import { sendEntry } from "../support/signedHttp.js"

let world: CliWorld

beforeAll(async () => {
  world = await startCliWorld("aics-cli-receipt-")
}, 60_000)

afterAll(async () => {
  await world?.stop()
})

const keyFile = (name: string) => join(world.agentsDir, name)
const text = (name: string) => readFile(keyFile(name), "utf8")

/** A client of the service whose answers to GET .../receipt pass through `tamper` first. */
const clientWith = (tamper: (answer: any) => any, vkey = world.vkey): LogClient => ({
  service: serviceAt(world.server.baseUrl, async (input, init) => {
    const response = await fetch(input, init)
    if (!String(input).endsWith("/receipt") || response.status !== 200) return response
    return new Response(JSON.stringify(tamper(await response.json())), { status: 200, headers: { "content-type": "application/json" } })
  }),
  vkey: parseVerifierKey(nodeCrypto.sha256, vkey)!
})

describe("a lost receipt, fetched again", () => {
  let index: number
  let afterPost: string
  let claimed: { index: number; receipt_note: string }

  it("is kept by aics receipt exactly as the lost 202 would have left the key file", async () => {
    ok(await world.aics(["keygen", "--key", "alice.json"]))
    claimed = await world.json(["claim", `alice${Date.now() % 100000}`, "--key", "alice.json"])
    const beforePost = await text("alice.json")
    const posted = await world.json<{ index: number; receipt_note: string; seq: number }>(["post", "general", "an answer lost on the way", "--key", "alice.json"])
    index = posted.index
    afterPost = await text("alice.json")
    // The 202 never arrived: the file is as it was before the post.
    await writeFile(keyFile("alice.json"), beforePost)

    const again = await world.json(["receipt", String(index), "--key", "alice.json"])
    expect(again).toMatchObject({ index, seq: 1, type: "post", receipt_note: posted.receipt_note, kept: "added", key_file: "alice.json" })
    // Byte for byte the file the write would have saved: the receipt, seq and prev.
    expect(await text("alice.json")).toBe(afterPost)
    const line = ok(await world.aics(["receipt", String(index), "--key", "alice.json"])).out
    expect(line).toMatch(new RegExp(`^entry ${index}: post by did:key:\\S+ \\(seq 1, logged .*\\): receipt verified, signed by the log key; the entry is included in the checkpoint of size \\d+\\n`))
    expect(line).toContain(`receipt_note ${posted.receipt_note}\nalice.json holds it already\n`)
    expect(await text("alice.json")).toBe(afterPost)
  })

  it("names the key's name again when the lost answer was its claim's", async () => {
    ok(await world.aics(["keygen", "--key", "carol.json"]))
    const beforeClaim = await text("carol.json")
    const claim = await world.json<{ index: number }>(["claim", `carol${Date.now() % 100000}`, "--key", "carol.json"])
    const afterClaim = await text("carol.json")
    await writeFile(keyFile("carol.json"), beforeClaim)
    expect(await world.json(["receipt", String(claim.index), "--key", "carol.json"])).toMatchObject({ type: "claim", kept: "added" })
    // The name too, as the claim's 202 would have saved it: the same file, byte for byte.
    expect(await text("carol.json")).toBe(afterClaim)
  })

  it("fills a receipt aics verify reports missing", async () => {
    // The chain moved past the claim (synced from the log), but its receipt was lost.
    const key = JSON.parse(afterPost) as { receipts: Array<{ index: number }> }
    await writeFile(keyFile("alice.json"), JSON.stringify({ ...key, receipts: key.receipts.filter((r) => r.index !== claimed.index) }, null, 2) + "\n")
    const before = await world.json<{ missing_receipt_count: number }>(["verify", "--key", "alice.json"])
    expect(before.missing_receipt_count).toBe(1)
    expect(ok(await world.aics(["verify", "--key", "alice.json"])).out).toContain("aics receipt <index> fetches one again")
    expect(await world.json(["receipt", String(claimed.index), "--key", "alice.json"])).toMatchObject({ kept: "added", seq: 0, type: "claim" })
    expect(await world.json(["verify", "--key", "alice.json"])).toMatchObject({ missing_receipt_count: 0, ok: true })
    expect(await text("alice.json")).toBe(afterPost)
  })

  it("is printed, not kept, for an entry of another key or without a key file; a missing index is not_found", async () => {
    ok(await world.aics(["keygen", "--key", "bob.json"]))
    const bobFile = await text("bob.json")
    expect(await world.json(["receipt", String(index), "--key", "bob.json"])).toMatchObject({ kept: "not_ours", receipt_note: expect.any(String) })
    expect(await text("bob.json")).toBe(bobFile)
    // Without a key file at the default path: the receipt, verified, nothing kept.
    expect(await world.json(["receipt", "0"])).toMatchObject({ index: 0, type: "charter", kept: null, key_file: null })
    const missing = await runAics(["receipt", "99999", "--key", "alice.json", "--json"], { cwd: world.agentsDir, env: { AICS_SERVER: world.server.baseUrl, AICS_LOG_VKEY: world.vkey } })
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.out)).toMatchObject({ error: { kind: "not_found" } })
    expect(missing.err).toMatch(/404 entry_not_found/)
    expect((await world.aics(["receipt", "x"])).code).toBe(2)
  })

  it("is checked by the library against the log key and the leaf, whatever the service answers", async () => {
    const honest = await fetchReceipt(clientWith((a) => a), index)
    expect(honest.receipt).toMatchObject({ index, seq: 1, type: "post" })
    expect(honest.envelope).toMatchObject({ type: "post", seq: 1, kid: honest.kid })

    const refused = async (tamper: (answer: any) => any, message: RegExp, vkey?: string) => {
      const error = await fetchReceipt(clientWith(tamper, vkey), index).then(() => undefined, (e: unknown) => e)
      expect(error, String(message)).toBeInstanceOf(ClientError)
      expect((error as ClientError).kind).toBe("verification")
      expect((error as ClientError).message).toMatch(message)
    }
    // Members the note does not sign are checked against the leaf itself.
    await refused((a) => ({ ...a, entry: { ...a.entry, seq: 7 } }), /another type, key or seq/)
    await refused((a) => ({ ...a, entry: { ...a.entry, type: "claim" } }), /another type, key or seq/)
    // The note is about another leaf, another logged time, or signed by another key.
    await refused((a) => ({ ...a, receipt_note: claimed.receipt_note }), /names index/)
    await refused((a) => ({ ...a, entry: { ...a.entry, logged: a.entry.logged + 1 } }), /another logged time/)
    const otherKey = makeVerifierKey(nodeCrypto.sha256, "localhost/aics", nodeCrypto.ed25519.publicKey(generateAgentKey().seed))
    await expect(fetchReceipt(clientWith((a) => a, formatVerifierKey(otherKey)), index)).rejects.toMatchObject({ kind: "verification" })
    // A refusal note in place of the receipt (a refusal is never re-issued).
    const mallory = makeAgent(`receipt mallory ${Math.random()}`)
    const refusal = await sendEntry(world.server, "localhost/aics", "/v2/entries", mallory, "claim", { name: "admin", x25519: mallory.x25519 })
    expect(refusal.json.entry["refused"]).toBe("name_reserved")
    await refused((a) => ({ ...a, receipt_note: refusal.json.receipt_note }), /is a refusal/)
  })

  it("keeps a receipt with the key that signed it, a key the file rotated from too (pure)", () => {
    const key = { ...generateAgentKey(), origin: "localhost/aics", seq: 3 }
    const entry = { index: 9, leaf_hash: "h", logged: 1, type: "post", seq: 1, receipt_note: "x" }
    const reissued = (kid: string) => ({ receipt: entry, kid, envelope: { origin: "localhost/aics", seq: 1, kid } as any, checkpointSize: 10 })
    const retired = { kid: "did:key:zold", seed: "", seq: 2, prev: null, receipts: [], retired_by: 4, how: "rotate" as const }
    const withPrevious = { ...key, previous: [retired] }
    const kept = keptReissued(withPrevious, reissued("did:key:zold"))
    expect(kept.kept).toBe("added")
    expect(kept.key.previous[0]!.receipts).toEqual([entry])
    expect([kept.key.seq, kept.key.receipts]).toEqual([3, []])
    expect(keptReissued(kept.key, reissued("did:key:zold")).kept).toBe("held")
    // The current key behind the entry: none of the chain changes backwards.
    const current = keptReissued(key, reissued(key.kid))
    expect([current.kept, current.key.seq, current.key.prev, current.key.receipts]).toEqual(["added", 3, key.prev, [entry]])
    expect(keptReissued({ ...key, origin: "elsewhere/aics" }, reissued(key.kid)).kept).toBe("other_log")
  })
})
