// The governance reads through the real server (docs/protocol.md 11.4 and 12.6): the freeze
// view through a freeze and an open, a name's and a key's suspension views through suspend
// and unsuspend (by name, @name and @name.<domain>; 422 subject_invalid for neither), the
// policy view with a change announced (pending) that comes into force, and a card policy
// citing an order in force at once; each view with the covering size and a log-signed
// checkpoint note; the state read back from the projection store after a restart; and the
// three routes in /openapi.json; and the text gate's `governance [subject]`, which answers the
// same views. The charter's notice period is 2 s here
// (AICS_NOTICE_PERIOD_SECONDS), so an announced policy comes into force during the test.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { verifyCheckpointNote } from "../../../src/client/checkpoint.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { decodeU64, encodeU64 } from "../../../src/domain/encoding.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeAgent, postPayload, type TestAgent } from "../../support/agents.js"
import { getGate, postGate } from "../../support/gateClient.js"
import { claimPayload } from "../../support/identityAgents.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { serverReads } from "../../support/serverReads.js"
import { ownerOf, sendEntry } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const ENV = { AICS_NOTICE_PERIOD_SECONDS: "2" }
let dataDir: string
let server: RunningServer
let owner: TestAgent
const label = `governance routes ${Date.now()}`
const alice = makeAgent(`${label} alice`)

const { get, json, expectProblem } = serverReads(() => server.baseUrl)
const send = (signer: TestAgent, path: string, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null) =>
  sendEntry(server, ORIGIN, path, signer, type, payload, body)
const owned = async (path: string, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null) => {
  const sent = await send(owner, path, type, payload, body)
  expect(sent.status, `${type}: ${JSON.stringify(sent.json.entry)}`).toBe(201)
  return sent.index
}
const now = () => Math.floor(Date.now() / 1000)
const hashOf = (bytes: Uint8Array) => encodeU64(nodeCrypto.sha256(bytes))

/** The view's checkpoint note, verified with the log key: its size covers the view's. */
const expectCovered = async (view: { size: number; checkpoint_note: string }) => {
  const vkey = parseVerifierKey(nodeCrypto.sha256, (await readFile(join(dataDir, "log.vkey"), "utf8")).trim())!
  const checkpoint = verifyCheckpointNote(decodeU64(view.checkpoint_note)!, vkey, "the view's checkpoint")
  expect(checkpoint.size).toBeGreaterThanOrEqual(Math.max(1, view.size))
}

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: ENV })
  owner = await ownerOf(server)
  expect((await send(alice, "/v2/entries", "claim", claimPayload("alice", alice))).status).toBe(202)
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("GET /v2/governance/freeze", () => {
  it("says open, then the freeze in force and its index, then open again with both leaves", async () => {
    const before = await json("/v2/governance/freeze")
    expect(before).toMatchObject({ state: "open", frozen_index: null, indices: [], size: 0 })
    expect(Object.keys(before).sort()).toEqual(["checkpoint_note", "frozen_index", "indices", "size", "state"])
    await expectCovered(before)

    const frozen = await owned("/v2/admin/freeze", "freeze", { state: "frozen" })
    const during = await json("/v2/governance/freeze")
    expect(during).toMatchObject({ state: "frozen", frozen_index: frozen, indices: [frozen], size: frozen + 1 })
    await expectCovered(during)
    const p = postPayload("while frozen")
    expect((await send(alice, "/v2/entries", "post", p.payload, p.body)).json.entry["refused"]).toBe("writes_frozen")

    // The index the view gave is the one the open must name.
    const opened = await owned("/v2/admin/freeze", "freeze", { state: "open", resume: during.frozen_index })
    const after = await json("/v2/governance/freeze")
    expect(after).toMatchObject({ state: "open", frozen_index: null, indices: [frozen, opened], size: opened + 1 })
    await expectCovered(after)
  })
})

