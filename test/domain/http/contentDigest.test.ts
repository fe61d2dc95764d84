// RFC 9530 Content-Digest: the digests RFC 9530 and RFC 9421 print for their example
// bodies, the profile vectors (docs/spec/profile.md section 9), and the checks of a received field.

import { createHash } from "node:crypto"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeB64 } from "../../../src/domain/encoding.js"
import { checkContentDigest, contentDigest, parseContentDigest } from "../../../src/domain/http/contentDigest.js"
import { partsOf, readVector, writeVector } from "./httpVectors.js"

// RFC 9530 section 2 and Appendix B: the JSON object followed by LF (19 bytes).
const RFC9530_BODY = utf8('{"hello": "world"}\n')
// RFC 9530 Appendix B.1 (and B.3's Content-Digest): sha-256 of RFC9530_BODY.
const RFC9530_SHA256 = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:"
// RFC 9530 section 2: sha-512 of RFC9530_BODY.
const RFC9530_SHA512 =
  "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:"
// RFC 9530 Appendix B.2 (empty content of a HEAD or 204 response).
const EMPTY_SHA256 = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
// RFC 9421 Appendix B.2: the test-request's 18-byte body and its Content-Digest.
const RFC9421_BODY = utf8('{"hello": "world"}')
const RFC9421_SHA512 =
  "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"
// The digest the pre-RFC drafts of RFC 9421 carried for the same body (Digest: SHA-256=...).
const RFC9421_SHA256 = "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:"

// The domain offers SHA-256 only; the RFCs' sha-512 values are checked here with node:crypto.
const sha512Digest = (body: Uint8Array) => `sha-512=:${encodeB64(createHash("sha512").update(body).digest())}:`

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("Content-Digest (%s)", (_, crypto) => {
  const ok = (field: string, body: Uint8Array) => Either.isRight(checkContentDigest(crypto.sha256, field, body))
  const reason = (field: string, body: Uint8Array) =>
    Either.match(checkContentDigest(crypto.sha256, field, body), { onLeft: (e) => e.reason, onRight: () => "ok" })

  it("writes the RFC 9530 and RFC 9421 sha-256 examples", () => {
    expect(contentDigest(crypto.sha256, RFC9530_BODY)).toBe(RFC9530_SHA256)
    expect(contentDigest(crypto.sha256, new Uint8Array())).toBe(EMPTY_SHA256)
    expect(contentDigest(crypto.sha256, RFC9421_BODY)).toBe(RFC9421_SHA256)
    expect(sha512Digest(RFC9530_BODY)).toBe(RFC9530_SHA512)
    expect(sha512Digest(RFC9421_BODY)).toBe(RFC9421_SHA512)
  })

  it("reproduces the profile vectors' Content-Digest, the read's being the empty string's", () => {
    expect(contentDigest(crypto.sha256, partsOf(writeVector).body)).toBe(writeVector.headers["Content-Digest"])
    expect(contentDigest(crypto.sha256, new Uint8Array())).toBe(readVector.headers["Content-Digest"])
    expect(readVector.headers["Content-Digest"]).toBe(EMPTY_SHA256)
  })

  it("accepts a sha-256 member equal to the body's digest, with other algorithms beside it", () => {
    expect(ok(RFC9530_SHA256, RFC9530_BODY)).toBe(true)
    expect(ok(`${RFC9530_SHA256}, ${RFC9530_SHA512}`, RFC9530_BODY)).toBe(true)
    expect(ok(`${RFC9530_SHA512},${RFC9530_SHA256}`, RFC9530_BODY)).toBe(true)
    // Another algorithm's value is not verified, so a wrong one does not matter.
    expect(ok(`${RFC9530_SHA256}, ${RFC9421_SHA512}`, RFC9530_BODY)).toBe(true)
    expect(ok(EMPTY_SHA256, new Uint8Array())).toBe(true)
  })

  it("says missing when there is no sha-256 member (RFC 9421's test-request has sha-512 only)", () => {
    expect(reason(RFC9421_SHA512, RFC9421_BODY)).toBe("missing")
    expect(reason("", RFC9421_BODY)).toBe("missing")
    expect(reason("SHA-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", RFC9421_BODY)).toBe("malformed")
  })

  it("says mismatch for another body, including one byte more or less", () => {
    expect(reason(RFC9530_SHA256, RFC9421_BODY)).toBe("mismatch")
    expect(reason(RFC9421_SHA256, RFC9530_BODY)).toBe("mismatch")
    expect(reason(EMPTY_SHA256, utf8(" "))).toBe("mismatch")
  })

  it("says malformed for anything but a Dictionary of parameter-less byte sequences", () => {
    for (const field of [
      "sha-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", // RFC 3230 Digest syntax
      'sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="',
      `${RFC9421_SHA256};alg=1`,
      `${RFC9421_SHA256}, ${RFC9421_SHA256}`, // the same key twice
      "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE:", // unpadded
      "sha-256=(:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:)",
      "sha-256"
    ]) {
      expect(reason(field, RFC9421_BODY), field).toBe("malformed")
    }
  })

  it("holds for every body: its own digest passes, any changed byte fails", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (body, at, x) => {
        const field = contentDigest(crypto.sha256, body)
        expect(ok(field, body)).toBe(true)
        const changed = body.slice()
        changed[at % body.length] = changed[at % body.length]! ^ x
        expect(reason(field, changed)).toBe("mismatch")
      })
    )
  })
})

describe("parseContentDigest", () => {
  it("gives each algorithm's bytes", () => {
    const digests = Either.getOrThrow(parseContentDigest(`${RFC9530_SHA256}, ${RFC9530_SHA512}`))
    expect([...digests.keys()]).toEqual(["sha-256", "sha-512"])
    expect(digests.get("sha-256")).toEqual(nodeCrypto.sha256(RFC9530_BODY))
    expect(digests.get("sha-512")).toEqual(new Uint8Array(createHash("sha512").update(RFC9530_BODY).digest()))
  })
})
