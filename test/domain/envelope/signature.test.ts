// docs/spec/profile.md section 3: each envelope's signing input and signature, reproduced from the
// agent's seed, and verification of good and bad envelopes.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromHex } from "../../../src/domain/bytes.js"
import { decodeU64, encodeU64 } from "../../../src/domain/encoding.js"
import type { Envelope, UnsignedEnvelope } from "../../../src/domain/envelope/envelope.js"
import { jcs } from "../../../src/domain/envelope/jcs.js"
import { envelopeTexts, signEnvelope, signingInput, verifyEnvelopeSignature, verifySigningInput } from "../../../src/domain/envelope/signature.js"
import { didKeyFromPublicKey } from "../../../src/domain/identity/didKey.js"
import { profileVectors as v } from "../profileVectors.js"

const seed = fromHex(v.agent.ed25519_seed_hex)!

const unsigned = (envelope: Envelope): UnsignedEnvelope => {
  const { auth: _auth, ...rest } = envelope
  return rest
}

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("the vectors' envelopes (%s)", (_, crypto) => {
  it.each(v.envelopes.map((e, i) => [i, e] as const))("envelope %i: signing input, signature, verification", (_, e) => {
    expect(Either.getOrThrow(signingInput(e.envelope))).toBe(e.signing_input)
    expect(Either.getOrThrow(signingInput(unsigned(e.envelope)))).toBe(e.signing_input)
    const signed = Either.getOrThrow(signEnvelope(unsigned(e.envelope), seed, crypto.ed25519))
    expect(signed.auth).toEqual(e.envelope.auth)
    expect(signed).toEqual(e.envelope)
    expect(verifyEnvelopeSignature(e.envelope, crypto.ed25519)).toBe(true)
  })
})

describe("verifyEnvelopeSignature", () => {
  const e = v.envelopes[1]!.envelope
  const { ed25519 } = nodeCrypto
  const other = didKeyFromPublicKey(ed25519.publicKey(new Uint8Array(32).fill(9)))

  it("is false for any change to a signed member", () => {
    const changed: Array<Envelope> = [
      { ...e, seq: 2 },
      { ...e, prev: null },
      { ...e, created: e.created + 1 },
      { ...e, origin: "example.test/other" },
      { ...e, type: "claim" },
      { ...e, payload: { ...e.payload, size: 14 } },
      { ...e, payload: { ...e.payload, extra: true } },
      { ...e, kid: other }
    ]
    for (const envelope of changed) expect(verifyEnvelopeSignature(envelope, ed25519)).toBe(false)
  })

  it("is false for another alg, a bad kid or a malformed signature, and never throws", () => {
    const sig = decodeU64(e.auth.sig)!
    const flipped = sig.slice()
    flipped[0]! ^= 1
    const bad: Array<Envelope> = [
      { ...e, auth: { ...e.auth, alg: "ed25519" as "ed25519-jcs" } },
      { ...e, kid: "did:key:zNotAKey" },
      { ...e, kid: e.kid.replace("did:key:", "did:web:") },
      { ...e, auth: { ...e.auth, sig: encodeU64(flipped) } },
      { ...e, auth: { ...e.auth, sig: encodeU64(sig.subarray(0, 63)) } },
      { ...e, auth: { ...e.auth, sig: e.auth.sig + "=" } },
      { ...e, auth: { ...e.auth, sig: "" } },
      { ...e, payload: { x: NaN } }
    ]
    for (const envelope of bad) expect(verifyEnvelopeSignature(envelope, ed25519)).toBe(false)
  })

  it("signs the alg: an auth member added after signing breaks the signature", () => {
    const extended = { ...e, auth: { ...e.auth, note: "x" } } as unknown as Envelope
    expect(Either.getOrThrow(signingInput(extended))).toContain('"auth":{"alg":"ed25519-jcs","note":"x"}')
    expect(verifyEnvelopeSignature(extended, ed25519)).toBe(false)
  })

  it("verifies what signEnvelope signs, for any payload", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.uint8Array({ minLength: 32, maxLength: 32 }), (payload, key) => {
        const base = { ...unsigned(e), kid: didKeyFromPublicKey(ed25519.publicKey(key)), payload: JSON.parse(JSON.stringify(payload)) }
        const signed = Either.getOrThrow(signEnvelope(base, key, ed25519))
        expect(verifyEnvelopeSignature(signed, ed25519)).toBe(true)
        expect(verifyEnvelopeSignature({ ...signed, kid: e.kid }, ed25519)).toBe(false)
      }),
      { numRuns: 50 }
    )
  })
})

describe("envelopeTexts", () => {
  const e = v.envelopes[1]!.envelope

  it("gives the vectors' signing inputs and the JCS of the whole envelope", () => {
    for (const { envelope, signing_input } of v.envelopes) {
      const texts = Either.getOrThrow(envelopeTexts(envelope))
      expect(texts.signed).toBe(signing_input)
      expect(texts.whole).toBe(Either.getOrThrow(jcs(envelope)))
      expect(verifySigningInput(envelope, texts.signed, nodeCrypto.ed25519)).toBe(true)
    }
  })

  it("equals signingInput and jcs for any payload and auth", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()), (payload, extra) => {
        const envelope = JSON.parse(JSON.stringify({ ...e, payload, auth: { ...extra, ...e.auth } })) as Envelope
        const texts = envelopeTexts(envelope)
        const expected = Either.all({ signed: signingInput(envelope), whole: jcs(envelope) })
        expect(Either.isRight(texts)).toBe(Either.isRight(expected))
        if (Either.isRight(texts) && Either.isRight(expected)) expect(texts.right).toEqual(expected.right)
      })
    )
  })
})
