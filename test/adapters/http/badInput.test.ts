// Bad input answered plainly (issue 13 item 10): a JSON request nested 50,000 levels deep,
// on every route that takes JSON (signed by a fresh key on /v2/entries, by the owner and by
// a stranger on the owner routes, unsigned on the public ones), answers 400 with a problem
// document or a signed refusal, never a 500 or an empty body; the gate's lines likewise.
// Unknown routes and wrong methods answer a problem document too. The server stays up.

import { describe, expect, it } from "vitest"
import { ADMIN_ROUTES } from "../../../src/domain/http/adminRoutes.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { envelopeFor, makeAgent } from "../../support/agents.js"
import { ownedServerForFile, signatureHeaders } from "../../support/signedHttp.js"

const file = ownedServerForFile()
const DEPTH = 50_000
const deepArray = "[".repeat(DEPTH) + "]".repeat(DEPTH)
const deepObject = "{\"a\":".repeat(DEPTH) + "1" + "}".repeat(DEPTH)

const send = async (path: string, body: string, seed: Uint8Array | null, method = "POST", contentType = "application/json") => {
  const raw = utf8(body)
  const headers: Record<string, string> = { "content-type": contentType }
  if (seed !== null) Object.assign(headers, signatureHeaders(file.server, seed, { method, path, body: raw }))
  const response = await fetch(`${file.server.baseUrl}${path}`, { method, headers, body: raw })
  const text = await response.text()
  return { status: response.status, type: response.headers.get("content-type") ?? "", text }
}

/** A problem document (RFC 9457) or a signed refusal: JSON with a code, never empty. */
const expectExplained = (answer: { status: number; type: string; text: string }, where: string) => {
  expect(answer.text.length, `${where}: an empty body`).toBeGreaterThan(0)
  const json = JSON.parse(answer.text) as Record<string, any>
  if (answer.type.includes("application/problem+json")) {
    expect(typeof json["code"], `${where}: ${answer.text}`).toBe("string")
    expect(json["status"]).toBe(answer.status)
  } else {
    expect(typeof json["entry"]?.["refused"], `${where}: ${answer.text}`).toBe("string")
    expect(typeof json["receipt_note"]).toBe("string")
  }
  return json
}

const jsonRoutes = [
  "/v2/entries",
  ...Object.values(ADMIN_ROUTES).map((r) => r.path),
  "/notice",
  "/v2/admin/notices/x/close",
  "/v2/sup/contributions/intents",
  "/v2/sup/contributions"
]

describe("a request nested 50,000 levels deep", () => {
  for (const path of jsonRoutes) {
    for (const [who, seedOf] of [
      ["a fresh key", () => makeAgent(`deep-${Math.random()}`).seed],
      ["the owner", () => file.owner.seed],
      ["nobody", () => null]
    ] as const) {
      it(`POST ${path} signed by ${who} answers 400, explained`, async () => {
        // A whole request deep, an envelope deep, and a well-formed envelope whose payload
        // is deep (the envelope's own signature cannot be made: it needs the JCS).
        const agent = makeAgent(`deep-envelope-${Math.random()}`)
        const envelope = envelopeFor(agent, "localhost/aics", "post", { channel: "general", text: "DEEP" }, { created: Math.floor(Date.now() / 1000) })
        const deepPayload = JSON.stringify({ envelope }).replace("\"DEEP\"", deepArray)
        for (const body of [deepArray, `{"envelope":${deepObject}}`, deepPayload]) {
          const answer = await send(path, body, seedOf())
          expect(answer.status, `${path} by ${who}: ${answer.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400)
          expect(answer.status, `${path} by ${who}: ${answer.text.slice(0, 300)}`).toBeLessThan(500)
          expectExplained(answer, `${path} by ${who}`)
        }
      })
    }
  }

  it("POST /t with a deep line answers a gate error, and the server stays up", async () => {
    const answer = await send("/t", `post general ${deepArray}`, null, "POST", "text/plain")
    expect(answer.status).toBeLessThan(500)
    const health = await fetch(`${file.server.baseUrl}/healthz`)
    expect(health.status).toBe(200)
  })
})

describe("every error answer carries a problem document", () => {
  it("an unknown route answers 404 problem+json", async () => {
    for (const path of ["/nope", "/v2/nope", "/v2/entries/x/y/z", "/tiles/../../etc"]) {
      const response = await fetch(`${file.server.baseUrl}${path}`)
      const answer = { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() }
      expect(answer.status, path).toBe(404)
      expect(answer.type, path).toContain("application/problem+json")
      expect(expectExplained(answer, path)["code"]).toBe("not_found")
    }
  })

  it("a method a route does not take answers 4xx problem+json", async () => {
    const response = await fetch(`${file.server.baseUrl}/healthz`, { method: "DELETE" })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    expect(response.headers.get("content-type") ?? "").toContain("application/problem+json")
    expect((await response.json() as { code: string }).code).toBe("not_found")
  })
})
