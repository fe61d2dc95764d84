// RFC 9421: component values (section 2.1 and 2.2 examples), the signature base and the
// Ed25519 signature of Appendix B.2.6, the bases of B.2.1 and B.2.3, and signRequest
// against the profile vectors (docs/spec/profile.md section 9).

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { decodeB64, decodeU64 } from "../../../src/domain/encoding.js"
import { headerLookup, normalizeAuthority, type HttpRequest } from "../../../src/domain/http/components.js"
import {
  selectSignature,
  signatureBase,
  signRequest,
  verifyEd25519
} from "../../../src/domain/http/messageSignature.js"
import { agentKid, agentSeed, partsOf, readVector, writeVector } from "./httpVectors.js"

// RFC 9421 Appendix B.2, the test-request:
//   POST /foo?param=Value&Pet=dog HTTP/1.1
//   Host: example.com
//   Date: Tue, 20 Apr 2021 02:07:55 GMT
//   Content-Type: application/json
//   Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
//   Content-Length: 18
//
//   {"hello": "world"}
const testRequest: HttpRequest = {
  method: "POST",
  scheme: "https",
  authority: "example.com",
  path: "/foo",
  query: "param=Value&Pet=dog",
  headers: headerLookup({
    Host: "example.com",
    Date: "Tue, 20 Apr 2021 02:07:55 GMT",
    "Content-Type": "application/json",
    "Content-Digest":
      "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:",
    "Content-Length": "18"
  })
}

// RFC 9421 Appendix B.1.4, test-key-ed25519, as a JWK: x is the public key, d the private key (seed).
const TEST_KEY_ED25519_X = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"
const TEST_KEY_ED25519_D = "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU"

// RFC 9421 Appendix B.2.6, Signing a Request Using ed25519 (RFC 8792 line wrapping undone).
const B26_SIGNATURE_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"'
const B26_SIGNATURE = "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:"
const B26_SIGNATURE_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"'
].join("\n")

const baseFor = (request: HttpRequest, signatureInput: string, label: string) =>
  Either.flatMap(selectSignature(signatureInput, `${label}=:AA==:`, label), ({ input }) => signatureBase(request, input))

const reasonOf = (result: Either.Either<unknown, { readonly reason: string }>) =>
  Either.match(result, { onLeft: (e) => e.reason, onRight: () => "ok" })

describe("RFC 9421 Appendix B.2.6 (ed25519)", () => {
  it("builds the signature base the RFC shows", () => {
    const selected = Either.getOrThrow(selectSignature(B26_SIGNATURE_INPUT, B26_SIGNATURE, "sig-b26"))
    expect(Either.getOrThrow(signatureBase(testRequest, selected.input))).toBe(B26_SIGNATURE_BASE)
  })

  it.each([
    ["node:crypto", nodeCrypto],
    ["@noble", nobleCrypto]
  ])("verifies the RFC's signature with the B.1.4 public key and reproduces it with the private key (%s)", (_, crypto) => {
    const publicKey = decodeU64(TEST_KEY_ED25519_X)!
    const seed = decodeU64(TEST_KEY_ED25519_D)!
    expect(crypto.ed25519.publicKey(seed)).toEqual(publicKey)
    const { input, signature } = Either.getOrThrow(selectSignature(B26_SIGNATURE_INPUT, B26_SIGNATURE, "sig-b26"))
    const base = Either.getOrThrow(signatureBase(testRequest, input))
    expect(verifyEd25519(crypto.ed25519, publicKey, base, signature)).toBe(true)
    // Ed25519 is deterministic (RFC 8032), so the RFC's value is the only signature.
    expect(crypto.ed25519.sign(seed, utf8(base))).toEqual(signature)
    expect(verifyEd25519(crypto.ed25519, publicKey, base.replace("POST", "post"), signature)).toBe(false)
    expect(verifyEd25519(crypto.ed25519, publicKey, base, signature.subarray(0, 63))).toBe(false)
  })
})

