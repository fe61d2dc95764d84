// The WriteChecks contract (src/ports/WriteChecks.ts): the in-process adapter and the
// worker-thread pool answer every request exactly alike, valid ones and each kind of
// refusal, and both answer what checkAicsSignature and checkSubmission decide. The pool
// runs the compiled worker in dist/ (built by the test run's globalSetup).

import { Cause, Context, Effect, Either, Exit, Layer, Option, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { InProcessWriteChecksLive } from "../../../src/adapters/workers/InProcessWriteChecks.js"
import { WorkerWriteChecksLive } from "../../../src/adapters/workers/WorkerWriteChecks.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import type { Envelope } from "../../../src/domain/envelope/envelope.js"
import { signRequest } from "../../../src/domain/http/messageSignature.js"
import type { RefusalCode } from "../../../src/domain/write/refusal.js"
import { type WriteCheck, WriteChecks, type WriteRequest } from "../../../src/ports/WriteChecks.js"
import { envelopeFor, makeAgent, postPayload, writeRequestBody } from "../../support/agents.js"

const ORIGIN = "checks.test/aics"
const AUTHORITY = "checks.test"
const CREATED = 1_795_000_000
const NOW = CREATED + 10
const settings = { origin: ORIGIN, authorities: [AUTHORITY] }

interface Signing {
  readonly keyid?: string
  readonly nonce?: string
  readonly created?: number
  readonly expires?: number
  readonly authority?: string
  readonly seed?: Uint8Array
}

const agent = makeAgent("write checks contract")
const other = makeAgent("write checks contract, another key")

/** A request carrying `body`, AICS-signed with the envelope's parameters unless overridden. */
const signed = (envelope: Envelope, body: Uint8Array, signing: Signing = {}, host = AUTHORITY): WriteRequest => {
  const headers = Either.getOrThrow(signRequest({
    seed: signing.seed ?? agent.seed,
    keyid: signing.keyid ?? envelope.kid,
    nonce: signing.nonce ?? envelope.nonce,
    created: signing.created ?? envelope.created,
    expires: signing.expires ?? envelope.expires,
    method: "POST",
    authority: signing.authority ?? AUTHORITY,
    path: "/v2/entries",
    body
  }, nodeCrypto))
  return {
    method: "POST",
    authority: host,
    path: "/v2/entries",
    query: "",
    headers: {
      "content-type": "application/json",
      "content-digest": headers["Content-Digest"],
      "signature-input": headers["Signature-Input"],
      signature: headers.Signature
    },
    body
  }
}

const post = (text: string, options: { origin?: string; type?: string; payload?: Record<string, unknown> } = {}) => {
  const { payload, body } = postPayload(text)
  const envelope = envelopeFor(agent, options.origin ?? ORIGIN, options.type ?? "post", options.payload ?? payload, { created: CREATED })
  return { envelope, body }
}

const postRequest = (text: string, signing: Signing = {}) => {
  const { envelope, body } = post(text)
  return signed(envelope, writeRequestBody(envelope, body), signing)
}

const withHeaders = (request: WriteRequest, change: (headers: Record<string, string | undefined>) => void): WriteRequest => {
  const headers = { ...request.headers } as Record<string, string | undefined>
  change(headers)
  return { ...request, headers }
}

/** A request as the text gate hands it over: the envelope's own signature, no HTTP signature. */
const selfSigned = (body: Uint8Array): WriteRequest => ({ method: "POST", authority: undefined, path: "", query: "", headers: {}, body, selfSigned: true })

/** Each case: the request and what it must come to ("ok" or the refusal code). */
const cases = (): ReadonlyArray<{ readonly label: string; readonly request: WriteRequest; readonly expect: "ok" | RefusalCode }> => {
  const valid = postRequest("hello")
  const claim = (() => {
    const envelope = envelopeFor(agent, ORIGIN, "claim", { name: "checker", x25519: agent.x25519 }, { created: CREATED })
    return signed(envelope, writeRequestBody(envelope, null))
  })()
  const tooBig = (() => {
    const { envelope, body } = post("big", { payload: { ...postPayload("big").payload, filler: "x".repeat(70_000) } })
    return signed(envelope, writeRequestBody(envelope, body))
  })()
  const raw = (text: string) => {
    const { envelope } = post("raw")
    return signed(envelope, utf8(text))
  }
  const withEnvelope = (envelope: Envelope, body: Uint8Array | null, signing: Signing = {}) =>
    signed(envelope, writeRequestBody(envelope, body), signing)
  const { envelope: goodEnvelope, body: goodBody } = post("good")
  const flipped = (() => {
    const sig = goodEnvelope.auth.sig
    return { ...goodEnvelope, auth: { ...goodEnvelope.auth, sig: (sig[0] === "A" ? "B" : "A") + sig.slice(1) } }
  })()
  // JSON.parse makes "__proto__" an own member; it must cross the thread boundary as one.
  const protoMember = (() => {
    const { envelope } = post("proto")
    const text = JSON.stringify({ envelope, body: null }).replace(`"payload":{`, `"payload":{"__proto__":{"size":1},`)
    return signed(envelope, utf8(text))
  })()
  const small = utf8("small")
  const oversized = post("x", { payload: { channel: "general", body_hash: encodeU64(nodeCrypto.sha256(small)), size: 16 * 1024 + 1 } })
  return [
    { label: "a valid post", request: valid, expect: "ok" },
    { label: "a valid claim (no body)", request: claim, expect: "ok" },
    { label: "repeated header lines", request: withHeaders(valid, (h) => { h["x-extra"] = "a, b" }), expect: "ok" },
    { label: "no signature", request: withHeaders(valid, (h) => { delete h["signature"]; delete h["signature-input"] }), expect: "signature_missing" },
    { label: "Signature-Input alone", request: withHeaders(valid, (h) => { delete h["signature"] }), expect: "signature_malformed" },
    { label: "another label only", request: withHeaders(valid, (h) => { h["signature-input"] = h["signature-input"]!.replace(/^aics=/, "x="); h["signature"] = h["signature"]!.replace(/^aics=/, "x=") }), expect: "signature_profile" },
    { label: "keyid not a did:key", request: postRequest("k", { keyid: "did:key:zNotAKey" }), expect: "keyid_invalid" },
    { label: "a short nonce", request: postRequest("n", { nonce: encodeU64(new Uint8Array(8)) }), expect: "nonce_invalid" },
    { label: "another authority", request: signed(goodEnvelope, writeRequestBody(goodEnvelope, goodBody), { authority: "evil.test" }, "evil.test"), expect: "authority_not_allowed" },
    { label: "a lifetime over 600 s", request: postRequest("l", { expires: CREATED + 601 }), expect: "signature_lifetime" },
    { label: "expired", request: postRequest("e", { created: NOW - 200, expires: NOW }), expect: "signature_expired" },
    { label: "created far from now", request: postRequest("c", { created: NOW + 400, expires: NOW + 500 }), expect: "signature_clock" },
    { label: "no Content-Digest", request: withHeaders(valid, (h) => { delete h["content-digest"] }), expect: "digest_missing" },
    { label: "signed by another key", request: postRequest("s", { seed: other.seed }), expect: "signature_invalid" },
    { label: "a body that is not the signed one", request: { ...valid, body: utf8(`${new TextDecoder().decode(valid.body)} `) }, expect: "digest_mismatch" },
    { label: "not JSON", request: raw("not json"), expect: "malformed_request" },
    { label: "a repeated member name", request: raw(`{"envelope":{},"body":null,"body":null}`), expect: "malformed_request" },
    { label: "an extra member", request: raw(JSON.stringify({ envelope: goodEnvelope, body: null, extra: 1 })), expect: "malformed_request" },
    { label: "an envelope missing a member", request: raw(JSON.stringify({ envelope: { ...goodEnvelope, v: undefined }, body: null })), expect: "malformed_envelope" },
    { label: "a nonce other than the signature's", request: withEnvelope(goodEnvelope, goodBody, { nonce: encodeU64(new Uint8Array(16).fill(7)) }), expect: "envelope_binding" },
    { label: "another origin", request: (() => { const p = post("o", { origin: "other.test/aics" }); return withEnvelope(p.envelope, p.body) })(), expect: "origin_mismatch" },
    { label: "an unknown type", request: (() => { const p = post("t", { type: "nonsense" }); return withEnvelope(p.envelope, p.body) })(), expect: "unknown_type" },
    { label: "a leaf over 65,535 bytes", request: tooBig, expect: "entry_too_large" },
    { label: "a bad envelope signature", request: withEnvelope(flipped, goodBody), expect: "envelope_signature_invalid" },
    { label: "a payload with an extra member", request: (() => { const p = post("p", { payload: { ...postPayload("p").payload, mood: "happy" } }); return withEnvelope(p.envelope, p.body) })(), expect: "payload_invalid" },
    { label: "a payload member named __proto__", request: protoMember, expect: "envelope_signature_invalid" },
    { label: "another body", request: withEnvelope(goodEnvelope, utf8("not the good one")), expect: "body_mismatch" },
    { label: "no body for a post", request: withEnvelope(goodEnvelope, null), expect: "body_mismatch" },
    { label: "a size over the limit", request: withEnvelope(oversized.envelope, small), expect: "body_too_large" },
    // The text gate's requests: signed by the envelope alone, no headers.
    { label: "self-signed: a valid post", request: selfSigned(writeRequestBody(goodEnvelope, goodBody)), expect: "ok" },
    { label: "self-signed: a bad envelope signature, refused before any nonce", request: selfSigned(writeRequestBody(flipped, goodBody)), expect: "envelope_signature_invalid" },
    { label: "self-signed: not JSON", request: selfSigned(utf8("not json")), expect: "malformed_request" },
    { label: "self-signed: expired", request: selfSigned(writeRequestBody(envelopeFor(agent, ORIGIN, "post", post("x").envelope.payload, { created: NOW - 400 }), null)), expect: "signature_expired" },
    { label: "self-signed: created far from now", request: selfSigned(writeRequestBody(envelopeFor(agent, ORIGIN, "post", post("x").envelope.payload, { created: NOW + 400 }), null)), expect: "signature_clock" },
    { label: "self-signed: a body that is not the hashed one", request: selfSigned(writeRequestBody(goodEnvelope, utf8("other"))), expect: "body_mismatch" }
  ]
}

const outcome = (check: WriteCheck): "ok" | RefusalCode =>
  check._tag === "SignatureRefused"
    ? check.refusal.code
    : check.submission._tag === "Refused" ? check.submission.refusal.code : "ok"

/** Builds the adapter in the scope (kept open for the whole suite). */
const build = (scope: Scope.CloseableScope, layer: Layer.Layer<WriteChecks, unknown>) =>
  Effect.runPromise(Effect.map(Layer.buildWithScope(layer, scope), Context.get(WriteChecks)))

describe("WriteChecks contract: in process and on worker threads", () => {
  const scope = Effect.runSync(Scope.make())
  let inProcess: typeof WriteChecks.Service
  let pool: typeof WriteChecks.Service

  beforeAll(async () => {
    inProcess = await build(scope, InProcessWriteChecksLive(settings).pipe(Layer.provide(NodeCryptoLive)))
    pool = await build(scope, WorkerWriteChecksLive({ ...settings, workers: 2 }))
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  it("answers every case alike, and as the domain's checks decide", async () => {
    const all = cases()
    const here = await Effect.runPromise(Effect.forEach(all, ({ request }) => inProcess.check(request, NOW)))
    // All at once, so the pool batches them and spreads them over both workers.
    const there = await Effect.runPromise(Effect.forEach(all, ({ request }) => pool.check(request, NOW), { concurrency: "unbounded" }))
    all.forEach(({ label, expect: expected }, i) => {
      expect({ label, outcome: outcome(here[i]!) }).toEqual({ label, outcome: expected })
      expect({ label, answer: there[i] }).toEqual({ label, answer: here[i] })
    })
  })

  it("hands back the checked submission and the signature's facts", async () => {
    const { envelope, body } = post("facts")
    const request = signed(envelope, writeRequestBody(envelope, body))
    const answer = await Effect.runPromise(pool.check(request, NOW))
    expect(answer).toEqual({
      _tag: "Signed",
      signature: { keyid: envelope.kid, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires },
      submission: {
        _tag: "Checked",
        checked: {
          envelope,
          envelopeJcs: expect.any(String),
          envelopeHash: expect.any(Uint8Array),
          body: { digest: nodeCrypto.sha256(body), bytes: body }
        }
      }
    })
  })

  it("ends the requests of a worker that dies as defects, and replaces the worker", async () => {
    const crashing = WorkerWriteChecksLive({ ...settings, workers: 1, script: new URL("./crashingWorker.mjs", import.meta.url) })
    const request = postRequest("crash")
    const exits = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const checks = Context.get(yield* Layer.build(crashing), WriteChecks)
      // The second request goes to the replacement, which dies too: neither one hangs.
      const first = yield* Effect.exit(checks.check(request, NOW))
      const second = yield* Effect.exit(checks.check(request, NOW))
      return [first, second]
    })))
    for (const exit of exits) {
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toContain("the write-check worker stopped: exit code 3")
    }
  })

  it("refuses to start when the worker script cannot load", async () => {
    const broken = WorkerWriteChecksLive({ ...settings, workers: 1, script: new URL("./missing-worker.js", import.meta.url) })
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(broken)))
    const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
    expect(Option.getOrThrow(error).detail).toContain("did not start")
  })
})

