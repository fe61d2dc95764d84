// docs/spec/profile.md section 6: checkAicsSignature accepts the profile vectors and what signRequest
// makes, and refuses each way a request can fall short with its own code.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { decodeB64, encodeB64, encodeU64 } from "../../../src/domain/encoding.js"
import { didKeyFromPublicKey } from "../../../src/domain/identity/didKey.js"
import {
  checkAicsBody,
  checkAicsSignature,
  checkAicsSignatureHead,
  replayExpiry,
  SIGNATURE_REFUSAL_CODES,
  SIGNATURE_REFUSAL_STATUS,
  SignatureRefusal,
  type AicsOptions
} from "../../../src/domain/http/aicsProfile.js"
import { headerLookup } from "../../../src/domain/http/components.js"
import { signatureBase, signRequest, type AicsSigningInput } from "../../../src/domain/http/messageSignature.js"
import { parseDictionary, type InnerList } from "../../../src/domain/http/structuredFields.js"
import { agentKid, agentSeed, partsOf, readVector, writeVector, type SignedRequestVector } from "./httpVectors.js"

const AUTHORITY = "127.0.0.1:8080"
const CREATED = 1795000060
const EXPIRES = 1795000360
const NONCE = "ZU4sh9eCDL6xtbVQ9DFmVA"
const NOW = 1795000200
const options: AicsOptions = { now: NOW, authorities: [AUTHORITY], ...nodeCrypto }

/** A received request, headers as a plain record. */
interface Received {
  readonly method: string
  readonly authority: string | undefined
  readonly path: string
  readonly query: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

const check = (request: Received, opts: Partial<AicsOptions> = {}) =>
  checkAicsSignature({ ...request, headers: headerLookup(request.headers) }, { ...options, ...opts })

const codeOf = (request: Received, opts: Partial<AicsOptions> = {}): string =>
  Either.match(check(request, opts), { onLeft: (refusal) => refusal.code, onRight: () => "ok" })

const fromVector = (vector: SignedRequestVector): Received => ({ ...partsOf(vector), headers: vector.headers })

const signingInput = (over: Partial<AicsSigningInput> = {}): AicsSigningInput => ({
  seed: agentSeed,
  keyid: agentKid,
  nonce: NONCE,
  created: CREATED,
  expires: EXPIRES,
  method: "POST",
  authority: AUTHORITY,
  path: "/v2/entries",
  body: utf8('{"hello":"world"}'),
  ...over
})

/** A request signed by signRequest. */
const signed = (over: Partial<AicsSigningInput> = {}, crypto = nodeCrypto): Received => {
  const input = signingInput(over)
  const headers = Either.getOrThrow(signRequest(input, crypto))
  return {
    method: input.method,
    authority: input.authority,
    path: input.path,
    query: "",
    body: input.body,
    headers: {
      "Content-Digest": headers["Content-Digest"],
      "Signature-Input": headers["Signature-Input"],
      Signature: headers.Signature
    }
  }
}

const profileParams = (over: Record<string, string> = {}): string =>
  Object.entries({
    created: String(CREATED),
    expires: String(EXPIRES),
    nonce: `"${NONCE}"`,
    keyid: `"${agentKid}"`,
    alg: '"ed25519"',
    tag: '"aics"',
    ...over
  })
    .filter(([, value]) => value !== "")
    .map(([key, value]) => `;${key}=${value}`)
    .join("")

const AICS_LIST = '("@method" "@authority" "@path" "content-digest")'

/**
 * The request with a Signature-Input member of any shape, validly signed over the base
 * RFC 9421 builds for it (when one can be built): what fails is then the profile, not
 * the signature.
 */
const signedOver = (member: string, request: Received = signed(), label = "aics"): Received => {
  const parsed = Either.getOrThrow(parseDictionary(`${label}=${member}`))[0]!.value as InnerList
  const base = signatureBase(
    { ...request, authority: request.authority ?? "", headers: headerLookup(request.headers) },
    { components: parsed.items, params: parsed.params }
  )
  const signature = Either.isRight(base) ? nodeCrypto.ed25519.sign(agentSeed, utf8(base.right)) : new Uint8Array(64)
  return {
    ...request,
    headers: { ...request.headers, "Signature-Input": `${label}=${member}`, Signature: `${label}=:${encodeB64(signature)}:` }
  }
}

const withHeaders = (request: Received, headers: Record<string, string | undefined>): Received => ({
  ...request,
  headers: Object.fromEntries(
    Object.entries({ ...request.headers, ...headers }).filter((e): e is [string, string] => e[1] !== undefined)
  )
})

const flipSignatureByte = (request: Received, at: number, x = 1): Received => {
  const signature = decodeB64(request.headers.Signature!.slice("aics=:".length, -1))!
  signature[at % 64] = signature[at % 64]! ^ x
  return withHeaders(request, { Signature: `aics=:${encodeB64(signature)}:` })
}

describe("checkAicsSignature on the profile vectors", () => {
  it.each([
    ["request (POST /v2/entries)", writeVector],
    ["signed_read (GET /v2/inbox/status)", readVector]
  ])("accepts %s with 127.0.0.1:8080 configured", (_, vector) => {
    for (const crypto of [nodeCrypto, nobleCrypto]) {
      const result = Either.getOrThrow(check(fromVector(vector), { ...crypto }))
      expect(result.keyid).toBe(agentKid)
      expect(encodeU64(result.publicKey)).toBe("qIRcSo90F53LcjFM5L5jOykNDeHeDAdB0R5b12bvE3w")
      expect(vector.headers["Signature-Input"]).toContain(`nonce="${result.nonce}"`)
      expect(vector.headers["Signature-Input"]).toContain(`;created=${result.created};expires=${result.expires};`)
      expect(replayExpiry(result)).toBe(result.expires + 300)
    }
  })

  it("refuses them outside their window or at another authority", () => {
    expect(codeOf(fromVector(writeVector), { now: EXPIRES })).toBe("signature_expired")
    expect(codeOf(fromVector(readVector), { now: 1795000100 - 301 })).toBe("signature_clock")
    expect(codeOf(fromVector(writeVector), { authorities: ["example.test"] })).toBe("authority_not_allowed")
  })

  it("looks header names up case-insensitively and accepts a query, which the profile does not cover", () => {
    const request = fromVector(readVector)
    const lower = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]))
    expect(codeOf({ ...request, headers: lower })).toBe("ok")
    expect(codeOf({ ...request, query: "after=3" })).toBe("ok")
  })
})

