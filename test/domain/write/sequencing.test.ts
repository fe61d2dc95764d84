// The write decision as a pure fold: random interleavings of valid and invalid envelopes
// from many keys. Accepted leaves form unbroken seq/prev chains, refused ones leave no
// trace, and the incremental state equals a fold of the accepted leaves from scratch.

import { Either, HashMap, HashSet } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import type { Envelope } from "../../../src/domain/envelope/envelope.js"
import { prevOf } from "../../../src/domain/envelope/hash.js"
import { foldEntry } from "../../../src/domain/write/applyEntry.js"
import { decide } from "../../../src/domain/write/decide.js"
import { emptyLogState, type LogState } from "../../../src/domain/write/logState.js"
import { checkSubmission } from "../../../src/domain/write/submission.js"
import { accepted, envelopeFor, makeAgent, postPayload, writeRequestBody, type TestAgent } from "../../support/agents.js"

const ORIGIN = "seq.test/aics"
const ctx = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

const submit = (state: LogState, envelope: Envelope, body: Uint8Array | null, now: number) => {
  const checked = checkSubmission(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, ctx)
  if (Either.isLeft(checked)) return { state, refused: checked.left.code, entry: undefined }
  const decision = decide(state, checked.right, now)
  if (Either.isLeft(decision)) return { state, refused: decision.left.code, entry: undefined }
  return { state: decision.right.state, refused: undefined, entry: decision.right.entryBytes }
}

/** A plain, comparable picture of the state. */
const snapshot = (state: LogState) => ({
  size: state.size,
  lastLogged: state.lastLogged,
  chains: [...HashMap.entries(state.chains)].map(([k, v]) => [k, v.seq, encodeU64(v.hash), v.index]).sort(),
  names: [...HashMap.entries(state.names)].sort(),
  keyNames: [...HashMap.entries(state.keyNames)].sort(),
  posts: [...HashSet.values(state.posts)].sort((a, b) => a - b)
})

type Action =
  | { kind: "post"; agent: number; text: string }
  | { kind: "claim"; agent: number; name: string }
  | { kind: "stale_seq"; agent: number }
  | { kind: "wrong_prev"; agent: number }
  | { kind: "bad_signature"; agent: number }
  | { kind: "replay"; agent: number }
  | { kind: "bad_body"; agent: number }

const action = (agents: number): fc.Arbitrary<Action> => {
  const agent = fc.nat({ max: agents - 1 })
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant("post" as const), agent, text: fc.string({ minLength: 1, maxLength: 40 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("claim" as const), agent, name: fc.constantFrom("alice", "bob", "carol", "dave", "Eve", "root", "x") }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("stale_seq" as const), agent }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("wrong_prev" as const), agent }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("bad_signature" as const), agent }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("replay" as const), agent }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("bad_body" as const), agent }) }
  )
}

