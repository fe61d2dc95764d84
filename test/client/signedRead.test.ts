// The client's signed reads reproduce the profile vector of a signed GET byte for byte
// (test/vectors/profile/vectors.json `signed_read`: GET /v2/inbox/status, Content-Digest
// of the empty body), and sign only the profile's four components when the URL has a query
// (@path leaves it out, RFC 9421; docs/protocol.md 10.3).

import { describe, expect, it } from "vitest"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { serviceAt } from "../../src/client/http.js"
import { signedGet, signedReadHeaders } from "../../src/client/signedRead.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { profileVectors } from "../domain/profileVectors.js"
import { agentKid, agentSeed, readVector } from "../domain/http/httpVectors.js"

describe("signed reads", () => {
  it("reproduce the signed_read vector", () => {
    const input = readVector.headers["Signature-Input"]
    const created = Number(/;created=(\d+)/.exec(input)![1])
    const nonce = /;nonce="([^"]+)"/.exec(input)![1]!
    const headers = signedReadHeaders(new URL(readVector.url), { seed: agentSeed, kid: agentKid, created, nonce })
    expect(headers["Content-Digest"]).toBe(readVector.headers["Content-Digest"])
    expect(headers["Signature-Input"]).toBe(readVector.headers["Signature-Input"])
    expect(headers.Signature).toBe(readVector.headers.Signature)
  })

  it("sign the path without the query, a fresh nonce each time, expiring 300 s later", async () => {
    const requests: Array<{ url: string; headers: Headers }> = []
    const fakeFetch = (async (url: URL, init?: RequestInit) => {
      requests.push({ url: url.href, headers: new Headers(init?.headers) })
      return new Response("{}", { status: 200 })
    }) as typeof globalThis.fetch
    const vkey = parseVerifierKey(nobleCrypto.sha256, profileVectors.log_key.vkey)!
    const client = { service: serviceAt("http://127.0.0.1:8080/", fakeFetch), vkey, now: () => 1_795_000_100_000 }
    const key = generateAgentKey()
    await signedGet(client, key, "/v2/inbox?unread_only=true")
    await signedGet(client, key, "/v2/inbox?unread_only=true")
    expect(requests.map((r) => r.url)).toEqual(["http://127.0.0.1:8080/v2/inbox?unread_only=true", "http://127.0.0.1:8080/v2/inbox?unread_only=true"])
    const inputs = requests.map((r) => r.headers.get("signature-input")!)
    for (const input of inputs) {
      expect(input).toMatch(new RegExp(`^aics=\\("@method" "@authority" "@path" "content-digest"\\);created=1795000100;expires=1795000400;nonce="[A-Za-z0-9_-]{22}";keyid="${key.kid}";alg="ed25519";tag="aics"$`))
    }
    expect(inputs[0]).not.toBe(inputs[1])
    expect(requests[0]!.headers.get("content-digest")).toBe(readVector.headers["Content-Digest"])
    // Same key, same second, other path: the vector's own headers differ only by what is signed.
    const fixed = signedReadHeaders(new URL("http://127.0.0.1:8080/v2/inbox?unread_only=true"), { seed: agentSeed, kid: agentKid, created: 1_795_000_100, nonce: "ruLI27qykwEILiUDOa3_Og" })
    expect(fixed.signatureBase).toContain('"@path": /v2/inbox\n')
    expect(fixed.signatureBase).not.toContain("@query")
    // A page of the inbox is signed exactly as the same path without its query.
    const bare = signedReadHeaders(new URL("http://127.0.0.1:8080/v2/inbox"), { seed: agentSeed, kid: agentKid, created: 1_795_000_100, nonce: "ruLI27qykwEILiUDOa3_Og" })
    const paged = signedReadHeaders(new URL("http://127.0.0.1:8080/v2/inbox?from=7&limit=2"), { seed: agentSeed, kid: agentKid, created: 1_795_000_100, nonce: "ruLI27qykwEILiUDOa3_Og" })
    expect(paged).toEqual(bare)
    expect(paged["Signature-Input"]).toMatch(/^aics=\("@method" "@authority" "@path" "content-digest"\);/)
  })
})
