// Messaging end to end: the compiled aics command (dist/, built by the test runner's
// globalSetup) in child processes against the real service (test/support/server.ts).
//   - alice and bob grant each other and exchange encrypted DMs both ways;
//   - carol, with no grant, cannot message bob, finds nothing in her inbox, and cannot open
//     the ciphertext anyone can fetch at /v2/bodies/<ct_hash>;
//   - a revoked grant stops DMs;
//   - capsules: put, get, overwrite;
//   - the service's data folder never holds a plaintext (every file, byte for byte);
//   - rotate, then recover with the recovery key named in the claim: the name view follows
//     the key file, and messaging goes on with the new key;
//   - audit name folds the whole log from the tiles and agrees with the service's view.
// Agents' key files live in their own folder, apart from the service's data folder.

import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { nameViewFrom } from "../../src/app/identityViews.js"
import { foldLogFromTiles } from "../../src/client/audit.js"
import { fetchCheckpoint } from "../../src/client/checkpoint.js"
import { openDm } from "../../src/client/hpke.js"
import { serviceAt } from "../../src/client/http.js"
import { readInbox } from "../../src/client/messaging.js"
import { openReplayStore } from "../../src/client/replayStore.js"
import { decodeU64 } from "../../src/domain/encoding.js"
import { utf8 } from "../../src/domain/bytes.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { type AicsRun as Run, type CliWorld, ok, startCliWorld } from "../support/aicsCli.js"
import type { RunningServer } from "../support/server.js"

let world: CliWorld
let dataDir: string
let agentsDir: string
let server: RunningServer
let vkey: string

beforeAll(async () => {
  world = await startCliWorld("aics-agents-")
  ;({ dataDir, agentsDir, server, vkey } = world)
}, 60_000)

afterAll(async () => {
  await world?.stop()
})

/** Runs `aics <args>` in the agents' folder with the server and the out-of-band vkey. */
const aics = (args: ReadonlyArray<string>): Promise<Run> => world.aics(args)

const json = <T = Record<string, unknown>>(args: ReadonlyArray<string>): Promise<T> => world.json<T>(args)

const keyFile = async (name: string) =>
  JSON.parse(await readFile(join(agentsDir, name), "utf8")) as {
    kid: string
    seq: number
    prev: string | null
    name: string | null
    x25519: { secret: string; public: string }
    receipts: Array<{ index: number }>
    previous: Array<{ kid: string; how: string; retired_by: number | null; receipts: Array<{ index: number }> }>
  }

const nameView = async (name: string) => {
  const response = await fetch(`${server.baseUrl}/v2/names/${name}`)
  expect(response.status).toBe(200)
  return (await response.json()) as Record<string, unknown>
}

/** Every file under a folder, recursively. */
const filesUnder = async (dir: string): Promise<Array<string>> => {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? Promise.resolve([join(dir, e.name)]) : Promise.resolve([])))
  )
  return nested.flat()
}

const PLAINTEXTS = {
  aliceToBob: "the eagle lands at midnight (alice → bob) 🦅",
  bobToAlice: "copy that, bring the blue folder (bob → alice)",
  afterRotate: "still there after your rotation? (bob → alice)",
  afterRecover: "recovered and reachable (bob → alice)",
  capsule1: "capsule one: the combination is 31-41-59",
  capsule2: "capsule two: the combination changed to 26-53-58"
} as const

interface Written {
  readonly index: number
  readonly kid: string
}

const agents = { alice: "", bob: "", carol: "", rescue: "" }
const grants = { bobForAlice: -1, aliceForBob: -1 }
let dmAliceToBob: { index: number; ct_hash?: string } = { index: -1 }

