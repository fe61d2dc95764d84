// docs/spec/profile.md section 3: the envelope hash and the prev chain.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { envelopeHash, prevOf } from "../../../src/domain/envelope/hash.js"
import { profileVectors as v } from "../profileVectors.js"

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("envelope hashes (%s)", (_, crypto) => {
  it("envelope 1's prev is U64(SHA-256(JCS(envelope 0 with auth)))", () => {
    const [first, second] = v.envelopes as [(typeof v.envelopes)[0], (typeof v.envelopes)[0]]
    expect(Either.getOrThrow(prevOf(crypto.sha256, first.envelope))).toBe(second.envelope.prev)
    expect(encodeU64(Either.getOrThrow(envelopeHash(crypto.sha256, first.envelope)))).toBe(second.envelope.prev)
  })

  it("is SHA-256 of envelope_jcs, so it covers auth.sig", () => {
    for (const e of v.envelopes) {
      expect(Either.getOrThrow(envelopeHash(crypto.sha256, e.envelope))).toEqual(crypto.sha256(utf8(e.envelope_jcs)))
    }
    const e = v.envelopes[0]!.envelope
    const resigned = { ...e, auth: { ...e.auth, sig: e.auth.sig.replace(/^./, "S") } }
    expect(Either.getOrThrow(prevOf(crypto.sha256, resigned))).not.toBe(Either.getOrThrow(prevOf(crypto.sha256, e)))
  })

  it("fails, typed, on data with no JCS form", () => {
    const e = { ...v.envelopes[0]!.envelope, payload: { x: Infinity } }
    const result = envelopeHash(crypto.sha256, e)
    expect(Either.isLeft(result) && result.left._tag).toBe("JcsError")
  })
})
