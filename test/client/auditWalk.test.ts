// The audit tools against a dishonest proxy in front of a real service (the auditor's walk):
// a small HTTP server that forwards every request and alters some answers. What the
// service's word alone would let through must be caught by the leaves and proofs behind it,
// and what no leaf can show must be said as not checked.
//   - `aics name`: a view whose kid was replaced, or whose kid_index points at a leaf that
//     does not bind that key to the name, is an error; a stale view (before a rotation, with
//     its own older checkpoint) cannot be caught by its own leaves, and the lines say exactly
//     what was checked and how far behind the latest checkpoint the view's is; `aics audit
//     name` reports the later key events; a consistency proof that does not join the view's
//     checkpoint to the latest is an error.
//   - `aics verify`: an entry bundle serving other bytes than the hash tiles hold at a
//     receipt's index fails that receipt.

import { createServer, type Server } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { claimName, postText, writeWithKeyFile } from "../../src/client/agent.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { fetchCheckpoint } from "../../src/client/checkpoint.js"
import { serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile } from "../../src/client/keyFile.js"
import { rotate } from "../../src/client/rotation.js"
import type { LogClient, WriteResult } from "../../src/client/write.js"
import { decodeEntryBundle, encodeEntryBundle } from "../../src/domain/tlog/entryBundle.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { ok, runAics, startCliWorld, type CliWorld } from "../support/aicsCli.js"

let world: CliWorld
let client: LogClient

/** What the proxy alters: given the request path and the upstream answer's body, the body to answer instead (or undefined: as is). */
type Alter = (path: string, body: Buffer) => Buffer | undefined
let alter: Alter | undefined
let proxy: Server
let proxyUrl: string

const facts = {
  aliceOld: "", aliceNew: "", bob: "",
  claim: -1, bobClaim: -1, x25519: -1, x25519Key: "", post: -1, rotation: -1, last: -1,
  /** The name view of alice before its key.x25519 and rotation, as the service answered it then. */
  stale: {} as Record<string, unknown>
}

const indexOf = (result: WriteResult): number => {
  if (result._tag !== "Accepted") throw new Error(`refused: ${result.code} ${result.detail}`)
  return result.receipt.index
}

beforeAll(async () => {
  world = await startCliWorld("aics-audit-walk-")
  client = { service: serviceAt(world.server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, world.vkey)! }
  const alicePath = join(world.agentsDir, "alice.json")
  const bobPath = join(world.agentsDir, "bob.json")
  const alice = generateAgentKey()
  const bob = generateAgentKey()
  await createAgentKeyFile(alicePath, alice)
  await createAgentKeyFile(bobPath, bob)
  facts.aliceOld = alice.kid
  facts.bob = bob.kid
  facts.claim = indexOf(await claimName(client, alicePath, "alice"))
  facts.bobClaim = indexOf(await claimName(client, bobPath, "bob"))
  facts.stale = (await (await fetch(`${world.server.baseUrl}/v2/names/alice`)).json()) as Record<string, unknown>
  // A new X25519 key, set by alice's first key: the rotation keeps it.
  facts.x25519Key = generateAgentKey().x25519Public
  facts.x25519 = indexOf(await writeWithKeyFile(client, alicePath, () => ({ type: "key.x25519", payload: { name: "alice", x25519: facts.x25519Key }, body: null })))
  facts.post = indexOf(await postText(client, bobPath, "general", "a post: a leaf that binds no key"))
  const rotation = await rotate(client, alicePath)
  facts.aliceNew = rotation.newKid
  facts.rotation = indexOf(rotation.result!)
  // One leaf after the rotation, published: the view's checkpoint is then one leaf behind the latest.
  facts.last = indexOf(await postText(client, bobPath, "general", "after the rotation"))
  while ((await fetchCheckpoint(client.service, client.vkey)).size <= facts.last) await new Promise((r) => setTimeout(r, 100))

  proxy = createServer((request, response) => {
    const path = request.url ?? "/"
    fetch(`${world.server.baseUrl}${path}`, { method: request.method ?? "GET", headers: { accept: request.headers.accept ?? "*/*" } })
      .then(async (upstream) => {
        const body = Buffer.from(await upstream.arrayBuffer())
        const altered = upstream.status === 200 ? alter?.(path, body) : undefined
        const headers: Record<string, string> = {}
        upstream.headers.forEach((value, name) => {
          if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name)) headers[name] = value
        })
        response.writeHead(upstream.status, headers).end(altered ?? body)
      })
      .catch(() => response.writeHead(502).end())
  })
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  const address = proxy.address()
  proxyUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
}, 120_000)

afterAll(async () => {
  if (proxy !== undefined) await new Promise((resolve) => proxy.close(resolve))
  await world?.stop()
})

/** `aics <args>` through the proxy, with the log's verifier key given out of band. */
const aics = (args: ReadonlyArray<string>) => runAics([...args, "--server", proxyUrl, "--vkey", world.vkey], { cwd: world.agentsDir, timeoutMs: 60_000 })

