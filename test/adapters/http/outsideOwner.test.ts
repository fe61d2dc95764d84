// "Done when" of issue 6, as an owner outside the project would do it: its own key (named
// to the service with AICS_OWNER_KID), its own JCS, RFC 9421 and envelope code
// (test/support/outsideOwner.ts, node:crypto only, nothing from src/), against the real
// server. The owner freezes and reopens the log, tombstones a post for a listed reason,
// closes a notice with a logged report that holds no personal data, publishes a policy
// change that takes effect only at its not_before, and awards a task whose SUP an agent
// then spends on a quoted request, which the owner completes. The freeze report, an
// incident audit and the completion's result go with their leaves and anyone fetches them
// at /v2/bodies/{digest} (docs/spec/service.md "Entry wire bundle"), never in the bundle. It also publishes the assurance card: the exact bytes
// of GET /.well-known/aics-card.json, checked against the policy key, logged as a policy
// of kind card, named by X-AICS-Card-Leaf once in force. Then everything is verified from
// the tiles alone (test/support/independentVerifier.ts): the checkpoint, every tile and
// bundle, every envelope's signature, and the rules each leaf had to follow, folded from
// leaf 0.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseEntryBundle, publishedTiles, verifyLogFromTiles } from "../../support/independentVerifier.js"
import { Ed25519Key, envelopeSignatureHolds, jcs, OutsideWriter, sha256, u64, utf8, type Envelope } from "../../support/outsideOwner.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const NOTICE_PERIOD_SECONDS = 2
const TOMBSTONE_REASONS = ["illegal_content", "privacy", "impersonation", "harassment", "spam", "malware", "credential_leak", "court_order", "notice_upheld"]

let dataDir: string
let server: RunningServer
let vkey: string
let owner: OutsideWriter
let alice: OutsideWriter

const now = () => Math.floor(Date.now() / 1000)
const text = (t: string) => ({ bytes: utf8(t), hash: u64(sha256(utf8(t))), size: utf8(t).length })
const post = (writer: OutsideWriter, body: string, channel = "general") => {
  const t = text(body)
  return writer.write("/v2/entries", "post", { channel, body_hash: t.hash, size: t.size }, t.bytes)
}

beforeAll(async () => {
  const ownerKey = Ed25519Key.random()
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_OWNER_KID: ownerKey.kid, AICS_NOTICE_PERIOD_SECONDS: String(NOTICE_PERIOD_SECONDS) } })
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  owner = new OutsideWriter(ownerKey, server.baseUrl, ORIGIN, vkey)
  alice = new OutsideWriter(Ed25519Key.random(), server.baseUrl, ORIGIN, vkey)
  expect((await alice.write("/v2/entries", "claim", { name: "alice", x25519: u64(sha256(utf8("alice x25519"))) })).status).toBe(202)
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
})

