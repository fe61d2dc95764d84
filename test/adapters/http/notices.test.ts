// The notice register through the real server: POST /notice is keyless and writes no leaf;
// the owner routes (GET /v2/admin/notices, POST /v2/admin/notices/{report_id}/close) are
// 401 unsigned, 403 for another key, 200/201 for the owner; closing writes one
// policy-signed report leaf; and no text, contact or report id ever reaches the log (tiles,
// bundles, leaves, /v2/entries).

import { readdir, readFile, stat } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { didKeyFromPublicKey } from "../../../src/domain/identity/didKey.js"
import { makeAgent } from "../../support/agents.js"
import { ownerSeedOf, signedJson } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let dataDir: string
let server: RunningServer
let ownerSeed: Uint8Array
let ownerKid: string
const stranger = makeAgent(`notice stranger ${Date.now()}`)

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  ownerSeed = await ownerSeedOf(dataDir)
  ownerKid = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(ownerSeed))
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

/** A request to `path`, signed by the seed (or unsigned when null). */
const call = (method: "GET" | "POST", path: string, seed: Uint8Array | null, body?: unknown) => signedJson(server, method, path, seed, body)

const fileNotice = (body: string, contentType: string) =>
  fetch(`${server.baseUrl}/notice`, { method: "POST", headers: { "content-type": contentType }, body })

const tag = `${Date.now()}${Math.random().toString(36).slice(2)}`
const secrets = {
  location: `https://example.test/post/loc-${tag}`,
  explanation: `The post defames me, marker expl-${tag}.`,
  name: `Jane Noticer ${tag}`,
  email: `jane-${tag}@example.test`
}
const reportIds: Array<string> = []