/** The proxy answers a name's view (alice's by default) as `edit` makes it (from the service's own, or from `base`). */
const nameViewAs = (edit: (view: Record<string, unknown>) => void, base?: Record<string, unknown>, name = "alice"): Alter => (path, body) => {
  if (path !== `/v2/names/${name}`) return undefined
  const view = structuredClone(base ?? (JSON.parse(body.toString("utf8")) as Record<string, unknown>))
  edit(view)
  return Buffer.from(JSON.stringify(view))
}

describe("aics name behind a dishonest proxy", () => {
  it("checks the leaf that set the key too, and says what it checked and what it could not", async () => {
    alter = undefined
    const run = ok(await aics(["name", "alice"]))
    const lines = run.out.split("\n")
    expect(lines[0]).toBe(`alice: key ${facts.aliceNew} (set by the key.rotate at entry ${facts.rotation})`)
    // The X25519 key was set by the key before the rotation: an earlier key of the name, as the log allowed.
    expect(lines[1]).toBe(`x25519 ${facts.x25519Key} (set by entry ${facts.x25519})`)
    expect(lines[2]).toBe(
      `checked: leaves ${facts.rotation} and ${facts.x25519} signed, included under the name view's log-signed checkpoint of size ${facts.rotation + 1}, ` +
        `1 leaf behind the latest checkpoint (size ${facts.last + 1}) and consistent with it, and binding this key and X25519 key to alice`
    )
    expect(lines[3]).toBe(
      `not checked: a later rotation (after leaf ${facts.rotation}) or X25519 key (after leaf ${facts.x25519}) would show only in a fold of the whole log (aics audit name alice)`
    )
    const json = JSON.parse(ok(await aics(["name", "alice", "--json"])).out)
    expect(json).toMatchObject({
      name: "alice", kid: facts.aliceNew, kid_index: facts.rotation, kid_set_by: "key.rotate", x25519: facts.x25519Key, x25519_index: facts.x25519,
      checkpoint_size: facts.rotation + 1, checkpoint_from_view: true, latest_checkpoint_size: facts.last + 1
    })
  }, 60_000)

  it("is an error when the view's kid is not the one its kid_index leaf binds to the name", async () => {
    // bob never rotated and has no key.x25519: only its kid leaf (its claim) tells the replaced key apart.
    alter = nameViewAs((v) => void (v["kid"] = facts.aliceNew), undefined, "bob")
    const replaced = await aics(["name", "bob"])
    expect(replaced.code).toBe(1)
    expect(replaced.err).toContain(`error (verification): the leaf the view of bob says set its key ${facts.aliceNew}, entry ${facts.bobClaim}, is a claim that binds ${facts.bob} to bob, not ${facts.aliceNew}`)
    alter = undefined
    expect(ok(await aics(["name", "bob"])).out).toContain(`bob: key ${facts.bob} (set by the claim at entry ${facts.bobClaim})`)

    const cases: Array<[string, Alter, string]> = [
      ["another key", nameViewAs((v) => void (v["kid"] = facts.bob)),
        `the leaf the view of alice says set its key ${facts.bob}, entry ${facts.rotation}, is a key.rotate that binds ${facts.aliceNew} to alice, not ${facts.bob}`],
      ["another name's claim", nameViewAs((v) => Object.assign(v, { kid: facts.bob, kid_index: facts.bobClaim })),
        `entry ${facts.bobClaim}, is about the name bob`],
      ["a leaf that binds no key", nameViewAs((v) => void (v["kid_index"] = facts.post)),
        `entry ${facts.post}, is a post, not a claim or a key.rotate`],
      ["a leaf past the view's checkpoint", nameViewAs((v) => void (v["kid_index"] = facts.last)),
        `is leaf ${facts.last}, past the checkpoint of size ${facts.rotation + 1} it is checked under`],
      ["the old key with the new view's leaves", nameViewAs((v) => void (v["kid"] = facts.aliceOld)),
        `is a key.rotate that binds ${facts.aliceNew} to alice, not ${facts.aliceOld}`]
    ]
    for (const [what, edit, message] of cases) {
      alter = edit
      const run = await aics(["name", "alice"])
      expect(run.code, what).toBe(1)
      expect(run.err, what).toMatch(/^error \(verification\): /)
      expect(run.err, what).toContain(message)
      expect(run.out, what).toBe("")
    }
    alter = nameViewAs((v) => void delete v["kid_index"])
    const without = await aics(["name", "alice"])
    expect(without.code).toBe(1)
    expect(without.err).toContain("error (protocol): GET /v2/names/alice: the view lacks kid_index")
  }, 120_000)

  it("says how far behind a stale view's checkpoint is; audit name shows the later key events", async () => {
    // The view from before the key.x25519 and the rotation, with its own (older, log-signed) checkpoint.
    alter = nameViewAs(() => undefined, facts.stale)
    const run = ok(await aics(["name", "alice"]))
    expect(run.out).toContain(`alice: key ${facts.aliceOld} (set by the claim at entry ${facts.claim})`)
    expect(run.out).toContain(
      `checked: leaf ${facts.claim} signed, included under the name view's log-signed checkpoint of size ${facts.claim + 1}, ` +
        `${facts.last - facts.claim} leaves behind the latest checkpoint (size ${facts.last + 1}) and consistent with it`
    )
    expect(run.out).toContain(`not checked: a later rotation (after leaf ${facts.claim}) or X25519 key (after leaf ${facts.claim}) would show only in a fold of the whole log (aics audit name alice)`)
    expect(JSON.parse(ok(await aics(["name", "alice", "--json"])).out)).toMatchObject({ kid: facts.aliceOld, kid_index: facts.claim, checkpoint_size: facts.claim + 1, latest_checkpoint_size: facts.last + 1 })

    // What the lines point to does show it.
    const audit = await aics(["audit", "name", "alice"])
    expect(audit.code).toBe(1)
    expect(audit.out).toContain(`STALE: the log holds a key.x25519 of alice at leaf ${facts.x25519}, past the view's size ${facts.claim + 1}`)
    expect(audit.out).toContain(`STALE: the log holds a key.rotate of alice at leaf ${facts.rotation}, past the view's size ${facts.claim + 1}`)
    expect(audit.err).toContain(`first: a later key.x25519 at leaf ${facts.x25519}: the view is stale`)
    const report = JSON.parse((await aics(["audit", "name", "alice", "--json"])).out)
    expect(report).toMatchObject({ ok: false, differences: [], problems: [] })
    expect(report.later_key_events).toEqual([{ index: facts.x25519, type: "key.x25519" }, { index: facts.rotation, type: "key.rotate" }])
    // The honest view is not stale.
    alter = undefined
    expect(JSON.parse(ok(await aics(["audit", "name", "alice", "--json"])).out)).toMatchObject({ ok: true, later_key_events: [] })
  }, 120_000)

  it("is an error when no consistency proof joins the view's checkpoint to the latest", async () => {
    const stale = nameViewAs(() => undefined, facts.stale)
    alter = (path, body) => {
      if (!path.startsWith("/v2/tlog/consistency")) return stale(path, body)
      const proof = JSON.parse(body.toString("utf8")) as { hashes: Array<string> }
      // Another first hash: the proof no longer joins the two signed roots.
      proof.hashes[0] = Buffer.alloc(32, 7).toString("base64")
      return Buffer.from(JSON.stringify(proof))
    }
    const run = await aics(["name", "alice"])
    expect(run.code).toBe(1)
    expect(run.err).toContain(`error (verification): the name view's checkpoint of alice (size ${facts.claim + 1}) and the latest checkpoint (size ${facts.last + 1}) are not one history`)
  }, 60_000)

  it("is an error when the inclusion proof under the view's checkpoint does not verify", async () => {
    alter = (path, body) => {
      if (!path.startsWith("/v2/tlog/inclusion")) return undefined
      const proof = JSON.parse(body.toString("utf8")) as { hashes: Array<string> }
      proof.hashes[0] = Buffer.alloc(32, 9).toString("base64")
      return Buffer.from(JSON.stringify(proof))
    }
    const run = await aics(["name", "alice"])
    expect(run.code).toBe(1)
    expect(run.err).toContain(`is not included under the checkpoint of size ${facts.rotation + 1} by the proof given`)
  }, 60_000)
})

