// The service's own leaves after leaf 0 (docs/spec/profile.md section 5, "Policy-signed"): the
// `report` of a closed notice, `sup.credit` and `sup.refusal`, and the `claim` and `post`
// leaves of secret-bound names (payload `as`, written by the text gate, app/Gate.ts). Each is an envelope of the
// policy key at the head of its chain, checked like any entry and handed to the one
// sequencer, and refused log_unavailable while the log has diverged from its tiles, as
// any write to /v2/entries is (EntryWrites step 5). One at a time: each write takes the chain head and extends it, so two at once
// would both take the same seq and one would be refused. With several nodes (docs/protocol.md
// 14) another node may extend the policy chain between this node's read of the head and
// the sequencer's decision: that leaf is refused seq_mismatch or prev_mismatch, so the
// write waits until this node has folded the newer head and signs again (a few times at most).
// The head is the row `chains[policyKid]` of the projection store (StateReader), which folds
// what the sequencer committed before it answers: a write never signs on a head older than
// the last leaf this node committed. A store that cannot be read fails the write with its
// StorageError: nothing was signed or submitted.

import { Context, Effect, Either, HashMap, Layer, Option } from "effect"
import { utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { AUTH_ALG, ENVELOPE_VERSION, type Envelope, type UnsignedEnvelope } from "../domain/envelope/envelope.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { signingInput } from "../domain/envelope/signature.js"
import { didKeyFromPublicKey } from "../domain/identity/didKey.js"
import { refuse } from "../domain/write/refusal.js"
import { checkEntry } from "../domain/write/submission.js"
import { Crypto } from "../ports/Crypto.js"
import { Entropy } from "../ports/Entropy.js"
import { Signer } from "../ports/Signer.js"
import type { StorageError } from "../ports/StorageError.js"
import { LogHealth } from "./LogHealth.js"
import { Sequencer, type WriteOutcome } from "./Sequencer.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { StateReader } from "./StateReader.js"

const NONCE_BYTES = 16
/** Attempts of one policy write that lost the policy chain's head to another node. */
const HEAD_ATTEMPTS = 5
/** How long a retry waits for this node to fold the other node's leaf, in 20 ms steps. */
const FOLD_STEPS = 150

export interface PolicyWrite {
  readonly envelope: Envelope
  /**
   * The {envelope, body} request it submitted. A route answers a refused policy leaf as the
   * refusal of the request that caused it (docs/protocol.md 13.3); the text gate, whose
   * line is that request, prints the refusal receipt of these bytes (17.5).
   */
  readonly request: Uint8Array
  readonly outcome: WriteOutcome
}

export class PolicyWrites extends Context.Tag("aics/PolicyWrites")<PolicyWrites, {
  /**
   * Signs and submits one policy leaf of `type`; `nowMillis` is its envelope's created time.
   * `body` is the off-leaf body its payload names (a secret-bound name's post), if any.
   */
  readonly write: (type: string, payload: JsonObject, nowMillis: number, body?: Uint8Array) => Effect.Effect<PolicyWrite, StorageError>
}>() {
  static readonly layer = Layer.effect(PolicyWrites, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const crypto = yield* Crypto
    const entropy = yield* Entropy
    const sequencer = yield* Sequencer
    const reader = yield* StateReader
    const signer = yield* Signer
    const health = yield* LogHealth
    const policyKid = didKeyFromPublicKey(signer.policy.publicKey)
    const context = { origin: config.origin, sha256: crypto.sha256, ed25519: crypto.ed25519 }
    const lock = yield* Effect.makeSemaphore(1)

    /** The policy key's chain head, as the projection has folded it. */
    const policyHead = Effect.map(reader.slice([{ area: "chains", key: policyKid }]), (slice) => HashMap.get(slice.chains, policyKid))
    const headSeq = Effect.map(policyHead, Option.match({ onNone: () => -1, onSome: (h) => h.seq }))

    const attempt = (type: string, payload: JsonObject, nowMillis: number, body?: Uint8Array) =>
      Effect.gen(function*() {
        const head = yield* policyHead
        const created = Math.floor(nowMillis / 1000)
        const unsigned: UnsignedEnvelope = {
          v: ENVELOPE_VERSION,
          origin: config.origin,
          type,
          kid: policyKid,
          seq: Option.match(head, { onNone: () => 0, onSome: (h) => h.seq + 1 }),
          prev: Option.match(head, { onNone: () => null, onSome: (h) => encodeU64(h.hash) }),
          nonce: encodeU64(yield* entropy.randomBytes(NONCE_BYTES)),
          created,
          expires: created + 600,
          payload
        }
        const input = signingInput(unsigned)
        if (Either.isLeft(input)) return yield* Effect.die(new Error(input.left.reason))
        const signature = yield* signer.policy.sign(utf8(input.right))
        const envelope: Envelope = { ...unsigned, auth: { alg: AUTH_ALG, sig: encodeU64(signature) } }
        const raw = utf8(JSON.stringify({ envelope, body: body === undefined ? null : encodeU64(body) }))
        const submission = checkEntry(raw, { keyid: policyKid, nonce: envelope.nonce, created, expires: envelope.expires }, context, ["policy"])
        if (Either.isLeft(submission)) return { envelope, request: raw, outcome: { _tag: "Refused" as const, refusal: submission.left, at: nowMillis } }
        const diverged = yield* health.diverged
        if (diverged !== undefined) return { envelope, request: raw, outcome: { _tag: "Refused" as const, refusal: refuse("log_unavailable", diverged), at: nowMillis } }
        return { envelope, request: raw, outcome: yield* sequencer.submit(submission.right) }
      })

    const lostHead = (written: PolicyWrite) =>
      written.outcome._tag === "Refused" && (written.outcome.refusal.code === "seq_mismatch" || written.outcome.refusal.code === "prev_mismatch")

    const write = (type: string, payload: JsonObject, nowMillis: number, body?: Uint8Array) =>
      lock.withPermits(1)(Effect.gen(function*() {
        let written = yield* attempt(type, payload, nowMillis, body)
        for (let tries = 1; tries < HEAD_ATTEMPTS && lostHead(written); tries++) {
          // Another node's policy leaf took this seq: wait until this node has folded it.
          for (let step = 0; step < FOLD_STEPS && (yield* headSeq) < written.envelope.seq; step++) yield* Effect.sleep("20 millis")
          written = yield* attempt(type, payload, nowMillis, body)
        }
        return written
      }))

    return { write }
  }))
}