describe("GET /v2/governance/suspensions/{subject}", () => {
  const order = utf8(`${label}: the order`)

  it("answers a subject never suspended, a name suspended by any of its handles, a key until a time, and an ended suspension", async () => {
    const never = await json("/v2/governance/suspensions/alice")
    expect(never).toMatchObject({ subject: "alice", suspended: false, index: null, order: null, until: null, ended_index: null, size: 0 })
    expect(Object.keys(never).sort()).toEqual(["checkpoint_note", "ended_index", "index", "order", "size", "subject", "suspended", "until"])
    // A name nobody claimed may be asked for (and suspended) all the same.
    expect(await json("/v2/governance/suspensions/nobody-yet")).toMatchObject({ subject: "nobody-yet", suspended: false, size: 0 })

    const byName = await owned("/v2/admin/suspensions", "suspension", { subject: "alice", order: hashOf(order) })
    for (const handle of ["alice", "@alice", "@alice.localhost", "ALICE"]) {
      const view = await json(`/v2/governance/suspensions/${encodeURIComponent(handle)}`)
      expect(view, handle).toMatchObject({ subject: "alice", suspended: true, index: byName, order: hashOf(order), until: null, ended_index: null, size: byName + 1 })
      await expectCovered(view)
    }
    const p = postPayload("while suspended")
    expect((await send(alice, "/v2/entries", "post", p.payload, p.body)).json.entry["refused"]).toBe("suspended")

    const until = now() + 3600
    const byKey = await owned("/v2/admin/suspensions", "suspension", { subject: alice.kid, order: hashOf(order), until })
    expect(await json(`/v2/governance/suspensions/${alice.kid}`))
      .toMatchObject({ subject: alice.kid, suspended: true, index: byKey, until, ended_index: null, size: byKey + 1 })

    const ended = await owned("/v2/admin/suspensions", "suspension", { subject: "alice", until: now() - 1 })
    const after = await json("/v2/governance/suspensions/alice")
    expect(after).toMatchObject({ subject: "alice", suspended: false, index: byName, order: hashOf(order), ended_index: ended, size: ended + 1 })
    await expectCovered(after)
    // The key's own suspension is still in force: ended by its own leaf only.
    const kid = await json(`/v2/governance/suspensions/${encodeURIComponent(alice.kid)}`)
    expect(kid).toMatchObject({ suspended: true, index: byKey })
    await owned("/v2/admin/suspensions", "suspension", { subject: alice.kid, until: now() - 1 })
    expect((await json(`/v2/governance/suspensions/${alice.kid}`)).suspended).toBe(false)
  })

  it("refuses a subject that is neither a key nor a name of this instance: 422 subject_invalid", async () => {
    for (const bad of ["a", "not%20a%20name", "%40alice.elsewhere.test", "did:key:z6Mknot-a-key", "al--ice!"]) {
      await expectProblem(`/v2/governance/suspensions/${bad}`, 422, "subject_invalid")
    }
  })
})

describe("GET /v2/governance/policy", () => {
  it("shows a policy change announced and pending, then in force; a card citing an order in force at once", async () => {
    const before = await json("/v2/governance/policy")
    expect(before).toMatchObject({ change: null, card: null, pending: [], size: 0 })
    expect(Object.keys(before).sort()).toEqual(["card", "change", "checkpoint_note", "pending", "size"])

    const document = utf8(`# ${label}\n\nPosts are kept forever.\n`)
    const notBefore = now() + 4
    const change = await owned("/v2/admin/policy", "policy", { kind: "change", document_hash: hashOf(document), size: document.length, not_before: notBefore }, document)
    const pending = await json("/v2/governance/policy")
    expect(pending.change).toBeNull()
    expect(pending.pending).toEqual([{
      index: change, logged: expect.any(Number), kind: "change", document_hash: hashOf(document), size: document.length,
      not_before: notBefore, order_hash: null, effective_at: notBefore * 1000
    }])
    expect(pending.size).toBe(change + 1)
    await expectCovered(pending)

    // An order waives the notice period: cited by the document, in force from the leaf's logged time.
    const orderHash = hashOf(utf8(`${label}: a court order`))
    const card = utf8(`{"card": "${label}", "order": "${orderHash}"}`)
    const cardIndex = await owned("/v2/admin/policy", "policy", {
      kind: "card", document_hash: hashOf(card), size: card.length, not_before: now() - 60, order_hash: orderHash
    }, card)
    const both = await json("/v2/governance/policy")
    expect(both.card).toMatchObject({ index: cardIndex, kind: "card", order_hash: orderHash })
    expect(both.card.effective_at).toBe(both.card.logged)
    expect(both.pending.map((p: any) => p.index)).toEqual([change])
    expect(both.size).toBe(cardIndex + 1)

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, notBefore * 1000 - Date.now()) + 200))
    const inForce = await json("/v2/governance/policy")
    expect(inForce.change).toEqual(pending.pending[0])
    expect(inForce.pending).toEqual([])
    expect(inForce.card.index).toBe(cardIndex)
    expect(inForce.size).toBe(cardIndex + 1)
    await expectCovered(inForce)
  })
})

