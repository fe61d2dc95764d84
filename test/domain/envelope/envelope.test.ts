// docs/spec/profile.md section 3: the envelope's structure, checked by EnvelopeSchema.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { decodeEnvelope } from "../../../src/domain/envelope/envelope.js"
import { profileVectors as v } from "../profileVectors.js"

const [claim, post] = v.envelopes.map((e) => e.envelope) as [typeof v.envelopes[0]["envelope"], typeof v.envelopes[0]["envelope"]]
const ok = (input: unknown) => Either.isRight(decodeEnvelope(input))

describe("EnvelopeSchema", () => {
  it("accepts the vectors' envelopes as parsed from JSON, and hands back the same payload", () => {
    for (const e of [claim, post]) {
      const parsed = JSON.parse(JSON.stringify(e))
      const decoded = decodeEnvelope(parsed)
      expect(Either.isRight(decoded)).toBe(true)
      if (Either.isRight(decoded)) {
        expect(decoded.right).toEqual(e)
        expect(decoded.right.payload).toBe(parsed.payload)
      }
    }
  })

  it("refuses members that are missing, extra, or of the wrong type", () => {
    const without = (key: string) => Object.fromEntries(Object.entries(post).filter(([k]) => k !== key))
    for (const key of Object.keys(post)) expect(ok(without(key)), `without ${key}`).toBe(false)
    const bad: Array<[string, unknown]> = [
      ["extra member", { ...post, extra: 1 }],
      ["extra auth member", { ...post, auth: { ...post.auth, kid: post.kid } }],
      ["v", { ...post, v: "AICS-2" }],
      ["origin empty", { ...post, origin: "" }],
      ["type empty", { ...post, type: "" }],
      ["type not a string", { ...post, type: 1 }],
      ["kid", { ...post, kid: "did:key:z6Mk" }],
      ["kid as a key", { ...post, kid: v.agent.public_key_u64 }],
      ["seq negative", { ...post, seq: -1 }],
      ["seq fraction", { ...post, seq: 1.5 }],
      ["seq unsafe", { ...post, seq: 2 ** 53 }],
      ["seq string", { ...post, seq: "1" }],
      ["prev B64", { ...post, prev: post.prev + "=" }],
      ["prev short", { ...post, prev: encodeU64(new Uint8Array(31)) }],
      ["prev missing at seq 1", { ...post, prev: null }],
      ["prev at seq 0", { ...claim, prev: post.prev }],
      ["nonce 15 bytes", { ...post, nonce: encodeU64(new Uint8Array(15)) }],
      ["nonce 33 bytes", { ...post, nonce: encodeU64(new Uint8Array(33)) }],
      ["nonce padded", { ...post, nonce: encodeU64(new Uint8Array(16)) + "==" }],
      ["created fraction", { ...post, created: post.created + 0.5 }],
      ["expires = created", { ...post, expires: post.created }],
      ["expires < created", { ...post, expires: post.created - 1 }],
      ["expires > created + 600", { ...post, expires: post.created + 601 }],
      ["payload array", { ...post, payload: [] }],
      ["payload null", { ...post, payload: null }],
      ["payload lone surrogate", { ...post, payload: { channel: "\ud800" } }],
      ["auth alg", { ...post, auth: { ...post.auth, alg: "ed25519" } }],
      ["auth sig short", { ...post, auth: { ...post.auth, sig: encodeU64(new Uint8Array(63)) } }],
      ["auth sig B64", { ...claim, auth: { ...claim.auth, sig: claim.auth.sig.replace(/-/g, "+").replace(/_/g, "/") } }],
      ["not an object", "envelope"],
      ["array", [post]]
    ]
    for (const [label, input] of bad) expect(ok(input), label).toBe(false)
  })

  it("accepts every lifetime from 1 to 600 seconds and every nonce of 16 to 32 bytes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 16, max: 32 }), (life, n) => {
        expect(ok({ ...post, expires: post.created + life, nonce: encodeU64(new Uint8Array(n).fill(7)) })).toBe(true)
      })
    )
  })
})
