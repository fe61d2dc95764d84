// Contributions of SUP (docs/spec/service.md "Contribution intent", "Contribution", "SUP" routes;
// docs/protocol.md section 13). An intent is kept off the log (ContributionIntents) and
// writes no leaf. A claim is checked against the chain (ChainOracle) and always ends in one
// policy-signed leaf: `sup.credit` of the intent's amount to the intent's name, or
// `sup.refusal` with its code. The rules are domain/sup/contributions.ts; this takes the
// time, the randomness and the I/O, and hands the leaf to PolicyWrites.
//
// Malformed requests (not the JSON the route takes, a claim not in JCS form or far from
// the service's clock) answer a 422 problem and write nothing: there is no claim to settle.
//
// What the log says is read as rows of the projection store (StateReader): the name to
// credit, the claim's settling leaf (supClaims) and the transaction's credit (supTransactions).

import { Context, Effect, Either, HashMap, Layer, Option, ParseResult, Schema } from "effect"
import { fromUtf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { jcs, type JsonObject } from "../domain/envelope/jcs.js"
import { parseStrictJson } from "../domain/envelope/strictJson.js"
import { nameRecordOf } from "../domain/identity/bindings.js"
import {
  CLAIM_CLOCK_SKEW_SECONDS, type ClaimFacts, ContributionClaim, decideClaim, refusalBeforeChain, IntentRequest, intentView, makeIntent, MAX_OPEN_INTENTS, nameToCredit, tagSpan,
  type NetworkTerms
} from "../domain/sup/contributions.js"
import { transactionKey } from "../domain/sup/ledger.js"
import { refuse } from "../domain/write/refusal.js"
import { ChainOracle, type ChainUnavailable } from "../ports/ChainOracle.js"
import { Clock } from "../ports/Clock.js"
import { ContributionIntents } from "../ports/ContributionIntents.js"
import { Crypto } from "../ports/Crypto.js"
import { Entropy } from "../ports/Entropy.js"
import type { StorageError } from "../ports/StorageError.js"
import { admissionOrOpen } from "./Admission.js"
import { LogHealth } from "./LogHealth.js"
import { PolicyWrites } from "./PolicyWrites.js"
import { problemAnswer, type ProblemAnswer } from "./ProblemAnswer.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { StateReader } from "./StateReader.js"
import { WriteAnswers, type WriteAnswer } from "./WriteAnswers.js"

/** Largest intent or claim body read: both are a few short members. */
export const MAX_CONTRIBUTION_BYTES = 4096

/** How many random tags an intent tries before giving up (all taken: 503). */
const TAG_ATTEMPTS = 16

export type IntentAnswer = { readonly _tag: "Made"; readonly view: ReturnType<typeof intentView> } | ProblemAnswer

/** A claim's leaf: the write answer plus the claim hash and, for a refusal leaf, its code. */
export type ClaimAnswer = { readonly _tag: "Answer"; readonly answer: WriteAnswer } | ProblemAnswer

const issues = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((e) => ({ path: e.path.map(String).join("."), message: e.message }))

const describe = (errors: ReadonlyArray<{ path: string; message: string }>) =>
  errors.map((e) => `${e.path || "body"}: ${e.message}`).join("; ")

/** A 422 whose `errors` say what is wrong (docs/spec/profile.md section 7), the detail summing them up. */
const invalid = (code: string, summary: string, errors: ReadonlyArray<{ path: string; message: string }>) =>
  problemAnswer(422, code, `${summary}: ${describe(errors)}`, errors)

/** The body as a strict (I-JSON) value, or why it is not one. */
const strictJson = (body: Uint8Array): Either.Either<unknown, string> => {
  let text: string
  try {
    text = fromUtf8(body)
  } catch {
    return Either.left("the body is not UTF-8")
  }
  return Either.mapLeft(parseStrictJson(text), (why) => `the body is not I-JSON: ${why}`)
}

/**
 * Marks an intent credited in the store once its sup.credit leaf is durable, never failing:
 * the leaf is the credit, and its 201 must reach the client. A mark the store failed to
 * keep is logged and remembered by this process (`unmarked`), so the intent is still
 * refused a second credit here. The log is the authority on transactions (a `network:tx`
 * credits once, from the log's maps, restart or not); the mark only stops a second, real
 * transfer of the same units by `expires` crediting the intent again. Lost with the
 * process, it lets at most such a second payment credit too (docs/protocol.md 13.3).
 */
export const creditMarks = (intents: typeof ContributionIntents.Service) => {
  const unmarked = new Map<string, number>()
  return {
    mark: (intentId: string, index: number): Effect.Effect<void> =>
      intents.credited(intentId, index).pipe(
        Effect.tap(() => Effect.sync(() => unmarked.delete(intentId))),
        Effect.catchAll((e) => {
          unmarked.set(intentId, index)
          return Effect.logError("an intent was credited by a leaf, but the store did not record it").pipe(Effect.annotateLogs({ intent: intentId, leaf: index, error: e.message }))
        })
      ),
    unmarked: (intentId: string): number | undefined => unmarked.get(intentId)
  }
}

export class Contributions extends Context.Tag("aics/Contributions")<Contributions, {
  /** POST /v2/sup/contributions/intents; `secure`: the request came over HTTPS (docs/protocol.md 13.1). */
  readonly intent: (body: Uint8Array, secure: boolean) => Effect.Effect<IntentAnswer, StorageError>
  /** POST /v2/sup/contributions. */
  readonly claim: (body: Uint8Array, secure: boolean) => Effect.Effect<ClaimAnswer, StorageError>
}>() {
  static readonly layer = Layer.effect(Contributions, Effect.gen(function*() {
    const { contributions: settings } = yield* ServiceConfig
    const clock = yield* Clock
    const crypto = yield* Crypto
    const entropy = yield* Entropy
    const reader = yield* StateReader
    const policy = yield* PolicyWrites
    const answers = yield* WriteAnswers
    const health = yield* LogHealth
    const intents = yield* ContributionIntents
    const oracle = yield* ChainOracle
    const admission = yield* admissionOrOpen
    const networks = new Map(settings.networks.map((t) => [t.network, t] as const))
    // One claim at a time: its checks of the log state and the intent, then its leaf.
    const claiming = yield* Effect.makeSemaphore(1)

    const closed = problemAnswer(403, "contributions_closed", "this service takes no contributions: no network is configured")
    const insecure = problemAnswer(403, "https_required",
      "contributions are taken over HTTPS only: the answer names where to send funds, and a claim carries its intent id")

    const marks = creditMarks(intents)

    // The chain could not be asked: no leaf, on missing evidence neither credit nor refusal.
    const chainUnavailable = (e: ChainUnavailable) =>
      Effect.as(Effect.logWarning(`claim not checked: ${e.message}`),
        { ...problemAnswer(503, "chain_unavailable", `the chain could not be checked (${e.detail}); claim again later`), retryAfter: e.retryAfter })

    const randomTag = (terms: NetworkTerms) =>
      Effect.map(entropy.randomBytes(4), (b) => (((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0) % tagSpan(terms.unitsPerSup) + 1)

    const intent = (body: Uint8Array, secure: boolean): Effect.Effect<IntentAnswer, StorageError> =>
      Effect.gen(function*() {
        if (networks.size === 0) return closed
        if (!secure) return insecure
        const parsed = strictJson(body)
        if (Either.isLeft(parsed)) return invalid("intent_invalid", "an intent is {network, amount} (and an optional name)", [{ path: "", message: parsed.left }])
        const decoded = Schema.decodeUnknownEither(IntentRequest, { onExcessProperty: "error" })(parsed.right)
        if (Either.isLeft(decoded)) return invalid("intent_invalid", "an intent is {network, amount} and an optional name (amount: whole SUP, at least 1)", issues(decoded.left))
        const request = decoded.right
        const terms = networks.get(request.network)
        if (terms === undefined) {
          return invalid("network_unknown", "no contributions on this network", [{ path: "network", message: `networks: ${[...networks.keys()].join(", ")}` }])
        }
        if (!Number.isSafeInteger(request.amount)) return invalid("intent_invalid", "the amount is too large", [{ path: "amount", message: "a safe integer" }])
        if (request.name !== undefined && nameRecordOf(yield* reader.slice([{ area: "names", key: request.name }]), request.name) === undefined) {
          return invalid("name_unclaimed", `${request.name} has no SUP account to credit`, [{ path: "name", message: "the name is not claimed" }])
        }
        // Slots cost the name that holds them (issue 13 item 12): intents per name per hour,
        // on top of the address's intents budget (adapters/http/admission.ts).
        // An intent that names no name (the claim names it, docs/protocol.md 13.2) costs only
        // the address's budget.
        if (request.name !== undefined) {
          const perName = yield* admission.take("name_intents", request.name)
          if (!perName.admitted) return { ...problemAnswer(429, "rate_limited", perName.detail), retryAfter: perName.retryAfter }
        }
        const now = Math.floor((yield* clock.nowMillis) / 1000)
        for (let attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
          const intentId = `i_${encodeU64(yield* entropy.randomBytes(18))}`
          const made = makeIntent(request, terms, { now, intentSeconds: settings.intentSeconds, claimSeconds: settings.claimSeconds }, intentId, yield* randomTag(terms))
          const reserved = yield* intents.reserve(made, now)
          if (reserved === "reserved") return { _tag: "Made" as const, view: intentView(made) }
          if (reserved === "too_many") {
            return problemAnswer(429, "intents_limit",
              `${request.name} has ${MAX_OPEN_INTENTS} intents on ${request.network} that can still receive a transfer; make another once one expires`)
          }
        }
        return problemAnswer(503, "intents_exhausted", `too many open intents of ${request.amount} SUP on ${request.network}; try another amount or later`)
      })

    const claim = (body: Uint8Array, secure: boolean): Effect.Effect<ClaimAnswer, StorageError> =>
      Effect.gen(function*() {
        // No network, no intent to claim: nothing is written (protocol 13.7).
        if (networks.size === 0) return closed
        if (!secure) return insecure
        const parsed = strictJson(body)
        if (Either.isLeft(parsed)) return invalid("claim_invalid", "a claim is {intent_id, tx, created, name}", [{ path: "", message: parsed.left }])
        const decoded = Schema.decodeUnknownEither(ContributionClaim, { onExcessProperty: "error" })(parsed.right)
        if (Either.isLeft(decoded)) return invalid("claim_invalid", "a claim is {intent_id, tx, created, name}", issues(decoded.left))
        const canonical = jcs(parsed.right)
        if (Either.isLeft(canonical) || canonical.right !== fromUtf8(body)) {
          return invalid("claim_not_jcs", "a claim is sent in its JCS form (RFC 8785)", [{ path: "", message: "not the JCS form of the claim: its SHA-256 is the claim_hash the leaf carries" }])
        }
        const claimed = decoded.right
        const nowMillis = yield* clock.nowMillis
        const now = Math.floor(nowMillis / 1000)
        if (Math.abs(now - claimed.created) > CLAIM_CLOCK_SKEW_SECONDS) {
          return invalid("claim_stale", "the claim is stale", [{ path: "created", message: `within ${CLAIM_CLOCK_SKEW_SECONDS} s of the service's clock (now ${now})` }])
        }
        const claimHash = encodeU64(crypto.sha256(body))
        // The chain is asked before the claim takes its turn: RPC round trips (up to a timeout
        // per URL) must not hold up every other claim. Its failure counts only if the
        // decision needs the chain's answer (below).
        const asked = Option.getOrUndefined(yield* intents.get(claimed.intent_id))?.intent
        const evidence = yield* Effect.either(asked === undefined ? Effect.succeed({ _tag: "Absent" as const }) : oracle.report(asked.network, claimed.tx, asked.address))

        return yield* claiming.withPermits(1)(Effect.gen(function*() {
          const settled = HashMap.get((yield* reader.slice([{ area: "supClaims", key: claimHash }])).sup.claims, claimHash)
          if (Option.isSome(settled)) return problemAnswer(409, "claim_settled", `this claim was settled by leaf ${settled.value}`)
          const diverged = yield* health.diverged
          if (diverged !== undefined) return { _tag: "Answer" as const, answer: yield* answers.refused(body, refuse("log_unavailable", diverged), nowMillis) }

          const stored = yield* intents.get(claimed.intent_id)
          const intent = Option.getOrUndefined(stored)?.intent
          // No leaf without cause (issue 13 item 12): a claim naming no intent this service
          // issued is answered, and writes nothing, so random ids cannot fill the log.
          if (intent === undefined) return problemAnswer(404, "intent_unknown", `no intent ${claimed.intent_id} was made here; make one first (POST /v2/sup/contributions/intents)`)
          // The name to credit (docs/protocol.md 13.2): a claim that cannot name it is malformed.
          const credited = intent === undefined ? undefined : nameToCredit(intent, claimed)
          if (credited !== undefined && "error" in credited) return invalid("claim_invalid", "the claim's name", [{ path: "name", message: credited.error }])
          const txKey = transactionKey(intent.network, claimed.tx)
          const state = yield* reader.slice([
            { area: "supTransactions", key: txKey },
            ...(credited === undefined ? [] : [{ area: "names" as const, key: credited.name }])
          ])
          if (credited !== undefined && nameRecordOf(state, credited.name) === undefined) {
            return invalid("name_unclaimed", `${credited.name} has no SUP account to credit`, [{ path: "name", message: "the name is not claimed" }])
          }
          const facts: ClaimFacts = {
            claim: claimed,
            intent,
            name: credited?.name,
            intentCredited: Option.getOrUndefined(stored)?.creditIndex ?? marks.unmarked(claimed.intent_id),
            txCredited: Option.getOrUndefined(HashMap.get(state.sup.transactions, txKey)),
            now
          }
          // The chain's answer, or its failure, counts only when it decides the claim.
          const decision = refusalBeforeChain(facts) ??
            decideClaim({ ...facts, report: yield* evidence })
          // Not final yet: no leaf, the claim is made again later (docs/protocol.md 13.3).
          if (decision._tag === "Wait") {
            return { ...problemAnswer(409, "tx_unconfirmed", decision.detail), members: { confirmations_missing: decision.missing ?? null } }
          }
          const [type, payload]: [string, JsonObject] = decision._tag === "Credit"
            ? ["sup.credit", { name: decision.name, amount: decision.amount, claim_hash: claimHash, network: decision.network, tx: decision.tx }]
            : ["sup.refusal", { claim_hash: claimHash, code: decision.code }]
          const written = yield* policy.write(type, payload, nowMillis)
          // A refusal of the service's own leaf names the claim that was sent (the refusal note
          // hashes its bytes: the claim_hash), which the caller can check; not the policy envelope.
          if (written.outcome._tag === "Refused") {
            return { _tag: "Answer" as const, answer: yield* answers.refused(body, written.outcome.refusal, written.outcome.at) }
          }
          // The credit is durable in the log now: the answer is 201 whatever happens to the
          // store's mark (a 503 would hide a receipt the client cannot get again).
          if (decision._tag === "Credit") yield* marks.mark(claimed.intent_id, written.outcome.index)
          const accepted = yield* answers.accepted(written.envelope, written.outcome, 201)
          return {
            _tag: "Answer" as const,
            answer: {
              ...accepted,
              body: {
                ...accepted.body,
                claim_hash: claimHash,
                code: decision._tag === "Credit" ? null : decision.code,
                detail: decision._tag === "Credit" ? `credited ${decision.amount} SUP to ${decision.name}` : decision.detail
              }
            }
          }
        })).pipe(Effect.catchTag("ChainUnavailable", chainUnavailable))
      })

    return { intent, claim }
  }))
}