describe("checkAicsSignature accepts", () => {
  it("the limits of the clock rules", () => {
    expect(codeOf(signed({ created: NOW - 300, expires: NOW + 1 }))).toBe("ok")
    expect(codeOf(signed({ created: NOW + 300, expires: NOW + 900 }))).toBe("ok")
    expect(codeOf(signed({ created: NOW, expires: NOW + 600 }))).toBe("ok")
    expect(codeOf(signed({ created: NOW - 1, expires: NOW + 1 }))).toBe("ok")
  })

  it("nonces of 16 and 32 bytes, and an empty body", () => {
    expect(codeOf(signed({ nonce: encodeU64(new Uint8Array(16).fill(7)) }))).toBe("ok")
    expect(codeOf(signed({ nonce: encodeU64(new Uint8Array(32).fill(7)) }))).toBe("ok")
    expect(codeOf(signed({ method: "GET", body: new Uint8Array() }))).toBe("ok")
  })

  it("the parameters in another order, and signatures under other labels beside it", () => {
    const reordered = `${AICS_LIST};tag="aics";alg="ed25519";keyid="${agentKid}";nonce="${NONCE}";expires=${EXPIRES};created=${CREATED}`
    expect(codeOf(signedOver(reordered))).toBe("ok")
    const request = signed()
    const withOther = withHeaders(request, {
      "Signature-Input": `proxy=("@method");created=1, ${request.headers["Signature-Input"]}`,
      Signature: `${request.headers.Signature}, proxy=:AAAA:`
    })
    expect(codeOf(withOther)).toBe("ok")
  })

  it("a Host in upper case, or with an empty port", () => {
    expect(codeOf({ ...signed(), authority: "127.0.0.1:8080" })).toBe("ok")
    expect(codeOf({ ...signed({ authority: "Aics.Example" }), authority: "AICS.example:" }, { authorities: ["aics.example"] })).toBe("ok")
  })
})

