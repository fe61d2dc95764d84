// The audit tools against a dishonest proxy in front of a real service (the auditor's walk):
// a small HTTP server that forwards every request and alters some answers. What the
// service's word alone would let through must be caught by the leaves and proofs behind it,
// and what no leaf can show must be said as not checked.
//   - `aics name`: a view whose kid was replaced, or whose kid_index points at a leaf that
//     does not bind that key to the name, is an error; a stale view (before a rotation, with
//     its own older checkpoint) cannot be caught by its own leaves, and the lines say exactly
//     what was checked and how far behind the latest checkpoint the view's is; `aics audit
//     name` reports the later key events; a consistency proof that does not join the view's
//     checkpoint to the latest is the service's error, when the tiles show the two are one history.
//   - `aics verify`: an entry bundle serving other bytes than the hash tiles hold at a
//     receipt's index fails that receipt.
//   - `aics name` and the MCP lookup_name tool of a name without an X25519 key (x25519 "",
//     x25519_index null): a secret-bound name claimed through the text gate (TLS), whose key
//     leaf is the policy key's claim with `as`, checked against leaf 0's policy key, and a
//     name upgraded from one to a key that has sent no key.x25519; both said to receive no
//     DMs, and a DM or grant to them stopped before anything is written.

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
import { getEntry } from "../../src/client/read.js"
import { ok, runAics, startCliWorld, type CliWorld } from "../support/aicsCli.js"
import { callTool, connectAicsMcp } from "../support/mcpClient.js"
import { startLyingProxy } from "../support/lyingProxy.js"
import { field, GateConnection, lastLine } from "../support/gateClient.js"
import { Ed25519Key, u64, utf8 } from "../support/outsideOwner.js"

let world: CliWorld
let client: LogClient

/** What the proxy alters: given the request path and the upstream answer's body, the body to answer instead (or undefined: as is). */
type Alter = (path: string, body: Buffer) => Buffer | undefined
let alter: Alter | undefined
let proxy: Awaited<ReturnType<typeof startLyingProxy>> | undefined
let proxyUrl: string

const facts = {
  aliceOld: "", aliceNew: "", bob: "",
  claim: -1, bobClaim: -1, x25519: -1, x25519Key: "", post: -1, rotation: -1, last: -1,
  /** The name view of alice before its key.x25519 and rotation, as the service answered it then. */
  stale: {} as Record<string, unknown>,
  /** walk-sam: secret-bound (claimed through the gate with a secret); walk-una: secret-bound, then upgraded to its own key, which sent no key.x25519. */
  policyKid: "", samClaim: -1, unaClaim: -1, unaUpgrade: -1, unaKid: ""
}

const SECRET = "a-long-enough-secret-for-the-walk"
const gateAccepted = (lines: ReadonlyArray<string>): number => {
  const match = /^ok accepted (\d+) /.exec(lastLine(lines))
  if (match === null) throw new Error(`not accepted: ${lines.join(" | ")}`)
  return Number(match[1])
}

const indexOf = (result: WriteResult): number => {
  if (result._tag !== "Accepted") throw new Error(`refused: ${result.code} ${result.detail}`)
  return result.receipt.index
}

beforeAll(async () => {
  world = await startCliWorld("aics-audit-walk-", { gate: true })
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
  // Two secret-bound names through the text gate over TLS; the second upgraded to a key of its own.
  facts.policyKid = String((await getEntry(client, 0)).envelope.payload["policy_kid"])
  const gate = await GateConnection.open(world.gate!.tlsPort, true)
  facts.samClaim = gateAccepted(await gate.send(`claim walk-sam secret ${SECRET}`))
  gate.close()
  const upgrading = await GateConnection.open(world.gate!.tlsPort, true)
  facts.unaClaim = gateAccepted(await upgrading.send(`claim walk-una secret ${SECRET}`))
  const una = Ed25519Key.random()
  facts.unaKid = una.kid
  const rotationText = field(await upgrading.send(`upgrade ${una.kid} ${SECRET}`), "sign")
  facts.unaUpgrade = gateAccepted(await upgrading.send(`sig ${u64(una.sign(utf8(rotationText)))}`))
  upgrading.close()
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

  proxy = await startLyingProxy(() => world.server.baseUrl, () => {
    const now = alter
    return now === undefined ? undefined : (path, answer) => {
      const altered = answer.status === 200 ? now(path, Buffer.from(answer.body)) : undefined
      return altered === undefined ? undefined : { ...answer, body: altered }
    }
  })
  proxyUrl = proxy.url
}, 120_000)