describe("POST /notice", () => {
  it("takes a JSON notice (201, no leaf written)", async () => {
    // Leaves committed (not the published checkpoint, which may lag).
    const committed = async () => (await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { tiles: { size: number } }).tiles.size
    const before = await committed()
    const response = await fileNotice(JSON.stringify({ ...secrets, accurate: true }), "application/json")
    expect(response.status).toBe(201)
    const json = await response.json() as Record<string, unknown>
    expect(json["status"]).toBe("open")
    expect(typeof json["report_id"]).toBe("string")
    reportIds.push(json["report_id"] as string)
    expect(await committed()).toBe(before)
  })

  it("takes a form notice", async () => {
    const form = new URLSearchParams({
      kind: "counter_notice", location: `${secrets.location}/2`, explanation: `${secrets.explanation} form`,
      email: `form-${secrets.email}`, report_id: `cited-${tag}`.slice(0, 40), accurate: "true"
    })
    const response = await fileNotice(form.toString(), "application/x-www-form-urlencoded")
    expect(response.status).toBe(201)
    const json = await response.json() as Record<string, unknown>
    expect(json["kind"]).toBe("counter_notice")
    reportIds.push(json["report_id"] as string)
  })

  it("refuses 422 naming each failing field in errors: accurate false, other members, limits", async () => {
    for (const [body, paths] of [
      [{ ...secrets, accurate: false }, ["accurate"]],
      [{ ...secrets, accurate: true, extra: 1 }, ["extra"]],
      [{ ...secrets, explanation: "too short", accurate: true }, ["explanation"]],
      [{ ...secrets, location: "", accurate: true }, ["location"]],
      [{ ...secrets, location: "x".repeat(1001), accurate: true }, ["location"]],
      [{ ...secrets, name: "n".repeat(201), accurate: true }, ["name"]],
      [{ ...secrets, email: "e".repeat(255), accurate: true }, ["email"]],
      [{ ...secrets, report_id: "r".repeat(41), accurate: true }, ["report_id"]],
      [{ location: secrets.location, explanation: secrets.explanation }, ["accurate"]],
      [{ location: "", explanation: "short", accurate: "yes" }, ["location", "explanation", "accurate"]]
    ] as const) {
      const response = await fileNotice(JSON.stringify(body), "application/json")
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422)
      expect(response.headers.get("content-type")).toContain("application/problem+json")
      const problem = await response.json() as { code: string; errors: Array<{ path: string; message: string }> }
      expect(problem.code).toBe("notice_invalid")
      expect(problem.errors.map((e) => e.path).sort(), JSON.stringify(body).slice(0, 80)).toEqual([...paths].sort())
      for (const e of problem.errors) expect(e.message.length).toBeGreaterThan(0)
    }
    // A form names its fields the same way; a body that is neither is the whole body ("").
    const form = await fileNotice("location=entry+7&explanation=short&accurate=no", "application/x-www-form-urlencoded")
    expect(((await form.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path).sort()).toEqual(["accurate", "explanation"])
    const garbage = await fileNotice("[1]", "application/json")
    expect(((await garbage.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual([""])
  })
})

describe("owner routes", () => {
  it("GET /v2/admin/notices: unsigned 401, another key 403, the owner 200", async () => {
    expect((await call("GET", "/v2/admin/notices", null)).status).toBe(401)
    expect((await call("GET", "/v2/admin/notices", stranger.seed)).status).toBe(403)
    const mine = await call("GET", "/v2/admin/notices?status=open&limit=1000", ownerSeed)
    expect(mine.status).toBe(200)
    expect(mine.json.notices.map((n: any) => n.report_id)).toEqual(reportIds)
    expect(mine.json.notices[0].email).toBe(secrets.email)
    const one = await call("GET", "/v2/admin/notices?limit=1", ownerSeed)
    expect(one.json.notices.length).toBe(1)
    expect((await call("GET", "/v2/admin/notices?limit=0", ownerSeed)).status).toBe(422)
    expect((await call("GET", "/v2/admin/notices?limit=1001", ownerSeed)).status).toBe(422)
  })

  it("POST .../close: unsigned 401, another key 403, the owner 201 with one policy-signed report leaf", async () => {
    const path = `/v2/admin/notices/${reportIds[0]}/close`
    expect((await call("POST", path, null, { outcome: "no_action" })).status).toBe(401)
    const other = await call("POST", path, stranger.seed, { outcome: "no_action" })
    expect(other.status).toBe(403)
    expect(other.json.entry.refused).toBe("not_owner")
    const done = await call("POST", path, ownerSeed, { outcome: "no_action" })
    expect(done.status, JSON.stringify(done.json)).toBe(201)
    expect(done.json.entry.type).toBe("report")
    expect(done.json.entry.kid).not.toBe(ownerKid)
    const checkpoint = await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { policy_kid: string }
    expect(done.json.entry.kid).toBe(checkpoint.policy_kid)
    const bundle = await (await fetch(`${server.baseUrl}/v2/entries/${done.json.entry.index}`)).json() as { envelope: any }
    expect(Object.keys(bundle.envelope.payload).sort()).toEqual(["kind", "notice_hash", "outcome"])
    expect(bundle.envelope.payload.outcome).toBe("no_action")
    // Closed once only.
    expect((await call("POST", path, ownerSeed, { outcome: "invalid" })).status).toBe(409)
    // Unknown report id, bad body.
    expect((await call("POST", "/v2/admin/notices/nope/close", ownerSeed, { outcome: "invalid" })).status).toBe(404)
    expect((await call("POST", `/v2/admin/notices/${reportIds[1]}/close`, ownerSeed, { outcome: "maybe" })).status).toBe(422)
    // The second one closes too (the policy chain moves on).
    const second = await call("POST", `/v2/admin/notices/${reportIds[1]}/close`, ownerSeed, { outcome: "invalid" })
    expect(second.status, JSON.stringify(second.json)).toBe(201)
    const closed = await call("GET", "/v2/admin/notices?status=closed", ownerSeed)
    expect(closed.json.notices.map((n: any) => [n.report_id, n.outcome])).toEqual([[reportIds[0], "no_action"], [reportIds[1], "invalid"]])
    // The register keeps the notice hash its report leaf carries (what stays once the report id is deleted).
    expect(closed.json.notices[0].notice_hash).toBe(bundle.envelope.payload.notice_hash)
    expect(closed.json.notices[0].report_index).toBe(done.json.entry.index)
  })
})

const filesUnder = async (dir: string): Promise<Array<string>> => {
  const out: Array<string> = []
  for (const name of await readdir(dir).catch(() => [] as Array<string>)) {
    const path = join(dir, name)
    if ((await stat(path)).isDirectory()) out.push(...await filesUnder(path))
    else out.push(path)
  }
  return out
}

describe("the notice register never reaches the log", () => {
  it("no tile, bundle, leaf or /v2/entries answer holds a notice's text, contact or report id", async () => {
    expect(reportIds.length).toBe(2)
    const needles = [
      secrets.location, `expl-${tag}`, secrets.name, secrets.email, `cited-${tag}`.slice(0, 40), ...reportIds
    ].map((s) => Buffer.from(s, "utf8"))
    // Let the publisher catch up so the report leaves are in tiles and bundles too.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const files = [...await filesUnder(join(dataDir, "tiles")), ...await filesUnder(join(dataDir, "log"))]
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const bytes = await readFile(file)
      for (const needle of needles) expect(bytes.includes(needle), `${file} holds ${needle.toString()}`).toBe(false)
    }
    const { tiles } = await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { tiles: { size: number } }
    expect(tiles.size).toBeGreaterThanOrEqual(3)
    for (let index = 0; index < tiles.size; index++) {
      const bytes = Buffer.from(await (await fetch(`${server.baseUrl}/v2/entries/${index}`)).arrayBuffer())
      for (const needle of needles) expect(bytes.includes(needle), `/v2/entries/${index}`).toBe(false)
    }
  })
})
