// POST /v2/entries as a use case (docs/spec/service.md "Log entry request", "Entry receipt";
// docs/spec/profile.md sections 4, 6 and 7). In order:
//   1. no query string, a request body within the size limit;
//   2. the RFC 9421 signature in the AICS profile (domain/http/aicsProfile.ts), or for the
//      text gate's self-signed requests the envelope's own signature and clock;
//   3. the (keyid, nonce) pair not seen before (NonceStore), remembered until expires + 300 s;
//   4. the stateless checks of the envelope, payload and body (domain/write/submission.ts);
//   5. the log accepting writes (not diverged);
//   6. the sequencer's decision and durable commit.
// Steps 2 and 4 are the WriteChecks port, which may run them on a worker thread: it
// answers both at once, and this use case applies them in the order above, spending the
// nonce between them, so the answers are those of running the steps one by one.
// Every answer carries a log-signed receipt: 202 with the receipt of the leaf, or the
// refusal's status with a refusal receipt naming the code.

import { Context, Effect, Either, Layer, Schema } from "effect"
import { type BudgetName, nodeRule } from "../domain/admission/budgets.js"
import { meetsWork, WORK_TYPE } from "../domain/admission/proofOfWork.js"
import { currentNameOf } from "../domain/identity/bindings.js"
import { entryRuleOf } from "../domain/entries/registry.js"
import { replayExpiry } from "../domain/http/aicsProfile.js"
import { payloadSignatureCheck } from "../domain/identity/possession.js"
import { refuse, replayStoreFailed, type Refusal } from "../domain/write/refusal.js"
import type { Submission } from "../domain/write/submission.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { NonceStore } from "../ports/NonceStore.js"
import { type CheckedSubmission, type WriteCheck, WriteChecks, type WriteRequest } from "../ports/WriteChecks.js"
import { admissionOrOpen, type RateLimitFields, type Verdict } from "./Admission.js"
import { BodyLedger } from "./BodyLedger.js"
import { LogHealth } from "./LogHealth.js"
import { Sequencer } from "./Sequencer.js"
import { StateReader } from "./StateReader.js"
import { writeTracing } from "./Tracing.js"
import { WriteAnswers, type WriteAnswer } from "./WriteAnswers.js"

/** What the checks answered, as span attributes: the entry's type and the result. */
const checkAttributes = (checked: WriteCheck): Record<string, unknown> =>
  checked._tag === "SignatureRefused"
    ? { "aics.check.result": checked.refusal.code }
    : checked.submission._tag === "Refused"
    ? { "aics.check.result": checked.submission.refusal.code }
    : { "aics.check.result": "passed", "aics.entry.type": checked.submission.checked.envelope.type }

/** Largest accepted request body: a 64 KiB envelope and a 64 KiB body in U64, with room. */
export const MAX_WRITE_REQUEST_BYTES = 256 * 1024

export type { WriteAnswer }