describe("aics verify behind a dishonest proxy", () => {
  it("reads each receipt's entry from its bundle: a bundle serving other bytes than the tiles hash fails that receipt", async () => {
    alter = undefined
    const honest = ok(await aics(["verify", "--key", "bob.json"]))
    expect(honest.out).toMatch(/signature ok, hash tiles rebuild the root \(\d+ tiles\)\n/)
    expect(honest.out).toContain("entry contents are not checked here but the receipts' own (1 entry bundle read)")
    expect(honest.out).toContain(`entry ${facts.post} post seq 1: ok (included in the checkpoint of size`)
    // The proxy changes one byte of bob's post in the bundle, and nothing in the hash tiles.
    alter = (path, body) => {
      if (!path.startsWith("/tiles/tile/entries/")) return undefined
      const entries = decodeEntryBundle(new Uint8Array(body))!.map((e) => e.slice())
      const post = entries[facts.post % 256]!
      // The channel, in the leaf (the text is off the leaf, named by its hash).
      const at = Buffer.from(post).indexOf('"general"')
      expect(at).toBeGreaterThan(0)
      post[at + 1] = "G".charCodeAt(0)
      return Buffer.from(encodeEntryBundle(entries))
    }
    const run = await aics(["verify", "--key", "bob.json", "--json"])
    expect(run.code).toBe(1)
    expect(run.err).toContain(`(first: entry ${facts.post}: the entry bundle serves other bytes at index ${facts.post} than the receipt's leaf, which the hash tiles hold)`)
    const report = JSON.parse(run.out) as { ok: boolean; bundles_fetched: number; receipts: Array<{ index: number; status: string }> }
    expect(report.ok).toBe(false)
    expect(report.bundles_fetched).toBe(1)
    expect(report.receipts.map((r) => [r.index, r.status])).toEqual([[facts.bobClaim, "ok"], [facts.post, "failed"], [facts.last, "ok"]])
  }, 60_000)
})