describe("RFC 9421 signature bases", () => {
  it("B.2.1: the minimal signature, an empty component list", () => {
    const input = 'sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"'
    expect(Either.getOrThrow(baseFor(testRequest, input, "sig-b21"))).toBe(
      '"@signature-params": ();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"'
    )
  })

  it("B.2.3: full coverage, with @query and content-digest", () => {
    const input =
      'sig-b23=("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"'
    expect(Either.getOrThrow(baseFor(testRequest, input, "sig-b23"))).toBe(
      [
        '"date": Tue, 20 Apr 2021 02:07:55 GMT',
        '"@method": POST',
        '"@path": /foo',
        '"@query": ?param=Value&Pet=dog',
        '"@authority": example.com',
        '"content-type": application/json',
        '"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
        '"content-length": 18',
        '"@signature-params": ("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"'
      ].join("\n")
    )
  })

  it("section 2.1: field values trimmed, obs-fold replaced, repeated lines joined with a comma", () => {
    const request: HttpRequest = {
      ...testRequest,
      headers: headerLookup([
        ["Host", "www.example.com"],
        ["Date", "Tue, 20 Apr 2021 02:07:56 GMT"],
        ["X-OWS-Header", "   Leading and trailing whitespace.   "],
        ["X-Obs-Fold-Header", "Obsolete\r\n    line folding."],
        ["Cache-Control", "max-age=60"],
        ["Cache-Control", "   must-revalidate"],
        ["Example-Dict", " a=1,    b=2;x=1;y=2,   c=(a   b   c)"],
        ["X-Empty-Header", ""]
      ])
    }
    const input =
      'sig=("host" "date" "x-ows-header" "x-obs-fold-header" "cache-control" "example-dict" "x-empty-header")'
    expect(Either.getOrThrow(baseFor(request, input, "sig"))).toBe(
      [
        '"host": www.example.com',
        '"date": Tue, 20 Apr 2021 02:07:56 GMT',
        '"x-ows-header": Leading and trailing whitespace.',
        '"x-obs-fold-header": Obsolete line folding.',
        '"cache-control": max-age=60, must-revalidate',
        '"example-dict": a=1,    b=2;x=1;y=2,   c=(a   b   c)',
        '"x-empty-header": ',
        '"@signature-params": ("host" "date" "x-ows-header" "x-obs-fold-header" "cache-control" "example-dict" "x-empty-header")'
      ].join("\n")
    )
  })

  it("section 2.2: the derived components of POST /path?param=value to https://www.example.com", () => {
    const request: HttpRequest = {
      method: "POST",
      scheme: "https",
      authority: "www.example.com",
      path: "/path",
      query: "param=value",
      headers: headerLookup({})
    }
    const input = 'sig=("@method" "@target-uri" "@authority" "@scheme" "@request-target" "@path" "@query")'
    expect(Either.getOrThrow(baseFor(request, input, "sig")).split("\n").slice(0, 7)).toEqual([
      '"@method": POST',
      '"@target-uri": https://www.example.com/path?param=value',
      '"@authority": www.example.com',
      '"@scheme": https',
      '"@request-target": /path?param=value',
      '"@path": /path',
      '"@query": ?param=value'
    ])
    const line = (over: Partial<HttpRequest>, component: string) =>
      Either.getOrThrow(baseFor({ ...request, ...over }, `sig=("${component}")`, "sig")).split("\n")[0]
    expect(line({ scheme: "http" }, "@scheme")).toBe('"@scheme": http')
    expect(line({ query: "param=value&foo=bar&baz=bat%2Dman" }, "@query")).toBe(
      '"@query": ?param=value&foo=bar&baz=bat%2Dman'
    )
    expect(line({ query: "queryString" }, "@query")).toBe('"@query": ?queryString')
    expect(line({ query: "" }, "@query")).toBe('"@query": ?')
    expect(line({ path: "" }, "@path")).toBe('"@path": /')
    expect(line({ authority: "WWW.Example.COM:443" }, "@authority")).toBe('"@authority": www.example.com')
    expect(line({ authority: "www.example.com:8443" }, "@authority")).toBe('"@authority": www.example.com:8443')
  })

  it("refuses bases it cannot build", () => {
    const cases: Array<[string, string, string]> = [
      ['sig=("date" "date")', "malformed", "a component twice"],
      ['sig=("x-absent")', "component_missing", "an absent field"],
      ['sig=("@status")', "component_unsupported", "a response component"],
      ['sig=("@query-param";name="Pet")', "component_unsupported", "a component parameter"],
      ['sig=("content-digest";sf)', "component_unsupported", "the sf parameter"],
      ['sig=("Date")', "component_malformed", "an upper-case field name"],
      ['sig=("@signature-params")', "component_malformed", "@signature-params covered"],
      ['sig=(date)', "malformed", "a token, not a string"],
      ['sig="date"', "malformed", "not an inner list"],
      ['other=("date")', "label_missing", "another label"],
      ['sig=("date"', "malformed", "not a structured field"]
    ]
    for (const [input, reason, why] of cases) expect(reasonOf(baseFor(testRequest, input, "sig")), why).toBe(reason)
    expect(reasonOf(baseFor({ ...testRequest, scheme: undefined }, 'sig=("@target-uri")', "sig"))).toBe(
      "component_missing"
    )
    const nonAscii = { ...testRequest, headers: headerLookup({ "x-name": "caf\u00e9" }) }
    expect(reasonOf(baseFor(nonAscii, 'sig=("x-name")', "sig"))).toBe("component_malformed")
    expect(reasonOf(baseFor({ ...testRequest, method: "PO ST" }, 'sig=("@method")', "sig"))).toBe("component_malformed")
    expect(reasonOf(baseFor({ ...testRequest, path: "/a?b" }, 'sig=("@path")', "sig"))).toBe("component_malformed")
    expect(reasonOf(baseFor({ ...testRequest, authority: "user@host" }, 'sig=("@authority")', "sig"))).toBe(
      "component_malformed"
    )
  })

  it("selects the signature by label and refuses a Signature that is not one byte sequence", () => {
    const input = `${B26_SIGNATURE_INPUT}, other=("@method");created=1`
    expect(Either.isRight(selectSignature(input, `${B26_SIGNATURE}, other=:AA==:`, "sig-b26"))).toBe(true)
    expect(reasonOf(selectSignature(input, "other=:AA==:", "sig-b26"))).toBe("label_missing")
    expect(reasonOf(selectSignature(input, 'sig-b26="abc"', "sig-b26"))).toBe("malformed")
    expect(reasonOf(selectSignature(input, "sig-b26=:AA==:;p=1", "sig-b26"))).toBe("malformed")
    expect(reasonOf(selectSignature(input, "sig-b26=:AA=:", "sig-b26"))).toBe("malformed")
  })
})