export class EntryWrites extends Context.Tag("aics/EntryWrites")<EntryWrites, {
  readonly write: (request: WriteRequest) => Effect.Effect<WriteAnswer>
  /**
   * The refusal of a request whose body exceeds its route's limit (MAX_WRITE_REQUEST_BYTES
   * here, MAX_ADMIN_REQUEST_BYTES on the owner's routes), answered without reading the rest
   * of it (its receipt names the SHA-256 of the empty string).
   */
  readonly tooLarge: (limit: number) => Effect.Effect<WriteAnswer>
  /**
   * A signed {envelope, body} request that arrived without an RFC 9421 signature (the text
   * gate, docs/protocol.md section 17): write's pipeline, with the envelope's own signature
   * and the profile's clock rules on its created and expires as the signature step.
   */
  readonly writeSelfSigned: (body: Uint8Array, client?: string) => Effect.Effect<WriteAnswer>
}>() {
  static readonly layer = Layer.effect(EntryWrites, Effect.gen(function*() {
    const crypto = yield* Crypto
    const clock = yield* Clock
    const nonces = yield* NonceStore
    const health = yield* LogHealth
    const ledger = yield* BodyLedger
    const sequencer = yield* Sequencer
    const reader = yield* StateReader
    const answers = yield* WriteAnswers
    const checks = yield* WriteChecks
    const verify = payloadSignatureCheck(crypto.ed25519)
    const admission = yield* admissionOrOpen
    const workBits = admission.limits.claimWorkBits
    const tracing = yield* writeTracing

    /** The stateless checks, in a span of their own when traces are on (app/Tracing.ts). */
    const check: (request: WriteRequest, now: number) => Effect.Effect<WriteCheck> = tracing.on
      ? (request, now) =>
        checks.check(request, now).pipe(
          Effect.tap((checked) => tracing.annotate(() => checkAttributes(checked))),
          tracing.span("aics.write.checks", () => ({ attributes: { "aics.request.bytes": request.body.length } }))
        )
      : checks.check

    /**
     * The submission the sequencer decides. What the checks answer is plain data; the entry
     * rule, the decoded payload and the payload signature check are taken again here, from
     * the type and the payload the checks already accepted.
     */
    const submissionOf = (checked: CheckedSubmission): Either.Either<Submission, Refusal> => {
      const rule = entryRuleOf(checked.envelope.type)
      if (rule === undefined) return Either.left(refuse("unknown_type", `${JSON.stringify(checked.envelope.type)} is not an entry type`))
      const payload = Schema.decodeUnknownEither(rule.payload, { onExcessProperty: "error", errors: "all" })(checked.envelope.payload)
      if (Either.isLeft(payload)) return Either.left(refuse("payload_invalid", payload.left.message))
      return Either.right({ ...checked, rule, payload: payload.right, verify })
    }

    const refusal = (request: WriteRequest, reason: Refusal, at: number) => answers.refused(request.body, reason, at)

    /** The signed `rate_limited` refusal of a spent budget, with Retry-After and its RateLimit fields. */
    const limited = (request: WriteRequest, verdict: Extract<Verdict, { admitted: false }>, at: number) =>
      Effect.map(refusal(request, { ...refuse("rate_limited", verdict.detail), retryAfter: verdict.retryAfter }, at), (answer) => ({ ...answer, rateLimit: verdict.fields }))

    /** An answer with the RateLimit fields of the client's write budget, when it spent one. */
    const paced = (fields: RateLimitFields | undefined) => (answer: WriteAnswer): WriteAnswer =>
      fields === undefined || answer.rateLimit !== undefined ? answer : { ...answer, rateLimit: fields }

    /**
     * Budgets before any check (docs/protocol.md "Fair admission"): the client address's writes and
     * the service's ceiling, so a flood costs the service no signature verification.
     */
    const addressBudgets = (request: WriteRequest): ReadonlyArray<readonly [BudgetName, string]> =>
      request.client === undefined ? [["service_writes", "service"]] : [["writes", request.client], ["service_writes", "service"]]

    /** Budgets of a verified key, and of the name it acts for. */
    const keyBudgets = (kid: string, name: string | undefined): ReadonlyArray<readonly [BudgetName, string]> =>
      name === undefined
        ? [["key_writes_minute", kid], ["key_writes_day", kid]]
        : [["key_writes_minute", kid], ["key_writes_day", kid], ["name_writes_minute", name], ["name_writes_day", name]]

    // The name a key acts for is one row of the projection store (keyNames[kid]): read only
    // when a name budget is on, since an off budget admits whatever the name.
    const nameBudgetsOn = nodeRule(admission.limits, "name_writes_minute") !== undefined || nodeRule(admission.limits, "name_writes_day") !== undefined
    /** The name `kid` acts for (undefined for none), or null when the store could not say. */
    const actingName = (kid: string): Effect.Effect<string | undefined | null> =>
      !nameBudgetsOn ? Effect.succeed(undefined) : reader.slice([{ area: "keyNames", key: kid }]).pipe(
        Effect.map((slice) => currentNameOf(slice, kid)),
        Effect.orElseSucceed(() => null)
      )

    const write = (request: WriteRequest) =>
      Effect.gen(function*() {
        const nowMillis = yield* clock.nowMillis
        const admitted = yield* admission.takeAll(addressBudgets(request))
        if (!admitted.admitted) return yield* limited(request, admitted, nowMillis)
        return yield* checkedWrite(request, nowMillis).pipe(Effect.map(paced(admitted.fields)))
      })

    const checkedWrite = (request: WriteRequest, nowMillis: number) =>
      Effect.gen(function*() {
        const now = Math.floor(nowMillis / 1000)
        if (request.query !== "") return yield* refusal(request, refuse("malformed_request", "POST /v2/entries takes no query string"), nowMillis)
        if (request.body.length > MAX_WRITE_REQUEST_BYTES) {
          return yield* refusal(request, refuse("entry_too_large", `a write request is at most ${MAX_WRITE_REQUEST_BYTES} bytes`), nowMillis)
        }
        const checked = yield* check(request, now)
        if (checked._tag === "SignatureRefused") return yield* refusal(request, checked.refusal, nowMillis)
        const { signature } = checked
        const fresh = yield* Effect.either(nonces.remember(signature.keyid, signature.nonce, replayExpiry(signature), now))
        if (Either.isLeft(fresh)) return yield* refusal(request, replayStoreFailed(fresh.left), nowMillis)
        if (!fresh.right) return yield* refusal(request, refuse("nonce_reused", "this key already used this nonce"), nowMillis)
        // The key is proven now, so its budgets are its own: no one else can spend them.
        const name = yield* actingName(signature.keyid)
        if (name === null) return yield* refusal(request, refuse("log_unavailable", "the projection store failed"), nowMillis)
        const keyAdmitted = yield* admission.takeAll(keyBudgets(signature.keyid, name))
        if (!keyAdmitted.admitted) return yield* limited(request, keyAdmitted, nowMillis)
        if (checked.submission._tag === "Refused") return yield* refusal(request, checked.submission.refusal, nowMillis)
        const typed = yield* typeBudgets(request, checked.submission.checked)
        if (typed !== undefined) return yield* (typed.admitted ? refusal(request, typed.refusal, nowMillis) : limited(request, typed, nowMillis))
        return yield* commit(request, submissionOf(checked.submission.checked), nowMillis)
      })

    /**
     * What some types cost besides a write: a claim (a new identity) its proof of work and
     * the address's claims budget, a DM the sender's DMs budget. undefined: go on.
     */
    const typeBudgets = (request: WriteRequest, checked: CheckedSubmission) =>
      Effect.gen(function*() {
        const { envelope } = checked
        if (envelope.type === WORK_TYPE) {
          if (!meetsWork(envelope, workBits, crypto.sha256)) {
            return { admitted: true as const, refusal: refuse("work_insufficient", `a claim here needs ${workBits} leading zero bits of SHA-256 over its signing input (vary the envelope nonce; docs/protocol.md "Fair admission")`) }
          }
          if (request.client !== undefined) {
            const verdict = yield* admission.take("claims", request.client)
            if (!verdict.admitted) return verdict
          }
        }
        if (envelope.type === "dm") {
          const verdict = yield* admission.take("dms", envelope.kid)
          if (!verdict.admitted) return verdict
        }
        return undefined
      })

    /** Steps 5 and 6 for a submission that passed the stateless checks. */
    const commit = (request: WriteRequest, submission: Either.Either<Submission, Refusal>, nowMillis: number) =>
      Effect.gen(function*() {
        if (Either.isLeft(submission)) return yield* refusal(request, submission.left, nowMillis)
        const diverged = yield* health.diverged
        if (diverged !== undefined) return yield* refusal(request, refuse("log_unavailable", diverged), nowMillis)
        const { body, rule } = submission.right
        if (rule.body.kind === "ciphertext" && body !== null && !(yield* ledger.fits(body.bytes.length))) {
          return yield* refusal(request, refuse("ciphertext_budget_exhausted", "no room for more ciphertext until retention frees some"), nowMillis)
        }

        const outcome = yield* sequencer.submit(submission.right)
        if (outcome._tag === "Refused") return yield* refusal(request, outcome.refusal, outcome.at)
        return yield* answers.accepted(submission.right.envelope, outcome, 202)
      })

    // The same pipeline as write, in the same order: the envelope's own signature is the
    // signature step (WriteChecks, so on the worker threads too), then the nonce, the
    // stateless checks, the log's health and the sequencer.
    const writeSelfSigned = (raw: Uint8Array, client?: string) =>
      write({ method: "POST", authority: undefined, path: "", query: "", headers: {}, body: raw, selfSigned: true, ...(client === undefined ? {} : { client }) })

    const tooLarge = (limit: number) =>
      Effect.flatMap(clock.nowMillis, (now) =>
        refusal(
          { method: "POST", authority: undefined, path: "", query: "", headers: {}, body: new Uint8Array(0) },
          refuse("entry_too_large", `a write request is at most ${limit} bytes`),
          now
        ))

    return { write, tooLarge, writeSelfSigned }
  }))
}