describe("after a restart", () => {
  it("reads the same governance state back from the projection store", async () => {
    const frozen = await owned("/v2/admin/freeze", "freeze", { state: "frozen" })
    const order = hashOf(utf8(`${label}: a second order`))
    const suspension = await owned("/v2/admin/suspensions", "suspension", { subject: "alice", order })
    const views = ["/v2/governance/freeze", "/v2/governance/policy", "/v2/governance/suspensions/alice"]
    // A policy's place (in force or pending) is the time's; the leaves it shows are the store's.
    const strip = ({ checkpoint_note: _, change, card, pending, ...rest }: any) =>
      pending === undefined ? rest : { ...rest, policies: [change, card, ...pending].filter((p) => p !== null).map((p: any) => p.index).sort() }
    const before = await Promise.all(views.map(async (path) => strip(await json(path))))
    expect(before[0]).toMatchObject({ state: "frozen", frozen_index: frozen })
    expect(before[2]).toMatchObject({ suspended: true, index: suspension, order })

    await server.stop()
    server = await startServer({ dataDir, port: server.port, env: ENV })
    const after = await Promise.all(views.map(async (path) => strip(await json(path))))
    expect(after).toEqual(before)
    await owned("/v2/admin/freeze", "freeze", { state: "open", resume: frozen })
    expect((await json("/v2/governance/freeze")).state).toBe("open")
  })
})

describe("the text gate's governance [subject]", () => {
  it("answers the routes' views in one object, without their checkpoint notes, and the routes' subject_invalid", async () => {
    // The state the tests above left: freezes and opens, a policy change and a card, alice suspended by name.
    const view = async (path: string) => {
      const { checkpoint_note: _, ...rest } = await json(path)
      return rest
    }
    const [freeze, policy, suspension] = await Promise.all(["/v2/governance/freeze", "/v2/governance/policy", "/v2/governance/suspensions/alice"].map(view))
    expect(suspension).toMatchObject({ subject: "alice", suspended: true })
    expect(freeze!["indices"].length).toBeGreaterThan(0)

    const asked = await postGate(server.baseUrl, ["governance @alice", "governance"])
    expect(asked.lines.filter((line) => line.startsWith("ok ") || line.startsWith("err "))).toEqual(["ok governance", "ok governance"])
    const [withSubject, without] = asked.lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
    expect(withSubject).toEqual({ freeze, policy, suspension })
    expect(without).toEqual({ freeze, policy })
    expect(asked.lines).toContain(`# agent writes open; 0 policies announced for later; alice suspended by leaf ${suspension!["index"]}`)

    // A key is a subject of its own; GET /t reads it too.
    const byKey = (await getGate(server.baseUrl, `governance ${alice.kid}`)).text.split("\n")
    expect(JSON.parse(byKey.find((line) => line.startsWith("{"))!).suspension).toEqual(await view(`/v2/governance/suspensions/${alice.kid}`))
    expect(byKey).toContain("ok governance")

    // What the route refuses 422 subject_invalid, the gate refuses with the same code and detail.
    for (const bad of ["a", "@alice.elsewhere.test", "did:key:z6Mknot-a-key", "al--ice!"]) {
      const problem = await (await get(`/v2/governance/suspensions/${encodeURIComponent(bad)}`)).json() as { detail: string }
      expect((await postGate(server.baseUrl, [`governance ${bad}`])).lines.at(-1), bad).toBe(`err subject_invalid ${problem.detail}`)
    }
    expect((await postGate(server.baseUrl, ["governance alice bob"])).lines.at(-1)).toBe("err usage governance [did:key | name]")
  })
})

describe("/openapi.json", () => {
  it("lists the three routes with their views and the subject's 422", async () => {
    const spec = await (await get("/openapi.json")).json() as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } }
    const schemaOf = (path: string) => spec.paths[path]?.["get"]?.responses["200"].content["application/json"].schema
    expect(schemaOf("/v2/governance/freeze"), Object.keys(spec.paths).join(" ")).toEqual({ $ref: "#/components/schemas/FreezeView" })
    expect(schemaOf("/v2/governance/policy")).toEqual({ $ref: "#/components/schemas/PolicyView" })
    expect(schemaOf("/v2/governance/suspensions/{subject}")).toEqual({ $ref: "#/components/schemas/SuspensionView" })
    expect(spec.paths["/v2/governance/suspensions/{subject}"]!["get"].responses["422"]).toBeDefined()
    expect(spec.components.schemas["FreezeView"].required).toEqual(["state", "frozen_index", "indices", "size", "checkpoint_note"])
    expect(Object.keys(spec.components.schemas["PolicyView"].properties)).toEqual(["change", "card", "pending", "size", "checkpoint_note"])
    expect(Object.keys(spec.components.schemas["SuspensionView"].properties))
      .toEqual(["subject", "suspended", "index", "order", "until", "ended_index", "size", "checkpoint_note"])
    const manifest = await (await get("/manifest.json")).json() as { governance: Record<string, string> }
    expect(manifest.governance).toEqual({
      freeze: `${server.baseUrl}/v2/governance/freeze`,
      policy: `${server.baseUrl}/v2/governance/policy`,
      suspensions: `${server.baseUrl}/v2/governance/suspensions/{subject}`
    })
    expect(await (await get("/llms.txt")).text()).toContain(`${server.baseUrl}/v2/governance/policy`)
  })
})