describe("normalizeAuthority", () => {
  it("lower-cases and leaves out an empty or default port", () => {
    expect(normalizeAuthority("127.0.0.1:8080")).toBe("127.0.0.1:8080")
    expect(normalizeAuthority("Example.COM:")).toBe("example.com")
    expect(normalizeAuthority("example.com:80", "http")).toBe("example.com")
    expect(normalizeAuthority("example.com:80", "https")).toBe("example.com:80")
    expect(normalizeAuthority("example.com:80")).toBe("example.com:80")
    expect(normalizeAuthority("[::1]:443", "HTTPS")).toBe("[::1]")
    for (const bad of ["", ":80", "a b", "user@host", "host/path", "host:8o", "caf\u00e9.example"]) {
      expect(normalizeAuthority(bad), bad).toBeUndefined()
    }
  })
})

describe("signRequest and the profile vectors", () => {
  it.each([
    ["request (POST /v2/entries)", writeVector],
    ["signed_read (GET /v2/inbox/status)", readVector]
  ])("reproduces %s byte for byte", (_, vector) => {
    const params = Either.getOrThrow(selectSignature(vector.headers["Signature-Input"], vector.headers.Signature, "aics"))
      .input.params
    const value = (key: string) => params.find(([k]) => k === key)![1].value as never
    const parts = partsOf(vector)
    for (const crypto of [nodeCrypto, nobleCrypto]) {
      const signed = Either.getOrThrow(
        signRequest(
          {
            seed: agentSeed,
            keyid: agentKid,
            nonce: value("nonce"),
            created: value("created"),
            expires: value("expires"),
            method: parts.method,
            authority: parts.authority,
            path: parts.path,
            body: parts.body
          },
          crypto
        )
      )
      expect(signed["Content-Digest"]).toBe(vector.headers["Content-Digest"])
      expect(signed["Signature-Input"]).toBe(vector.headers["Signature-Input"])
      expect(signed.Signature).toBe(vector.headers.Signature)
      if (vector.signature_base !== undefined) expect(signed.signatureBase).toBe(vector.signature_base)
      const signature = decodeB64(signed.Signature.slice("aics=:".length, -1))!
      expect(verifyEd25519(crypto.ed25519, crypto.ed25519.publicKey(agentSeed), signed.signatureBase, signature)).toBe(true)
    }
  })

  it("refuses values it cannot write", () => {
    const input = {
      seed: agentSeed,
      keyid: agentKid,
      nonce: "ZU4sh9eCDL6xtbVQ9DFmVA",
      created: 1795000060,
      expires: 1795000360,
      method: "POST",
      authority: "127.0.0.1:8080",
      path: "/v2/entries",
      body: new Uint8Array()
    }
    expect(Either.isRight(signRequest(input, nodeCrypto))).toBe(true)
    expect(reasonOf(signRequest({ ...input, nonce: "caf\u00e9" }, nodeCrypto))).toBe("malformed")
    expect(reasonOf(signRequest({ ...input, created: 1.5 }, nodeCrypto))).toBe("malformed")
    expect(reasonOf(signRequest({ ...input, path: "/a b" }, nodeCrypto))).toBe("component_malformed")
    expect(reasonOf(signRequest({ ...input, authority: "" }, nodeCrypto))).toBe("component_malformed")
  })
})