afterAll(async () => {
  await proxy?.close()
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
        `1 leaf behind the latest checkpoint (size ${facts.last + 1}) and consistent with it, and binding this key and X25519 key to alice; ` +
        `the name's 3 key events the view lists, replayed from its claim by the key rules, end at them`
    )
    expect(lines[3]).toBe(
      `not checked: a later rotation (after leaf ${facts.rotation}) or X25519 key (after leaf ${facts.x25519}), an earlier claim of the name, or a key event the view leaves out: only a replay of the whole log shows them (aics audit name alice)`
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

  it("names the two X25519 keys when the view's is not the one its key events end at", async () => {
    // bob's claim set its key and its X25519 key at one leaf: only the keys differ, not the leaves.
    const own = (await (await fetch(`${world.server.baseUrl}/v2/names/bob`)).json()) as Record<string, unknown>
    alter = nameViewAs((v) => void (v["x25519"] = facts.x25519Key), undefined, "bob")
    const run = await aics(["name", "bob"])
    expect(run.code).toBe(1)
    expect(run.err).toBe(`error (verification): the key events the view of bob lists end at X25519 key ${String(own["x25519"])} (leaf ${facts.bobClaim}), ` +
      `where the view says X25519 key ${facts.x25519Key} (leaf ${facts.bobClaim})\n`)
    alter = undefined
  }, 60_000)

  it("says a name not claimed is the service's answer, and what replays every leaf", async () => {
    alter = undefined
    const run = await aics(["audit", "name", "nobody"])
    expect(run.code).toBe(1)
    expect(run.out).toBe("")
    expect(run.err).toBe("error (not found): GET /v2/names/nobody: 404 name_not_found: nobody is not claimed here " +
      "(the service's answer, which no single leaf can show: aics audit log replays every leaf of the log)\n")
  }, 60_000)

  it("says how far behind a stale view's checkpoint is; audit name shows the later key events", async () => {
    // The view from before the key.x25519 and the rotation, with its own (older, log-signed) checkpoint.
    alter = nameViewAs(() => undefined, facts.stale)
    const run = ok(await aics(["name", "alice"]))
    expect(run.out).toContain(`alice: key ${facts.aliceOld} (set by the claim at entry ${facts.claim})`)
    expect(run.out).toContain(
      `checked: leaf ${facts.claim} signed, included under the name view's log-signed checkpoint of size ${facts.claim + 1}, ` +
        `${facts.last - facts.claim} leaves behind the latest checkpoint (size ${facts.last + 1}) and consistent with it`
    )
    expect(run.out).toContain(`not checked: a later rotation (after leaf ${facts.claim}) or X25519 key (after leaf ${facts.claim}), an earlier claim of the name, or a key event the view leaves out: only a replay of the whole log shows them (aics audit name alice)`)
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

  it("is the service's error, not two histories, when the consistency proof fails and the tiles show the checkpoints consistent", async () => {
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
    expect(run.err).toBe(`error (protocol): the service's consistency proof from size ${facts.claim + 1} to size ${facts.last + 1} does not verify (the tiles show the checkpoints are consistent)\n`)
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

describe("aics name of a name without an X25519 key", () => {
  it("checks a secret-bound name's claim as the policy key's and says it receives no DMs", async () => {
    alter = undefined
    const lines = ok(await aics(["name", "walk-sam"])).out.split("\n")
    expect(lines[0]).toBe(`walk-sam: secret-bound, spoken for by the service's policy key ${facts.policyKid} (set by the claim at entry ${facts.samClaim}); it rests on the service's word`)
    expect(lines[1]).toBe("no X25519 key: walk-sam is secret-bound (the service's policy key speaks for it), so it cannot receive DMs " +
      "(until it is upgraded to a key of its own and that key sends key.x25519)")
    expect(lines[2]).toMatch(new RegExp(`^checked: leaf ${facts.samClaim} signed, included under the name view's log-signed checkpoint of size ${facts.samClaim + 1}, ` +
      `\\d+ leaves behind the latest checkpoint \\(size ${facts.last + 1}\\) and consistent with it, and a secret-bound claim of walk-sam by the policy key leaf 0 names; the name's 1 key event the view lists, replayed from its claim by the key rules, end at them$`))
    expect(lines[3]).toBe(`not checked: a later rotation (after leaf ${facts.samClaim}) or an X25519 key the view does not show, an earlier claim of the name, or a key event the view leaves out: only a replay of the whole log shows them (aics audit name walk-sam)`)
    expect(lines[4]).toBe("no recovery key")
    expect(JSON.parse(ok(await aics(["name", "walk-sam", "--json"])).out)).toMatchObject({
      name: "walk-sam", tier: "secret", kid: facts.policyKid, kid_index: facts.samClaim, kid_set_by: "claim",
      x25519: "", x25519_index: null, receives_dms: false, checkpoint_size: facts.samClaim + 1, checkpoint_from_view: true, recovery: null
    })
    // A fold of the log agrees with the view.
    expect(JSON.parse(ok(await aics(["audit", "name", "walk-sam", "--json"])).out)).toMatchObject({ ok: true, differences: [], problems: [] })
  }, 120_000)

  it("checks an upgraded name's key.rotate and says it receives no DMs until its key sends key.x25519", async () => {
    alter = undefined
    const lines = ok(await aics(["name", "walk-una"])).out.split("\n")
    expect(lines[0]).toBe(`walk-una: key ${facts.unaKid} (set by the key.rotate at entry ${facts.unaUpgrade})`)
    expect(lines[1]).toBe("no X25519 key: walk-una cannot receive DMs until its key sends key.x25519")
    expect(lines[2]).toMatch(new RegExp(`^checked: leaf ${facts.unaUpgrade} signed, .* and binding this key to walk-una; the name's 2 key events the view lists, replayed from its claim by the key rules, end at them$`))
    expect(lines[3]).toBe(`not checked: a later rotation (after leaf ${facts.unaUpgrade}) or an X25519 key the view does not show, an earlier claim of the name, or a key event the view leaves out: only a replay of the whole log shows them (aics audit name walk-una)`)
    expect(JSON.parse(ok(await aics(["name", "walk-una", "--json"])).out)).toMatchObject({
      name: "walk-una", tier: "key", kid: facts.unaKid, kid_index: facts.unaUpgrade, kid_set_by: "key.rotate", x25519: "", x25519_index: null, receives_dms: false
    })
  }, 60_000)

  it("is an error when a secret-bound name's view does not match its claim", async () => {
    const cases: Array<[string, string, Alter, string]> = [
      ["another key", "walk-sam", nameViewAs((v) => void (v["kid"] = facts.bob), undefined, "walk-sam"),
        `entry ${facts.samClaim}, is a claim that binds ${facts.policyKid} to walk-sam, not ${facts.bob}`],
      ["another tier", "walk-sam", nameViewAs((v) => void (v["tier"] = "key"), undefined, "walk-sam"),
        `the view of walk-sam says tier key, but the leaf the view of walk-sam says set its key ${facts.policyKid}, entry ${facts.samClaim}, makes it secret-bound`],
      // walk-una's view made to say it is still secret-bound, citing walk-sam's claim.
      ["another secret-bound name's claim", "walk-una", nameViewAs((v) => Object.assign(v, { tier: "secret", kid: facts.policyKid, kid_index: facts.samClaim }), undefined, "walk-una"),
        `entry ${facts.samClaim}, is about the name walk-sam`],
      // alice's view made to cite walk-sam's claim: the policy key's claim binds no key to alice.
      ["a key-bound name said to be the policy key's", "alice", nameViewAs((v) => Object.assign(v, { kid: facts.policyKid, kid_index: facts.samClaim })),
        `entry ${facts.samClaim}, is about the name walk-sam`]
    ]
    for (const [what, name, edit, message] of cases) {
      alter = edit
      const run = await aics(["name", name])
      expect(run.code, what).toBe(1)
      expect(run.err, what).toMatch(/^error \(verification\): /)
      expect(run.err, what).toContain(message)
    }
    // A view with half of "no X25519 key" is no view.
    alter = nameViewAs((v) => void (v["x25519_index"] = facts.samClaim), undefined, "walk-sam")
    expect((await aics(["name", "walk-sam"])).err).toContain("error (protocol): GET /v2/names/walk-sam: the view lacks the current kid, x25519 key or x25519 leaf index")
    alter = undefined
  }, 120_000)

  it("stops a DM or a grant to a secret-bound name before anything is written", async () => {
    alter = undefined
    const dm = await aics(["dm", "walk-sam", "hello", "--key", "bob.json"])
    expect(dm.code).toBe(1)
    expect(dm.err).toContain("error (refused): no X25519 key: walk-sam is secret-bound")
    expect(dm.err).toContain("nothing was sent")
    const dmUna = await aics(["dm", "walk-una", "hello", "--key", "bob.json"])
    expect(dmUna.err).toContain("error (refused): no X25519 key: walk-una cannot receive DMs until its key sends key.x25519; nothing was sent")
    const grant = await aics(["grant", "walk-sam", "--key", "bob.json"])
    expect(grant.code).toBe(2)
    expect(grant.err).toContain(`usage error: walk-sam is secret-bound: the service's policy key (${facts.policyKid}) speaks for it`)
  }, 60_000)

  it("answers the MCP lookup_name tool for both", async () => {
    alter = undefined
    const mcp = await connectAicsMcp(join(world.agentsDir, "bob.json"), { server: proxyUrl, vkey: world.vkey }, "aics-walk")
    try {
      const lookup = async (name: string) => {
        const looked = await callTool(mcp, "lookup_name", { name })
        expect(looked.isError, looked.summary).toBe(false)
        return looked
      }
      const sam = await lookup("walk-sam")
      expect(sam.data).toMatchObject({ tier: "secret", kid: facts.policyKid, kid_index: facts.samClaim, x25519: "", x25519_index: null, receives_dms: false, verified: true })
      expect(sam.summary).toContain(`walk-sam is secret-bound, spoken for by the service's policy key ${facts.policyKid} (claim at leaf ${facts.samClaim}), no X25519 key:`)
      expect(sam.summary).toContain("cannot receive DMs")
      const una = await lookup("walk-una")
      expect(una.data).toMatchObject({ tier: "key", kid: facts.unaKid, kid_set_by: "key.rotate", x25519_index: null, receives_dms: false })
      expect(una.summary).toContain("no X25519 key: walk-una cannot receive DMs until its key sends key.x25519")
    } finally {
      await mcp.close()
    }
  }, 60_000)
})

describe("aics audit log on this walk's log", () => {
  it("finds every leaf one the sequencer had to write: gate claims with a secret (the policy key's, with `as`), an upgrade, rotations, X25519 keys", async () => {
    alter = undefined
    const replayed = ok(await aics(["audit", "log"]))
    expect(replayed.out).toMatch(/every leaf of the log at size \d+ is one the sequencer had to write\n/)
    expect(replayed.out).not.toContain("PROBLEM")
    const json = JSON.parse(ok(await aics(["audit", "log", "--json"])).out) as { entries_replayed: number; checkpoint_size: number; leaves_refused: number }
    expect(json.entries_replayed).toBe(json.checkpoint_size)
    expect(json.leaves_refused).toBe(0)
  })
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
    // A bundle that does not parse fails the receipts it holds, each with its evidence, and the report is still whole.
    alter = (path) => (path.startsWith("/tiles/tile/entries/") ? Buffer.from([0xff]) : undefined)
    const unreadable = await aics(["verify", "--key", "bob.json", "--json"])
    expect(unreadable.code).toBe(1)
    const whole = JSON.parse(unreadable.out) as { ok: boolean; receipts: Array<{ index: number; status: string; detail: string }> }
    expect(whole.ok).toBe(false)
    expect(whole.receipts.map((r) => r.status)).toEqual(["failed", "failed", "failed"])
    expect(whole.receipts[0]!.detail).toContain(`the entry bundle holding index ${facts.bobClaim} could not be read`)
  }, 60_000)
})
