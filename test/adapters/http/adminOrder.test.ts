// The order of the owner routes' answers, through the real server (docs/spec/service.md
// "Authentication" 5; docs/protocol.md 12.5): under /v2/admin/ an unsigned request is 401
// and one signed by another key 403 whatever else is wrong with it (a parameter out of its
// bounds or repeated, a path parameter too long, a query string on a write, a route that
// does not exist), and only the owner learns the 422, 400 or 404. A body too large to read
// is the one exception: 413 first, since the body is never read; and only the owner's
// signed head is given room for a document, anyone else the 256 KiB of an agent's write.

import { describe, expect, it } from "vitest"
import { makeAgent } from "../../support/agents.js"
import { MAX_ADMIN_REQUEST_BYTES } from "../../../src/app/AdminWrites.js"
import { MAX_WRITE_REQUEST_BYTES } from "../../../src/app/EntryWrites.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { ownedServerForFile, sendEntry, signatureHeaders } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const file = ownedServerForFile()
const stranger = makeAgent(`admin order stranger ${Date.now()}`)

/** The code of a problem, or of a write refusal's receipt. */
const codeOf = (json: any): string => json.code ?? json.entry?.refused

/** The same request unsigned, signed by a stranger and signed by the owner: [status, code] of each. */
const threeWays = async (method: "GET" | "POST", path: string, body?: unknown) =>
  Promise.all([null, stranger.seed, file.owner.seed].map(async (seed) => {
    const raw = body === undefined ? new Uint8Array(0) : utf8(JSON.stringify(body))
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" }
    if (seed !== null) Object.assign(headers, signatureHeaders(file.server, seed, { method, path, body: raw }))
    const response = await fetch(`${file.server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: raw }) })
    const text = await response.text()
    return [response.status, text === "" ? undefined : codeOf(JSON.parse(text))]
  }))

describe("owner routes refuse strangers before anything else", () => {
  it("GET /v2/admin/notices with bad parameters: 401, 403, then 422 for the owner", async () => {
    for (const query of ["status=bogus", "limit=0", "limit=1001", "limit=1&limit=2", "status=open&status=closed"]) {
      expect(await threeWays("GET", `/v2/admin/notices?${query}`), query).toEqual([
        [401, "signature_missing"], [403, "not_owner"], [422, "invalid_parameters"]
      ])
    }
  })

  it("GET /v2/admin/stats with a repeated days: 401, 403, then 422 for the owner", async () => {
    expect(await threeWays("GET", "/v2/admin/stats?days=1&days=2")).toEqual([
      [401, "signature_missing"], [403, "not_owner"], [422, "invalid_parameters"]
    ])
  })

  it("POST .../notices/{report_id}/close with a report id too long: 401, 403, then 422 for the owner", async () => {
    expect(await threeWays("POST", `/v2/admin/notices/${"x".repeat(65)}/close`, { outcome: "invalid" })).toEqual([
      [401, "signature_missing"], [403, "not_owner"], [422, "invalid_parameters"]
    ])
  })

  it("an owner write with a query string: 401, 403, then 400 for the owner", async () => {
    const path = "/v2/admin/freeze?state=frozen"
    const answers = await Promise.all([false, true].map((signed) =>
      sendEntry(file.server, ORIGIN, path, file.owner, "freeze", { state: "frozen" }, null, signed)))
    const other = await sendEntry(file.server, ORIGIN, path, stranger, "freeze", { state: "frozen" })
    expect([answers[0]!, other, answers[1]!].map((a) => [a.status, a.json.entry["refused"]])).toEqual([
      [401, "signature_missing"], [403, "not_owner"], [400, "malformed_request"]
    ])
    // A body that is not the one signed: the stranger still learns only 403, the owner 400.
    const damaged = await Promise.all([stranger.seed, file.owner.seed].map(async (seed) => {
      const headers = { "content-type": "application/json", ...signatureHeaders(file.server, seed, { method: "POST", path: "/v2/admin/freeze", body: utf8("{}") }) }
      const response = await fetch(`${file.server.baseUrl}/v2/admin/freeze`, { method: "POST", headers, body: "{ }" })
      return [response.status, codeOf(await response.json())]
    }))
    expect(damaged).toEqual([[403, "not_owner"], [400, "digest_mismatch"]])
    // Nothing was written: the log is still open to agents.
    expect((await (await fetch(`${file.server.baseUrl}/healthz`)).json() as { agent_writes_held: boolean }).agent_writes_held).toBe(false)
  })

  it("a route or method that does not exist under /v2/admin/: 401, 403, then 404 (with its problem document) for the owner", async () => {
    expect(await threeWays("GET", "/v2/admin/nothing")).toEqual([[401, "signature_missing"], [403, "not_owner"], [404, "not_found"]])
    expect(await threeWays("GET", "/v2/admin/tombstones")).toEqual([[401, "signature_missing"], [403, "not_owner"], [404, "not_found"]])
    // Outside /v2/admin/ nothing changes: a missing route is 404 to anyone.
    expect((await fetch(`${file.server.baseUrl}/v2/nothing`)).status).toBe(404)
  })

  it("a body too large to read is 413 first, signed or not", async () => {
    // One byte over what the owner's routes read (room for a 1 MiB document, AdminWrites.ts).
    const big = new Uint8Array(MAX_ADMIN_REQUEST_BYTES + 1).fill(0x20)
    for (const path of ["/v2/admin/tombstones", `/v2/admin/notices/n_x/close`]) {
      const response = await fetch(`${file.server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: big })
      expect(response.status, path).toBe(413)
    }
  })

  it("reads a body over an agent's 256 KiB only under the owner's signature", async () => {
    // Over what POST /v2/entries reads, well under an owner's document: the bytes are a
    // JSON string, so the owner, whose body is read, learns it is not {envelope, body} (400).
    const raw = utf8(JSON.stringify(" ".repeat(MAX_WRITE_REQUEST_BYTES + 16)))
    const answers = await Promise.all([null, stranger.seed, file.owner.seed].map(async (seed) => {
      const headers: Record<string, string> = { "content-type": "application/json" }
      if (seed !== null) Object.assign(headers, signatureHeaders(file.server, seed, { method: "POST", path: "/v2/admin/freeze", body: raw }))
      const response = await fetch(`${file.server.baseUrl}/v2/admin/freeze`, { method: "POST", headers, body: raw })
      return [response.status, codeOf(await response.json())]
    }))
    expect(answers[0]).toEqual([413, "entry_too_large"])
    expect(answers[1]).toEqual([413, "entry_too_large"])
    expect(answers[2]).toEqual([400, "malformed_request"])
  })
})