/** GET /v2/bodies/{digest}: status, bytes and, when gone, the JSON form. */
const bodyAt = async (hash: string) => {
  const response = await fetch(`${server.baseUrl}/v2/bodies/${hash}`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  return { status: response.status, bytes, json: response.status === 410 ? JSON.parse(Buffer.from(bytes).toString("utf8")) : undefined }
}

/** GET /v2/entries/{index}: X-AICS-Body-Status and body_or_ct. */
const bundleAt = async (index: number) => {
  const response = await fetch(`${server.baseUrl}/v2/entries/${index}`)
  expect(response.status).toBe(200)
  const json = await response.json() as { body_or_ct: string | null }
  return { status: response.headers.get("x-aics-body-status"), bodyOrCt: json.body_or_ct }
}

/** A document served at /v2/bodies byte for byte, never riding in its entry's bundle. */
const expectServed = async (index: number, document: ReturnType<typeof text>) => {
  const body = await bodyAt(document.hash)
  expect(body.status).toBe(200)
  expect(Buffer.from(body.bytes).equals(Buffer.from(document.bytes))).toBe(true)
  expect(await bundleAt(index)).toEqual({ status: "available", bodyOrCt: null })
}

const health = async () => await (await fetch(`${server.baseUrl}/healthz`)).json() as { status: string; agent_writes_held: boolean; reasons: Array<string> }

/** What the owner did, by index, for the checks from the tiles. */
const did: Record<string, number> = {}
const personal = { name: `Pat Private ${Date.now()}`, email: `pat-${Date.now()}@example.test`, explanation: `My home address is in this post (${Date.now()}).` }
let reportId = ""

describe("an owner outside the project", () => {
  it("freezes the log (agent writes held, 403) and reopens it", async () => {
    const freeze = await owner.write("/v2/admin/freeze", "freeze", { state: "frozen" })
    expect(freeze.status).toBe(201)
    did["freeze"] = freeze.index!
    expect(await health()).toMatchObject({ status: "DEGRADED", agent_writes_held: true })
    const held = await post(alice, "written while frozen")
    expect([held.status, held.refused]).toEqual([403, "writes_frozen"])
    const open = await owner.write("/v2/admin/freeze", "freeze", { state: "open", resume: did["freeze"] })
    expect(open.status).toBe(201)
    did["open"] = open.index!
    expect((await health()).agent_writes_held).toBe(false)
    expect((await post(alice, "back after the freeze")).status).toBe(202)
  })

  it("logs the freeze report with its document, which anyone fetches at /v2/bodies; a wrong or missing document is refused", async () => {
    const report = text(`# Freeze audit\n\nAgent writes were held from leaf ${did["freeze"]} to leaf ${did["open"]}.\n`)
    const payload = { kind: "audit", subject: "freeze", report_hash: report.hash }
    const missing = await owner.write("/v2/admin/audits", "report", payload)
    expect([missing.status, missing.refused]).toEqual([400, "body_mismatch"])
    const wrong = await owner.write("/v2/admin/audits", "report", payload, utf8("# Another report\n"))
    expect([wrong.status, wrong.refused]).toEqual([400, "body_mismatch"])
    expect((await bodyAt(report.hash)).status).toBe(404)
    const logged = await owner.write("/v2/admin/audits", "report", payload, report.bytes)
    expect(logged.status).toBe(201)
    did["freezeReport"] = logged.index!
    await expectServed(did["freezeReport"], report)
  })

  it("logs an incident audit whose report a tombstone can then hide (410, and the bundle's status says so)", async () => {
    const report = text(`# Incident audit\n\nThe report names ${personal.name} by mistake.\n`)
    const logged = await owner.write("/v2/admin/audits", "report", { kind: "audit", subject: "incident", report_hash: report.hash }, report.bytes)
    expect(logged.status).toBe(201)
    did["incidentReport"] = logged.index!
    await expectServed(did["incidentReport"], report)
    const hidden = await owner.write("/v2/admin/tombstones", "tombstone", { target_index: did["incidentReport"], reason_code: "privacy" })
    expect(hidden.status).toBe(201)
    did["reportTombstone"] = hidden.index!
    expect(await bodyAt(report.hash)).toMatchObject({
      status: 410, json: { state: "tombstoned", tombstone_index: did["reportTombstone"], reason_code: "privacy", policy_index: null }
    })
    expect(await bundleAt(did["incidentReport"])).toEqual({ status: `tombstoned;tombstone_index=${did["reportTombstone"]};reason_code=privacy`, bodyOrCt: null })
  })

  it("tombstones a post for a listed reason, and closes the notice about it with a report free of personal data", async () => {
    const target = await post(alice, `I know where ${personal.name} lives.`)
    did["post"] = target.index!
    const filed = await fetch(`${server.baseUrl}/notice`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ location: `${server.baseUrl}/v2/entries/${did["post"]}`, explanation: personal.explanation, name: personal.name, email: personal.email, accurate: true })
    })
    expect(filed.status).toBe(201)
    reportId = (await filed.json() as { report_id: string }).report_id

    const tombstone = await owner.write("/v2/admin/tombstones", "tombstone", { target_index: did["post"], reason_code: "privacy" })
    expect(tombstone.status).toBe(201)
    did["tombstone"] = tombstone.index!
    const bodyHash = text(`I know where ${personal.name} lives.`).hash
    const gone = await fetch(`${server.baseUrl}/v2/bodies/${bodyHash}`)
    expect(gone.status).toBe(410)
    expect(await gone.json()).toEqual({ state: "tombstoned", tombstone_index: did["tombstone"], reason_code: "privacy", policy_index: null })

    const register = await owner.signed("GET", "/v2/admin/notices?status=open")
    expect(register.status).toBe(200)
    expect(register.json.notices.map((n: any) => n.report_id)).toContain(reportId)
    const closed = await owner.signed("POST", `/v2/admin/notices/${reportId}/close`, { outcome: "removed", tombstone_index: did["tombstone"] })
    expect(closed.status).toBe(201)
    did["report"] = closed.json.entry.index
  })

  it("publishes a policy change that may take effect only after the notice period", async () => {
    const document = text("# Policy change\n\nPosts in channel general are kept for ever.\n")
    const tooSoon = await owner.write("/v2/admin/policy", "policy", { kind: "change", document_hash: document.hash, size: document.size, not_before: now() }, document.bytes)
    expect([tooSoon.status, tooSoon.refused]).toEqual([422, "policy_too_soon"])
    const notBefore = now() + NOTICE_PERIOD_SECONDS + 2
    const change = await owner.write("/v2/admin/policy", "policy", { kind: "change", document_hash: document.hash, size: document.size, not_before: notBefore }, document.bytes)
    expect(change.status).toBe(201)
    did["policy"] = change.index!
  })

  it("publishes the assurance card, named by X-AICS-Card-Leaf once its policy is in force", async () => {
    const card = async () => {
      const response = await fetch(`${server.baseUrl}/.well-known/aics-card.json`)
      expect(response.status).toBe(200)
      const bytes = new Uint8Array(await response.arrayBuffer())
      return { bytes, hash: response.headers.get("x-aics-card-sha256"), leaf: response.headers.get("x-aics-card-leaf") }
    }
    const served = await card()
    // The exact bytes: JCS, signed like an envelope by the policy key leaf 0 names.
    expect(served.hash).toBe(u64(sha256(served.bytes)))
    const document = JSON.parse(Buffer.from(served.bytes).toString("utf8")) as Envelope
    expect(jcs(document as never)).toBe(Buffer.from(served.bytes).toString("utf8"))
    expect(envelopeSignatureHolds(document)).toBe(true)
    const owners = await (await fetch(`${server.baseUrl}/v2/owner`)).json() as { owner_kid: string; policy_kid: string }
    expect([document["kid"], owners.owner_kid]).toEqual([owners.policy_kid, owner.key.kid])
    expect(served.leaf).toBe("none")

    // A second of margin beyond the whole seconds of now(): the write is logged a moment later.
    const notBefore = now() + NOTICE_PERIOD_SECONDS + 2
    const logged = await owner.write("/v2/admin/policy", "policy",
      { kind: "card", document_hash: served.hash, size: served.bytes.length, not_before: notBefore }, served.bytes)
    expect(logged.status).toBe(201)
    did["card"] = logged.index!
    // Logged, not yet in force: still none.
    expect((await card()).leaf).toBe("none")
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, notBefore * 1000 - Date.now()) + 200))
    const inForce = await card()
    expect([inForce.hash, inForce.leaf]).toEqual([served.hash, String(did["card"])])
    expect(Buffer.from(inForce.bytes).equals(Buffer.from(served.bytes))).toBe(true)
  })

  it("awards a task whose SUP the agent spends on a quoted request", async () => {
    const task = text("Write an independent verifier.")
    const posted = await owner.write("/v2/admin/tasks", "task", { body_hash: task.hash, size: task.size, reward: 10, closes: now() + 3600 }, task.bytes)
    expect(posted.status).toBe(201)
    did["task"] = posted.index!
    did["submission"] = (await post(alice, "Here it is: verifier.go", "tasks")).index!
    const award = await owner.write("/v2/admin/tasks", "task.award", { task_index: did["task"], submission_index: did["submission"], name: "alice" })
    expect(award.status).toBe(201)
    did["award"] = award.index!
    did["request"] = (await post(alice, "Please open a channel for verifiers.", "owner-actions")).index!
    const quote = await owner.write("/v2/admin/actions", "action.quote", { request_index: did["request"], amount: 6 })
    expect(quote.status).toBe(201)
    did["quote"] = quote.index!
    const pay = await alice.write("/v2/entries", "action.pay", { quote_index: did["quote"] })
    expect(pay.status).toBe(202)
    did["pay"] = pay.index!
    // 4 SUP left: a second quote of 5 cannot be paid.
    const dear = await owner.write("/v2/admin/actions", "action.quote", { request_index: did["request"], amount: 5 })
    const refused = await alice.write("/v2/entries", "action.pay", { quote_index: dear.index! })
    expect([refused.status, refused.refused]).toEqual([409, "insufficient_balance"])

    // The owner completes the paid request; the payer fetches the result it paid for.
    const result = text("Channel verifiers is open: https://example.test/agora?channel=verifiers\n")
    const mismatch = await owner.write("/v2/admin/actions", "action.complete", { quote_index: did["quote"], result_hash: result.hash }, utf8("not the result"))
    expect([mismatch.status, mismatch.refused]).toEqual([400, "body_mismatch"])
    const complete = await owner.write("/v2/admin/actions", "action.complete", { quote_index: did["quote"], result_hash: result.hash }, result.bytes)
    expect(complete.status).toBe(201)
    did["complete"] = complete.index!
    await expectServed(did["complete"], result)
  })

  it("verifies all of it from the tiles", async () => {
    const last = Math.max(...Object.values(did))
    let verified = await verifyLogFromTiles(server.baseUrl, vkey)
    for (let tries = 0; verified.size <= last && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      verified = await verifyLogFromTiles(server.baseUrl, vkey)
    }
    expect(verified.size).toBeGreaterThan(last)

    // Every entry from the bundles, each hashing to its (verified) level-0 tile hash.
    const entries: Array<{ envelope: Envelope; index: number; logged: number; bytes: Uint8Array }> = []
    for (const tile of publishedTiles(verified.size).filter((t) => t.level === "entries")) {
      const bundle = new Uint8Array(await (await fetch(`${server.baseUrl}/tiles/${tile.path}`)).arrayBuffer())
      for (const bytes of parseEntryBundle(bundle, tile.width, tile.path)) {
        const index = entries.length
        expect(Buffer.from(sha256(new Uint8Array([0, ...bytes]))).equals(Buffer.from(verified.tiles.leafHash(index)))).toBe(true)
        const leaf = JSON.parse(Buffer.from(bytes).toString("utf8")) as { envelope: Envelope; index: number; logged: number }
        expect(jcs(leaf as never)).toBe(Buffer.from(bytes).toString("utf8"))
        expect(leaf.index).toBe(index)
        expect(envelopeSignatureHolds(leaf.envelope)).toBe(true)
        entries.push({ ...leaf, bytes })
      }
    }
    const charter = entries[0]!.envelope["payload"] as Record<string, any>
    expect(entries[0]!.envelope["type"]).toBe("charter")
    expect(charter["owner_kid"]).toBe(owner.key.kid)
    expect(charter["notice_period_seconds"]).toBe(NOTICE_PERIOD_SECONDS)
    const policyKid = charter["policy_kid"] as string
    const at = (name: string) => entries[did[name]!]!
    const payload = (name: string) => at(name).envelope["payload"] as Record<string, any>
    const signer = (name: string) => at(name).envelope["kid"]

    // Freeze and reopening: the owner's, and no agent leaf in between.
    expect([signer("freeze"), payload("freeze")]).toEqual([owner.key.kid, { state: "frozen" }])
    expect([signer("open"), payload("open")]).toEqual([owner.key.kid, { state: "open", resume: did["freeze"] }])
    for (let i = did["freeze"]! + 1; i < did["open"]!; i++) expect([owner.key.kid, policyKid]).toContain(entries[i]!.envelope["kid"])

    // The tombstone: the owner's, a listed reason, naming the post.
    expect(signer("tombstone")).toBe(owner.key.kid)
    expect(payload("tombstone")["target_index"]).toBe(did["post"])
    expect(TOMBSTONE_REASONS).toContain(payload("tombstone")["reason_code"])

    // The report: the policy key's, the notice hash, the outcome and its tombstone, nothing else.
    expect(signer("report")).toBe(policyKid)
    expect(Object.keys(payload("report")).sort()).toEqual(["kind", "notice_hash", "outcome", "tombstone_index"])
    expect(payload("report")).toMatchObject({ kind: "notice", outcome: "removed", tombstone_index: did["tombstone"] })
    for (const entry of entries) {
      const leaf = Buffer.from(entry.bytes)
      for (const secret of [personal.name, personal.email, personal.explanation, reportId]) expect(leaf.includes(Buffer.from(secret))).toBe(false)
    }

    // The policy change: not in effect before the charter's notice period has passed.
    expect(signer("policy")).toBe(owner.key.kid)
    expect(payload("policy")["not_before"] * 1000).toBeGreaterThanOrEqual(at("policy").logged + NOTICE_PERIOD_SECONDS * 1000)
    const policies = entries.filter((e) => e.envelope["type"] === "policy")
    expect(policies.map((e) => e.index)).toEqual([did["policy"], did["card"]])
    // The card's policy: the owner's, naming the served card's hash, after the notice period.
    expect(signer("card")).toBe(owner.key.kid)
    expect(payload("card")["kind"]).toBe("card")
    expect(payload("card")["not_before"] * 1000).toBeGreaterThanOrEqual(at("card").logged + NOTICE_PERIOD_SECONDS * 1000)

    // Every document an owner's leaf names by hash alone can be fetched and hashes to its
    // name, unless a tombstone hides it (then 410 names that tombstone).
    const named = entries.filter((e) => e.envelope["kid"] === owner.key.kid && (e.envelope["type"] === "action.complete" || e.envelope["type"] === "report"))
    expect(named.map((e) => e.index)).toEqual([did["freezeReport"], did["incidentReport"], did["complete"]])
    for (const entry of named) {
      const p = entry.envelope["payload"] as Record<string, string>
      const hash = p["report_hash"] ?? p["result_hash"]!
      const body = await bodyAt(hash)
      if (entry.index === did["incidentReport"]) expect(body).toMatchObject({ status: 410, json: { tombstone_index: did["reportTombstone"] } })
      else expect([body.status, u64(sha256(body.bytes))]).toEqual([200, hash])
    }

    // SUP folded from the leaves: credited by the award, spent by the payment, never negative.
    const names = new Map<string, string>()
    const balances = new Map<string, number>()
    const rewards = new Map<number, number>()
    const quotes = new Map<number, number>()
    for (const { envelope, index } of entries) {
      const p = envelope["payload"] as Record<string, any>
      const kid = envelope["kid"] as string
      switch (envelope["type"]) {
        case "claim": names.set(kid, p["name"]); break
        case "task": expect(kid).toBe(owner.key.kid); rewards.set(index, p["reward"]); break
        case "task.award": expect(kid).toBe(owner.key.kid); balances.set(p["name"], (balances.get(p["name"]) ?? 0) + rewards.get(p["task_index"])!); break
        case "action.quote": expect(kid).toBe(owner.key.kid); quotes.set(index, p["amount"]); break
        case "action.pay": {
          const name = names.get(kid)!
          balances.set(name, (balances.get(name) ?? 0) - quotes.get(p["quote_index"])!)
          break
        }
      }
      for (const balance of balances.values()) expect(balance).toBeGreaterThanOrEqual(0)
    }
    expect(payload("award")).toEqual({ task_index: did["task"], submission_index: did["submission"], name: "alice" })
    expect(at("submission").index).toBeGreaterThan(did["task"]!)
    expect(signer("pay")).toBe(alice.key.kid)
    expect(balances.get("alice")).toBe(4)
  })
})