describe("checkAicsSignature refuses, one code each", () => {
  it("lists every code with its HTTP status", () => {
    expect(SIGNATURE_REFUSAL_CODES.map((code) => [code, SIGNATURE_REFUSAL_STATUS[code]])).toEqual([
      ["signature_missing", 401],
      ["signature_malformed", 401],
      ["signature_profile", 401],
      ["keyid_invalid", 401],
      ["nonce_invalid", 401],
      ["authority_not_allowed", 401],
      ["signature_lifetime", 401],
      ["signature_expired", 401],
      ["signature_clock", 401],
      ["digest_missing", 401],
      ["signature_invalid", 401],
      ["digest_mismatch", 400]
    ])
    const refusal = new SignatureRefusal({ code: "digest_mismatch", detail: "x" })
    expect(refusal.status).toBe(400)
    expect(refusal._tag).toBe("SignatureRefusal")
  })

  it("signature_missing: no Signature-Input and no Signature", () => {
    expect(codeOf(withHeaders(signed(), { "Signature-Input": undefined, Signature: undefined }))).toBe("signature_missing")
  })

  it("signature_malformed: one field without the other, or not the RFC 9421 shape", () => {
    const request = signed()
    const cases: Array<Record<string, string | undefined>> = [
      { Signature: undefined },
      { "Signature-Input": undefined },
      { "Signature-Input": "aics=(" },
      { "Signature-Input": `aics="@method"` },
      { "Signature-Input": `aics=(@method)` },
      { Signature: 'aics="abc"' },
      { Signature: "aics=:AAAA" },
      { Signature: `aics=:${encodeB64(new Uint8Array(63))}:` },
      // A second aics member, as a second field line would bring: never two candidates.
      { "Signature-Input": `${request.headers["Signature-Input"]}, ${request.headers["Signature-Input"]}` }
    ]
    for (const headers of cases) expect(codeOf(withHeaders(request, headers)), JSON.stringify(headers)).toBe("signature_malformed")
  })

  it("signature_profile: another label, components, parameters, values or spelling", () => {
    const request = withHeaders(signed(), { "Content-Type": "application/json" })
    const members = [
      `("@method" "@authority" "@path" "content-digest" "content-type")${profileParams()}`, // extra component
      `("@method" "@authority" "@path")${profileParams()}`, // no content-digest
      `("@authority" "@method" "@path" "content-digest")${profileParams()}`, // order
      `("@method" "@authority" "@path" "@query" "content-digest")${profileParams()}`, // @query, after @path
      `("@method" "@authority" "@query" "@path" "content-digest")${profileParams()}`, // @query, before @path
      `("@method" "@authority" "@path" "content-digest" "@query")${profileParams()}`, // @query, last
      `("@method" "@authority" "@request-target" "content-digest")${profileParams()}`,
      `("@method" "@authority" "@path" "content-digest";bs)${profileParams()}`, // a component parameter
      `${AICS_LIST}${profileParams({ extra: "1" })}`,
      `${AICS_LIST}${profileParams({ tag: "" })}`,
      `${AICS_LIST}${profileParams({ alg: "" })}`,
      `${AICS_LIST}${profileParams({ expires: "" })}`,
      `${AICS_LIST}${profileParams({ alg: '"rsa-pss-sha512"' })}`,
      `${AICS_LIST}${profileParams({ tag: '"other"' })}`,
      `${AICS_LIST}${profileParams({ created: `"${CREATED}"` })}`,
      `${AICS_LIST}${profileParams({ expires: `${EXPIRES}.0` })}`,
      `${AICS_LIST}${profileParams({ nonce: NONCE.replace(/^./, "z") })}`, // a token, not a string
      `${AICS_LIST}${profileParams({ keyid: "?1" })}`,
      `${AICS_LIST}${profileParams({ created: "-1" })}`,
      `( "@method" "@authority" "@path" "content-digest" )${profileParams()}`, // not canonical
      `${AICS_LIST}${profileParams().replace(";expires", "; expires")}`
    ]
    for (const member of members) expect(codeOf(signedOver(member, request)), member).toBe("signature_profile")
    // The right member under another label.
    expect(codeOf(signedOver(`${AICS_LIST}${profileParams()}`, request, "sig1"))).toBe("signature_profile")
  })

  it("a signed read covering @query is refused signature_profile, the refusal naming only the four; the profile's four pass with any query", () => {
    const read = { ...signed({ method: "GET", path: "/v2/inbox", body: new Uint8Array(0) }), query: "from=7&limit=2" }
    // Validly signed over the RFC 9421 base of the five, query included: still not the profile.
    const withQuery = signedOver(`("@method" "@authority" "@path" "@query" "content-digest")${profileParams()}`, read)
    const refusal = Either.getOrThrow(Either.flip(check(withQuery)))
    expect(refusal.code).toBe("signature_profile")
    expect(refusal.detail).toBe('covered components must be "@method" "@authority" "@path" "content-digest"')
    // The profile covers @path without the query (RFC 9421): the query as received is not signed.
    expect(read.headers["Signature-Input"]).toMatch(/^aics=\("@method" "@authority" "@path" "content-digest"\);/)
    for (const query of ["from=7&limit=2", "", "unread_only=true&limit=5"]) expect(codeOf({ ...read, query }), query).toBe("ok")
  })

  it("keyid_invalid: keyid is not an Ed25519 did:key", () => {
    for (const keyid of ["test-key-ed25519", agentKid.slice(0, -1), agentKid.replace("did:key:z", "did:key:Z"), `${agentKid} `]) {
      expect(codeOf(signed({ keyid })), keyid).toBe("keyid_invalid")
    }
  })

  it("nonce_invalid: nonce is not U64 of 16 to 32 bytes", () => {
    for (const nonce of [
      encodeU64(new Uint8Array(15)),
      encodeU64(new Uint8Array(33)),
      encodeB64(new Uint8Array(16)),
      `${NONCE}=`,
      "",
      NONCE.replace(/.$/, "/")
    ]) {
      expect(codeOf(signed({ nonce })), nonce).toBe("nonce_invalid")
    }
  })

  it("authority_not_allowed: a Host the service is not configured with, or none", () => {
    expect(codeOf(signed({ authority: "127.0.0.1:8081" }))).toBe("authority_not_allowed")
    expect(codeOf(signed({ authority: "example.com" }))).toBe("authority_not_allowed")
    expect(codeOf({ ...signed(), authority: undefined })).toBe("authority_not_allowed")
    expect(codeOf({ ...signed(), authority: "127.0.0.1:8080/x" })).toBe("authority_not_allowed")
  })

  it("authority_not_allowed names the Host received, the authorities a client can sign and the settings that make them", () => {
    const detailOf = (request: Received, opts: Partial<AicsOptions> = {}): string =>
      Either.match(check(request, opts), { onLeft: (refusal) => refusal.detail, onRight: () => "ok" })
    const accepted = { authorities: ["127.0.0.1:8080", "aics.example.org"] }
    // A load balancer's host, which a node without AICS_PUBLIC_URL does not know.
    expect(detailOf(signed({ authority: "LB.Example.org" }), accepted)).toBe(
      "the request's Host \"lb.example.org\" (the @authority it signs) is not an authority of this service; " +
        "a client signs aics.example.org; from its own machine also 127.0.0.1:8080 (AICS_PUBLIC_URL and AICS_AUTHORITY set them)")
    expect(detailOf({ ...signed(), authority: undefined }, accepted))
      .toBe("the request has no Host; a client signs aics.example.org; from its own machine also 127.0.0.1:8080 (AICS_PUBLIC_URL and AICS_AUTHORITY set them)")
    // The defaults of a node listening on every address behind a balancer: the wildcard
    // listening address is accepted but no Host a client sends, so it is not offered.
    const behindBalancer = { authorities: ["0.0.0.0:8080", "localhost:8080", "[::1]:8080", "aics.example.org"] }
    const lb = detailOf(signed({ authority: "10.0.0.5:8080" }), behindBalancer)
    expect(lb).toBe("the request's Host \"10.0.0.5:8080\" (the @authority it signs) is not an authority of this service; " +
      "a client signs aics.example.org; from its own machine also localhost:8080, [::1]:8080 (AICS_PUBLIC_URL and AICS_AUTHORITY set them)")
    // Each one named is accepted (the decision is the list's), and the wildcard still is.
    for (const authority of ["aics.example.org", "localhost:8080", "[::1]:8080", "0.0.0.0:8080"]) {
      expect(detailOf(signed({ authority }), behindBalancer)).toBe("ok")
    }
    // A node reached on its own machine only says so.
    expect(detailOf(signed({ authority: "example.com" }), { authorities: ["127.0.0.1:8080", "localhost:8080"] })).toBe(
      "the request's Host \"example.com\" (the @authority it signs) is not an authority of this service; " +
        "it accepts 127.0.0.1:8080, localhost:8080, hosts of its own machine only (AICS_PUBLIC_URL and AICS_AUTHORITY set them)")
    // A Host that is no authority at all is quoted as received, cut short: anyone may send one.
    const long = `${"x".repeat(300)}/"path"`
    const detail = detailOf({ ...signed(), authority: long }, accepted)
    expect(detail).toContain(`Host ${JSON.stringify(`${"x".repeat(100)}...`)} (the @authority it signs)`)
    expect(detail).not.toContain("x".repeat(101))
  })

  it("signature_lifetime: expires not after created, or more than 600 s after", () => {
    expect(codeOf(signed({ created: NOW, expires: NOW }))).toBe("signature_lifetime")
    expect(codeOf(signed({ created: NOW, expires: NOW - 1 }))).toBe("signature_lifetime")
    expect(codeOf(signed({ created: NOW - 10, expires: NOW + 591 }))).toBe("signature_lifetime")
  })

  it("signature_expired: now at or after expires", () => {
    expect(codeOf(signed({ created: NOW - 100, expires: NOW }))).toBe("signature_expired")
    expect(codeOf(signed({ created: NOW - 100, expires: NOW - 1 }))).toBe("signature_expired")
  })

  it("signature_clock: created more than 300 s from now", () => {
    expect(codeOf(signed({ created: NOW + 301, expires: NOW + 600 }))).toBe("signature_clock")
    expect(codeOf(signed({ created: NOW - 301, expires: NOW + 10 }))).toBe("signature_clock")
  })

  it("digest_missing: no Content-Digest, or one without sha-256", () => {
    expect(codeOf(withHeaders(signed(), { "Content-Digest": undefined }))).toBe("digest_missing")
    // Validly signed over a sha-512-only digest: the signature holds, the body is unbound.
    const sha512Only = withHeaders(signed(), { "Content-Digest": "sha-512=:" + encodeB64(new Uint8Array(64)) + ":" })
    expect(codeOf(signedOver(`${AICS_LIST}${profileParams()}`, sha512Only))).toBe("digest_missing")
  })

  it("signature_invalid: method, path, authority, Content-Digest, key or signature changed", () => {
    const request = signed()
    expect(codeOf({ ...request, method: "PUT" })).toBe("signature_invalid")
    expect(codeOf({ ...request, method: "post" })).toBe("signature_invalid")
    expect(codeOf({ ...request, path: "/v2/entries/" })).toBe("signature_invalid")
    expect(codeOf({ ...request, authority: "aics.example" }, { authorities: [AUTHORITY, "aics.example"] })).toBe(
      "signature_invalid"
    )
    const otherBody = utf8("{}")
    expect(codeOf({ ...request, body: otherBody, headers: { ...request.headers, "Content-Digest": signed({ body: otherBody }).headers["Content-Digest"]! } })).toBe(
      "signature_invalid"
    )
    expect(codeOf(flipSignatureByte(request, 0))).toBe("signature_invalid")
    const otherKey = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32).fill(1)))
    expect(codeOf(signed({ keyid: otherKey }))).toBe("signature_invalid")
  })

  it("digest_mismatch (400): a validly signed request whose body is not the one digested", () => {
    const request = signed()
    expect(codeOf({ ...request, body: utf8('{"hello":"World"}') })).toBe("digest_mismatch")
    expect(codeOf({ ...request, body: new Uint8Array() })).toBe("digest_mismatch")
    const malformed = withHeaders(request, { "Content-Digest": "sha-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=" })
    expect(codeOf(signedOver(`${AICS_LIST}${profileParams()}`, malformed))).toBe("digest_mismatch")
    const refusal = check({ ...request, body: new Uint8Array() })
    expect(Either.isLeft(refusal) && refusal.left.status).toBe(400)
  })

  it("the head alone (checkAicsSignatureHead): the signature without the body, which checkAicsBody then compares", () => {
    const request = signed()
    const { body: _body, ...head } = request
    const checked = checkAicsSignatureHead({ ...head, headers: headerLookup(head.headers) }, options)
    expect(Either.getOrThrow(checked).keyid).toBe(agentKid)
    expect(Either.isRight(checkAicsBody(Either.getOrThrow(checked), request.body, nodeCrypto.sha256))).toBe(true)
    const damaged = checkAicsBody(Either.getOrThrow(checked), utf8("{}"), nodeCrypto.sha256)
    expect(Either.isLeft(damaged) && damaged.left.code).toBe("digest_mismatch")
    // Everything before the body is still checked: a flipped signature byte is refused from the head.
    const flipped = flipSignatureByte(request, 0)
    expect(Either.isLeft(checkAicsSignatureHead({ ...flipped, headers: headerLookup(flipped.headers) }, options))).toBe(true)
  })
})