describe("decide and fold", () => {
  it("accepts unbroken chains only, refusals leave no trace, and the state is the fold of the log", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(fc.constant(n), fc.array(action(n), { maxLength: 40 }))), ([n, actions]) => {
      const agents: Array<TestAgent> = Array.from({ length: n }, (_, i) => makeAgent(`seq-${i}-${Math.random()}`))
      const lastAccepted = new Map<number, { envelope: Envelope; body: Uint8Array | null }>()
      let state = emptyLogState
      const leaves: Array<Uint8Array> = []
      let now = 1_795_000_000_000
      for (const act of actions) {
        now += 7
        const agent = agents[act.agent]!
        let envelope: Envelope
        let body: Uint8Array | null = null
        switch (act.kind) {
          case "post": {
            const p = postPayload(act.text)
            envelope = envelopeFor(agent, ORIGIN, "post", p.payload)
            body = p.body
            break
          }
          case "claim":
            envelope = envelopeFor(agent, ORIGIN, "claim", { name: act.name, x25519: agent.x25519 })
            break
          case "stale_seq": {
            const p = postPayload("stale")
            envelope = envelopeFor(agent, ORIGIN, "post", p.payload, { seq: agent.seq + 1, prev: agent.prev ?? encodeU64(new Uint8Array(32)) })
            body = p.body
            break
          }
          case "wrong_prev": {
            const p = postPayload("wrong prev")
            envelope = envelopeFor(agent, ORIGIN, "post", p.payload, agent.seq === 0 ? {} : { prev: encodeU64(new Uint8Array(32)) })
            if (agent.seq === 0) envelope = { ...envelope, prev: encodeU64(new Uint8Array(32)), seq: 0 }
            body = p.body
            break
          }
          case "bad_signature": {
            const p = postPayload("tampered")
            envelope = envelopeFor(agent, ORIGIN, "post", p.payload)
            envelope = { ...envelope, payload: { ...envelope.payload, channel: "other" } }
            body = p.body
            break
          }
          case "replay": {
            const last = lastAccepted.get(act.agent)
            if (last === undefined) continue
            envelope = last.envelope
            body = last.body
            break
          }
          case "bad_body": {
            const p = postPayload("the body")
            envelope = envelopeFor(agent, ORIGIN, "post", p.payload)
            body = postPayload("another body").body
            break
          }
        }
        const before = state
        const result = submit(state, envelope, body, now)
        if (result.refused !== undefined) {
          // A refusal leaves the state exactly as it was.
          expect(result.state).toBe(before)
          expect(["post", "claim"].includes(act.kind) ? ["name_taken", "key_has_name", "name_invalid", "name_reserved"] : [
            "seq_mismatch", "prev_mismatch", "envelope_signature_invalid", "body_mismatch", "malformed_envelope"
          ]).toContain(result.refused)
        } else {
          expect(["post", "claim"]).toContain(act.kind)
          accepted(agent, envelope)
          lastAccepted.set(act.agent, { envelope, body })
          leaves.push(result.entry!)
        }
        state = result.state
      }

      // Accepted leaves form unbroken chains per key.
      const heads = new Map<string, { seq: number; prev: string }>()
      leaves.forEach((bytes, index) => {
        const leaf = JSON.parse(fromUtf8(bytes)) as { envelope: Envelope; index: number }
        expect(leaf.index).toBe(index)
        const head = heads.get(leaf.envelope.kid)
        expect(leaf.envelope.seq).toBe(head === undefined ? 0 : head.seq + 1)
        expect(leaf.envelope.prev).toBe(head === undefined ? null : head.prev)
        heads.set(leaf.envelope.kid, { seq: leaf.envelope.seq, prev: Either.getOrThrow(prevOf(nodeCrypto.sha256, leaf.envelope)) })
      })

      // The incremental state equals a fold of the accepted leaves from scratch.
      let folded = emptyLogState
      for (const bytes of leaves) folded = Either.getOrThrow(foldEntry(nodeCrypto.sha256, folded, bytes))
      expect(snapshot(folded)).toEqual(snapshot(state))
    }), { numRuns: 200 })
  })

  it("never accepts two envelopes of one key with the same seq", () => {
    const agent = makeAgent("twice")
    const a = postPayload("first")
    const b = postPayload("second")
    const first = envelopeFor(agent, ORIGIN, "post", a.payload)
    const second = envelopeFor(agent, ORIGIN, "post", b.payload)
    const one = submit(emptyLogState, first, a.body, 1)
    expect(one.refused).toBeUndefined()
    expect(submit(one.state, second, b.body, 2).refused).toBe("seq_mismatch")
  })
})

describe("small-order keys", () => {
  it("refuses the first envelope of a key of small order, even with a signature that verifies", async () => {
    const { didKeyFromPublicKey } = await import("../../../src/domain/identity/didKey.js")
    const { isSmallOrderKey } = await import("../../../src/domain/identity/smallOrder.js")
    // The identity point: R = identity, S = 0 "verifies" any message under it in OpenSSL.
    const identity = new Uint8Array(32)
    identity[0] = 1
    expect(isSmallOrderKey(identity)).toBe(true)
    expect(isSmallOrderKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32)))).toBe(false)
    const kid = didKeyFromPublicKey(identity)
    const p = postPayload("forged")
    const envelope: Envelope = {
      v: "AICS-1", origin: ORIGIN, type: "post", kid, seq: 0, prev: null,
      nonce: encodeU64(new Uint8Array(16)), created: 1_795_000_000, expires: 1_795_000_300,
      payload: p.payload, auth: { alg: "ed25519-jcs", sig: encodeU64(new Uint8Array([...identity, ...new Uint8Array(32)])) }
    }
    const checked = checkSubmission(writeRequestBody(envelope, p.body), { ...envelope, keyid: kid }, ctx)
    expect(Either.isLeft(checked) && checked.left.code).toBe("keyid_invalid")
  })
})