describe("aics messaging end to end", () => {
  it("keys and names, one with a recovery key", async () => {
    for (const who of ["alice", "bob", "carol", "rescue"] as const) {
      agents[who] = (await json<{ kid: string }>(["keygen", "--key", `${who}.json`])).kid
    }
    const claim = await json<Written & { seq: number }>(["claim", "alice", "--key", "alice.json", "--recovery", agents.rescue])
    expect(claim.seq).toBe(0)
    expect((await keyFile("alice.json")).name).toBe("alice")
    ok(await aics(["claim", "bob", "--key", "bob.json"]))
    ok(await aics(["claim", "carol", "--key", "carol.json"]))
    const view = await nameView("alice")
    expect(JSON.stringify(view)).toContain(agents.alice)
  }, 120_000)

  it("two agents grant each other and exchange DMs both ways", async () => {
    const g1 = await json<Written & { sender: string }>(["grant", "alice", "--key", "bob.json"])
    expect(g1.sender).toBe(agents.alice)
    grants.bobForAlice = g1.index
    const g2 = await json<Written & { sender: string; limit: number }>(["grant", "bob", "--key", "alice.json", "--limit", "10"])
    expect([g2.sender, g2.limit]).toEqual([agents.bob, 10])
    grants.aliceForBob = g2.index

    const sent = await json<Written & { to: string; grant_index: number; x25519_index: number }>(["dm", "bob", PLAINTEXTS.aliceToBob, "--key", "alice.json"])
    expect([sent.to, sent.grant_index]).toEqual([agents.bob, grants.bobForAlice])
    dmAliceToBob = { index: sent.index }
    const human = ok(await aics(["dm", "alice", PLAINTEXTS.bobToAlice, "--key", "bob.json"]))
    expect(human.out).toMatch(/^sent an encrypted message to alice as entry \d+ \(grant \d+, key of entry \d+\) \(seq \d+, receipt verified\)$/m)

    // The logged entry is a dm with ciphertext only.
    const entry = await json<{ envelope: { type: string; kid: string; payload: Record<string, unknown> }; text: string | null; body: string }>(["get", String(sent.index)])
    expect(entry.envelope).toMatchObject({ type: "dm", kid: agents.alice, payload: { to: agents.bob, grant_index: grants.bobForAlice, x25519_index: sent.x25519_index } })
    expect(entry.envelope.payload["size"]).toBe(32 + utf8(PLAINTEXTS.aliceToBob).length + 16)
    expect(entry.body).not.toContain(Buffer.from(PLAINTEXTS.aliceToBob).toString("base64url").slice(0, 12))
    dmAliceToBob = { index: sent.index, ct_hash: String(entry.envelope.payload["ct_hash"]) }

    const bobInbox = await json<{ messages: Array<{ index: number; from: string; text?: string }>; failed: number }>(["inbox", "--key", "bob.json"])
    expect(bobInbox.failed).toBe(0)
    expect(bobInbox.messages).toContainEqual(expect.objectContaining({ index: sent.index, from: agents.alice, text: PLAINTEXTS.aliceToBob }))
    const aliceInbox = ok(await aics(["inbox", "--key", "alice.json"])).out
    // The sender shows by its name, with the did:key that signed.
    expect(aliceInbox).toContain(`from bob (${agents.bob}): ${PLAINTEXTS.bobToAlice}`)
    expect(aliceInbox).toMatch(/^1 message$/m)
  }, 120_000)

  it("a third agent can neither message without a grant, nor read the messages", async () => {
    const refused = await aics(["dm", "bob", "let me in", "--key", "carol.json"])
    // A refusal, not a usage error (aics help: 1 refused or failed, 2 usage error).
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/^error \(refused\): .*no grant in force/)
    const inbox = await json<{ messages: Array<unknown> }>(["inbox", "--key", "carol.json"])
    expect(inbox.messages).toEqual([])

    // The ciphertext is public; only bob's X25519 key opens it.
    const response = await fetch(`${server.baseUrl}/v2/bodies/${dmAliceToBob.ct_hash}`)
    expect(response.status).toBe(200)
    const ct = new Uint8Array(await response.arrayBuffer())
    const context = { from: agents.alice, to: agents.bob, origin: vkey.split("+")[0]! }
    const carolSecret = decodeU64((await keyFile("carol.json")).x25519.secret)!
    await expect(openDm(carolSecret, context, ct)).rejects.toThrow(/does not open/)
    const bobSecret = decodeU64((await keyFile("bob.json")).x25519.secret)!
    expect(Buffer.from(await openDm(bobSecret, context, ct)).toString("utf8")).toBe(PLAINTEXTS.aliceToBob)
  }, 120_000)

  it("a revoked grant stops DMs", async () => {
    const carolGrant = await json<Written>(["grant", "carol", "--key", "bob.json"])
    ok(await aics(["dm", "bob", "hello from carol", "--key", "carol.json"]))
    ok(await aics(["revoke", String(carolGrant.index), "--key", "bob.json"]))
    const after = await aics(["dm", "bob", "hello again from carol", "--key", "carol.json"])
    expect(after.code).not.toBe(0)
    const inbox = await json<{ messages: Array<{ index: number; text?: string }> }>(["inbox", "--key", "bob.json"])
    expect(inbox.messages.map((m) => m.text)).toContain("hello from carol")
    expect(inbox.messages.map((m) => m.text)).not.toContain("hello again from carol")

    // The inbox read a page at a time (what aics inbox does past the service's page of
    // 1000): with pages of one message, next_from leads through every message, each decrypted.
    const client = { service: serviceAt(server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, vkey)! }
    const paged = await readInbox(client, join(agentsDir, "bob.json"), { pageSize: 1 })
    expect(inbox.messages.length).toBeGreaterThanOrEqual(2)
    expect(paged.failed).toBe(0)
    expect(paged.messages.map((m) => [m.index, "text" in m ? m.text : m.error])).toEqual(inbox.messages.map((m) => [m.index, m.text]))
  }, 120_000)

  it("capsules: put, get, overwrite", async () => {
    const put = await json<Written & { slot: string }>(["capsule", "put", "vault", PLAINTEXTS.capsule1, "--key", "alice.json"])
    const got = await json<{ slot: string; text: string; kid: string }>(["capsule", "get", "vault", "--key", "alice.json"])
    expect(got).toMatchObject({ slot: put.slot, text: PLAINTEXTS.capsule1, kid: agents.alice })
    ok(await aics(["capsule", "put", "vault", PLAINTEXTS.capsule2, "--key", "alice.json"]))
    const human = ok(await aics(["capsule", "get", "vault", "--key", "alice.json"])).out
    expect(human.trimEnd().endsWith(PLAINTEXTS.capsule2)).toBe(true)
    const missing = await aics(["capsule", "get", "no-such-slot", "--key", "alice.json"])
    expect(missing.code).toBe(1)
  }, 120_000)

  it("rotate, then recover with the recovery key; messaging follows the new keys", async () => {
    const before = await keyFile("alice.json")
    const rotated = await json<Written & { new_kid: string; old_kid: string }>(["rotate", "--key", "alice.json"])
    expect(rotated.old_kid).toBe(before.kid)
    const afterRotate = await keyFile("alice.json")
    expect(afterRotate).toMatchObject({ kid: rotated.new_kid, seq: 0, prev: null, name: "alice" })
    expect(afterRotate.previous.map((p) => [p.kid, p.how, p.retired_by])).toEqual([[before.kid, "rotate", rotated.index]])
    expect(afterRotate.x25519).toEqual(before.x25519)
    expect(JSON.stringify(await nameView("alice"))).toContain(rotated.new_kid)
    const rotateEntry = await json<{ envelope: { type: string; kid: string; payload: Record<string, unknown> } }>(["get", String(rotated.index)])
    expect(rotateEntry.envelope).toMatchObject({ type: "key.rotate", kid: before.kid, payload: { name: "alice", new_kid: rotated.new_kid } })

    // The new key writes from seq 0, grants bob again, and reads bob's next message.
    const regrant = await json<Written & { seq: number }>(["grant", "bob", "--key", "alice.json"])
    expect(regrant.seq).toBe(0)
    ok(await aics(["dm", "alice", PLAINTEXTS.afterRotate, "--key", "bob.json"]))
    expect(ok(await aics(["inbox", "--key", "alice.json"])).out).toContain(PLAINTEXTS.afterRotate)

    // Recovery: the rescue key moves the name to another new key.
    const recovered = await json<Written & { new_kid: string; old_kid: string }>(["recover", "--key", "alice.json", "--recovery-key", "rescue.json"])
    expect(recovered.old_kid).toBe(rotated.new_kid)
    const afterRecover = await keyFile("alice.json")
    expect(afterRecover).toMatchObject({ kid: recovered.new_kid, seq: 0, prev: null })
    expect(afterRecover.previous.map((p) => p.how)).toEqual(["rotate", "recover"])
    expect((await keyFile("rescue.json")).seq).toBe(1)
    const recoverEntry = await json<{ envelope: { type: string; kid: string } }>(["get", String(recovered.index)])
    expect(recoverEntry.envelope).toMatchObject({ type: "key.rotate", kid: agents.rescue })
    expect(JSON.stringify(await nameView("alice"))).toContain(recovered.new_kid)

    ok(await aics(["grant", "bob", "--key", "alice.json"]))
    ok(await aics(["dm", "alice", PLAINTEXTS.afterRecover, "--key", "bob.json"]))
    expect(ok(await aics(["inbox", "--key", "alice.json"])).out).toContain(PLAINTEXTS.afterRecover)
    // A key cannot rotate another agent's name: refused by the log, status 1.
    const foreign = await aics(["rotate", "--key", "alice.json", "--name", "bob"])
    expect(foreign.code).toBe(1)
    expect(foreign.err).toMatch(/^refused 403 not_authorized: /)
    expect((await keyFile("alice.json")).kid).toBe(recovered.new_kid)
  }, 180_000)

  it("audit name agrees with the service for every name", async () => {
    for (const name of ["alice", "bob", "carol"]) {
      const report = await json<{ ok: boolean; differences: Array<unknown>; problems: Array<string>; entries_folded: number }>(["audit", "name", name])
      expect(report.problems).toEqual([])
      expect(report.differences).toEqual([])
      expect(report.ok).toBe(true)
      expect(report.entries_folded).toBeGreaterThan(10)
    }
    expect(ok(await aics(["audit", "name", "alice"])).out).toMatch(/the name view of alice at size \d+ agrees with the log\n$/)
  }, 120_000)

  it("the whole log folds from the tiles with the sequencer's rules, and names the key files' keys", async () => {
    const client = { service: serviceAt(server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, vkey)! }
    const files = await Promise.all(["alice.json", "bob.json", "carol.json", "rescue.json"].map(keyFile))
    const last = Math.max(...files.flatMap((f) => [...f.receipts, ...f.previous.flatMap((p) => p.receipts)].map((r) => r.index)))
    let checkpoint = await fetchCheckpoint(client.service, client.vkey)
    for (let tries = 0; checkpoint.size <= last && tries < 40; tries++) {
      await new Promise((done) => setTimeout(done, 250))
      checkpoint = await fetchCheckpoint(client.service, client.vkey)
    }
    const store = await openReplayStore()
    try {
      const fold = await foldLogFromTiles(client, checkpoint, store)
      expect(fold.problems).toEqual([])
      expect(fold.folded).toBe(checkpoint.size)
      for (const [name, file] of [["alice", files[0]!], ["bob", files[1]!], ["carol", files[2]!]] as const) {
        const view = Either.getOrThrow(await store.run(nameViewFrom(store.views.reader.sliceFor, name)))
        expect(view.kid, name).toBe(file.kid)
        expect(view.x25519, name).toBe(file.x25519.public)
      }
    } finally {
      await store.close()
    }
  }, 60_000)

  it("the service's data folder never holds a plaintext", async () => {
    const files = await filesUnder(dataDir)
    expect(files.length).toBeGreaterThan(0)
    const needles = [...Object.values(PLAINTEXTS), "hello from carol"].map((p) => Buffer.from(p, "utf8"))
    for (const file of files) {
      const bytes = await readFile(file)
      for (const needle of needles) expect(bytes.includes(needle), `${file} holds "${needle.toString()}"`).toBe(false)
    }
  }, 60_000)
})