describe("properties", () => {
  const methods = ["GET", "POST", "PUT", "DELETE", "PATCH"] as const
  const authorities = [AUTHORITY, "aics.example", "[::1]:7700"]
  const opts = { authorities }
  const requestArb = fc
    .record({
      body: fc.uint8Array({ maxLength: 512 }),
      method: fc.constantFrom(...methods),
      path: fc.stringMatching(/^\/[a-z0-9._~\-/]{0,24}$/),
      authority: fc.constantFrom(...authorities),
      nonce: fc.integer({ min: 16, max: 32 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
      seed: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      lifetime: fc.integer({ min: 1, max: 600 }),
      skew: fc.integer({ min: -300, max: 300 })
    })
    // now = created + skew must be before expires = created + lifetime.
    .filter(({ lifetime, skew }) => skew < lifetime)
    .map(({ seed, nonce, lifetime, skew, ...rest }) => {
      const created = NOW - skew
      const keyid = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed))
      return { ...rest, seed, keyid, nonce: encodeU64(nonce), created, expires: created + lifetime }
    })

  it("a request signed by signRequest verifies, and says who signed it", () => {
    fc.assert(
      fc.property(requestArb, (input) => {
        const result = Either.getOrThrow(check(signed(input), opts))
        expect(result).toEqual({
          keyid: input.keyid,
          publicKey: nodeCrypto.ed25519.publicKey(input.seed),
          nonce: input.nonce,
          created: input.created,
          expires: input.expires
        })
      })
    )
  })

  it("flipping any byte of the body fails", () => {
    fc.assert(
      fc.property(
        requestArb.filter((input) => input.body.length > 0),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (input, at, x) => {
          const request = signed(input)
          const body = request.body.slice()
          body[at % body.length] = body[at % body.length]! ^ x
          expect(codeOf({ ...request, body }, opts)).toBe("digest_mismatch")
        }
      )
    )
  })

  it("flipping any byte of the signature fails", () => {
    fc.assert(
      fc.property(requestArb, fc.nat(63), fc.integer({ min: 1, max: 255 }), (input, at, x) => {
        expect(codeOf(flipSignatureByte(signed(input), at, x), opts)).toBe("signature_invalid")
      })
    )
  })

  it("changing the method, the path or the authority fails", () => {
    fc.assert(
      fc.property(requestArb, fc.nat(), (input, pick) => {
        const request = signed(input)
        const otherMethod = methods.filter((m) => m !== input.method)[pick % (methods.length - 1)]!
        const otherAuthority = authorities.filter((a) => a !== input.authority)[pick % (authorities.length - 1)]!
        expect(codeOf({ ...request, method: otherMethod }, opts)).toBe("signature_invalid")
        expect(codeOf({ ...request, path: `${request.path}x` }, opts)).toBe("signature_invalid")
        expect(codeOf({ ...request, authority: otherAuthority }, opts)).toBe("signature_invalid")
        expect(codeOf({ ...request, authority: "elsewhere.example" }, opts)).toBe("authority_not_allowed")
      })
    )
  })
})
