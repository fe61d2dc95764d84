// The notice register's application side (docs/spec/service.md item 9, "Notice request", "Notice",
// "Notices"; docs/protocol.md section 11). Taking a notice writes no leaf: the record goes
// to the NoticeRegister only. Closing one (owner-signed) makes the service write ONE
// policy-signed `report` leaf {kind: "notice", notice_hash, outcome, tombstone_index?}:
// the report id, the text and the contact never reach the log. A background job deletes
// the report id, text and contact 12 months after closing (governance/notice.ts
// deletionDueAt, purgeRegister), reading the time from the Clock port; the register's
// listing runs the same purge first, so it never shows what is due for deletion.
//
// Closing is two durable steps, the report leaf and then the register's record. A process
// that dies between them leaves a notice the log has closed and the register holds open;
// the register is settled from the log's report leaf at start, and again by a later close
// of that notice, so the two never disagree for long and no second report is attempted.

import { Context, Effect, Either, HashMap, Layer, Option, Schedule, Schema } from "effect"
import { fromUtf8, utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { isJsonObject, jcs, type JsonObject } from "../domain/envelope/jcs.js"
import { parseStrictJson } from "../domain/envelope/strictJson.js"
import {
  NOTICE_RULE, NoticeCloseRequest, noticeHashInput, openNotice, type NoticeOutcome, type NoticeRecord
} from "../domain/governance/notice.js"
import { refuse, type RefusalCode } from "../domain/write/refusal.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { Entropy } from "../ports/Entropy.js"
import { LogStore } from "../ports/LogStore.js"
import { NonceStore } from "../ports/NonceStore.js"
import { NoticeRegister } from "../ports/NoticeRegister.js"
import type { StorageError } from "../ports/StorageError.js"
import type { WriteRequest } from "../ports/WriteChecks.js"
import { Charter } from "./Charter.js"
import { checkOwnerSignature } from "./ownerSignature.js"
import { LogHealth } from "./LogHealth.js"
import { PolicyWrites } from "./PolicyWrites.js"
import { problemAnswer, type ProblemAnswer } from "./ProblemAnswer.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { StateReader } from "./StateReader.js"
import { WriteAnswers, type WriteAnswer } from "./WriteAnswers.js"

/** Largest POST /notice body read (the fields' limits add up to well under this). */
export const MAX_NOTICE_BYTES = 64 * 1024

/** A problem answer (problem+json) for the notice routes. */
export type NoticeProblemAnswer = ProblemAnswer
const problem = problemAnswer

/** The register view of one record (GET /v2/admin/notices): personal data, owner only. */
export const noticeView = (record: NoticeRecord) => ({
  report_id: record.reportId,
  kind: record.kind,
  status: record.status,
  received: record.received,
  location: record.text?.location ?? null,
  explanation: record.text?.explanation ?? null,
  cited_report_id: record.text?.citedReportId ?? null,
  cited_report_index: record.text?.citedReportIndex ?? null,
  name: record.contact?.name ?? null,
  email: record.contact?.email ?? null,
  closed: record.closed,
  outcome: record.outcome,
  report_index: record.reportIndex,
  notice_hash: record.noticeHash ?? null
})
export type NoticeView = ReturnType<typeof noticeView>


/** POST /notice as JSON or a form: the request object for openNotice. */
export const noticeRequestOf = (body: Uint8Array, contentType: string | undefined): unknown => {
  let text: string
  try {
    text = fromUtf8(body)
  } catch {
    return undefined
  }
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  if (type === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams(text)
    const request: Record<string, unknown> = {}
    for (const [name, value] of form) {
      if (name in request) return undefined
      request[name] = name === "accurate" ? (value === "true" || value === "on" ? true : value === "false" ? false : value)
        : (name === "name" || name === "email" || name === "report_id") && value === "" ? null
        : value
    }
    return request
  }
  if (type !== "application/json" && type !== "") return undefined
  const parsed = parseStrictJson(text)
  return Either.isRight(parsed) && isJsonObject(parsed.right) ? parsed.right : undefined
}

/** Deletes report id, text and contact of every notice closed 12 months ago or more (at the Clock's now). */
export const purgeDueNotices = Effect.gen(function*() {
  const register = yield* NoticeRegister
  const clock = yield* Clock
  return yield* register.purge(yield* clock.nowMillis)
})

/** The retention job: purges at start and then every hour, for the life of the scope. */
export const NoticeRetentionLive = Layer.scopedDiscard(Effect.gen(function*() {
  const register = yield* NoticeRegister
  const clock = yield* Clock
  const run = purgeDueNotices.pipe(
    Effect.provideService(NoticeRegister, register),
    Effect.provideService(Clock, clock),
    Effect.tap((n) => (n > 0 ? Effect.logInfo("deleted the report id, text and contact of closed notices").pipe(Effect.annotateLogs({ notices: n })) : Effect.void)),
    Effect.catchAll((e) => Effect.logError("notice retention failed").pipe(Effect.annotateLogs({ error: e.message })))
  )
  yield* Effect.forkScoped(Effect.repeat(run, Schedule.spaced("1 hour")))
}))

export class Notices extends Context.Tag("aics/Notices")<Notices, {
  /** POST /notice: 201 with the report id, or a 422 problem. No leaf is written. */
  readonly file: (body: Uint8Array, contentType: string | undefined) => Effect.Effect<
    { readonly _tag: "Filed"; readonly view: { report_id: string; status: "open"; kind: string; received: number } } | NoticeProblemAnswer,
    StorageError
  >
  /** GET /v2/admin/notices once the owner's signature is checked: what is due for deletion deleted first. */
  readonly list: (status: "open" | "closed" | undefined, limit: number) => Effect.Effect<ReadonlyArray<NoticeView>, StorageError>
  /** POST /v2/admin/notices/{report_id}/close: authenticates the owner, writes the report leaf. */
  readonly close: (request: WriteRequest, reportId: string) => Effect.Effect<
    { readonly _tag: "Answer"; readonly answer: WriteAnswer } | NoticeProblemAnswer,
    StorageError
  >
}>() {
  static readonly layer = Layer.effect(Notices, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const crypto = yield* Crypto
    const clock = yield* Clock
    const entropy = yield* Entropy
    const nonces = yield* NonceStore
    const health = yield* LogHealth
    const policy = yield* PolicyWrites
    const answers = yield* WriteAnswers
    const register = yield* NoticeRegister
    const reader = yield* StateReader
    const store = yield* LogStore
    const { ownerKid } = (yield* Charter).terms
    const owner = { ownerKid, authorities: config.authorities, ed25519: crypto.ed25519, sha256: crypto.sha256, nonces }
    // One close at a time: the register's check and its report leaf go together.
    const closing = yield* Effect.makeSemaphore(1)

    /** U64 of SHA-256(JCS of the notice's committed members): what the report leaf names. */
    const noticeHashOf = (record: NoticeRecord): string => {
      const hashInput = jcs(noticeHashInput(record))
      if (Either.isLeft(hashInput)) throw new Error(hashInput.left.reason)
      return encodeU64(crypto.sha256(utf8(hashInput.right)))
    }

    /**
     * When the log already holds this notice's report leaf (a close whose register update
     * was lost), records the close from that leaf and answers its index; None otherwise.
     * The notices' report leaves are governance, a resident part the projection holds whole.
     */
    const settleFromLog = (record: NoticeRecord, reportId: string) =>
      Effect.gen(function*() {
        const { governance } = yield* reader.resident
        const index = HashMap.get(governance.noticeReports, noticeHashOf(record))
        if (Option.isNone(index)) return Option.none<number>()
        const [bytes] = yield* store.readEntries(index.value, index.value + 1)
        const leaf = JSON.parse(fromUtf8(bytes!)) as { logged: number; envelope: { payload: { outcome: NoticeOutcome; notice_hash: string } } }
        const { outcome, notice_hash: noticeHash } = leaf.envelope.payload
        yield* register.close(reportId, { at: leaf.logged, outcome, reportIndex: index.value, noticeHash })
        yield* Effect.logWarning("a notice was closed by a leaf the register had not recorded; the register now says so").pipe(Effect.annotateLogs({ report_id: reportId, leaf: index.value }))
        return index
      })

    // An open notice always has its report id (only a closed one loses it).
    yield* Effect.forEach(yield* register.list("open", Number.MAX_SAFE_INTEGER),
      (record) => (record.reportId === null ? Effect.void : settleFromLog(record, record.reportId)), { discard: true })

    return {
      file: (body, contentType) =>
        Effect.gen(function*() {
          const now = yield* clock.nowMillis
          const reportId = `n_${encodeU64(yield* entropy.randomBytes(18))}`
          // The notice hash's secret (notice.ts): kept with the text, deleted with it.
          const salt = encodeU64(yield* entropy.randomBytes(32))
          const opened = openNotice(noticeRequestOf(body, contentType), reportId, now, salt)
          if (Either.isLeft(opened)) {
            const issues = opened.left
            return problem(422, "notice_invalid", `${NOTICE_RULE}. Here: ${issues.map((e) => `${e.path || "body"}: ${e.message}`).join("; ")}`, issues)
          }
          yield* register.add(opened.right)
          return { _tag: "Filed" as const, view: { report_id: reportId, status: "open" as const, kind: opened.right.kind, received: now } }
        }),

      list: (status, limit) =>
        Effect.gen(function*() {
          yield* register.purge(yield* clock.nowMillis)
          return (yield* register.list(status, limit)).map(noticeView)
        }),

      close: (request, reportId) =>
        Effect.gen(function*() {
          const nowMillis = yield* clock.nowMillis
          const now = Math.floor(nowMillis / 1000)
          const refused = (code: RefusalCode, detail: string) =>
            Effect.map(answers.refused(request.body, refuse(code, detail), nowMillis), (answer) => ({ _tag: "Answer" as const, answer }))
          const signature = yield* checkOwnerSignature(owner, request, now)
          if (Either.isLeft(signature)) return yield* Effect.map(answers.refused(request.body, signature.left, nowMillis), (answer) => ({ _tag: "Answer" as const, answer }))

          let text: string
          try {
            text = fromUtf8(request.body)
          } catch {
            return yield* refused("malformed_request", "the body is not UTF-8")
          }
          const parsed = parseStrictJson(text)
          if (Either.isLeft(parsed)) return yield* refused("malformed_request", `the body is not I-JSON: ${parsed.left}`)
          const decoded = Schema.decodeUnknownEither(NoticeCloseRequest, { onExcessProperty: "error" })(parsed.right)
          if (Either.isLeft(decoded)) return yield* refused("payload_invalid", "the body is {outcome, tombstone_index?}")
          const { outcome, tombstone_index } = decoded.right

          return yield* closing.withPermits(1)(Effect.gen(function*() {
            const found = yield* register.get(reportId)
            if (Option.isNone(found)) return problem(404, "notice_not_found", "no notice has this report id")
            const record = found.value
            if (record.status === "closed") return yield* refused("notice_closed", `the notice was closed by leaf ${record.reportIndex}`)
            const settled = yield* settleFromLog(record, reportId)
            if (Option.isSome(settled)) return yield* refused("notice_closed", `the notice was closed by leaf ${settled.value}`)
            const diverged = yield* health.diverged
            if (diverged !== undefined) return yield* refused("log_unavailable", diverged)
            const noticeHash = noticeHashOf(record)
            const payload: JsonObject = {
              kind: "notice",
              notice_hash: noticeHash,
              outcome: outcome satisfies NoticeOutcome,
              ...(tombstone_index !== undefined ? { tombstone_index } : {})
            }
            const written = yield* policy.write("report", payload, nowMillis)
            // A refusal of the service's own leaf names the request the owner sent (its
            // SHA-256 in the refusal note), which the owner can check; not the policy envelope.
            if (written.outcome._tag === "Refused") {
              return { _tag: "Answer" as const, answer: yield* answers.refused(request.body, written.outcome.refusal, written.outcome.at) }
            }
            yield* register.close(reportId, { at: written.outcome.logged, outcome, reportIndex: written.outcome.index, noticeHash })
            return { _tag: "Answer" as const, answer: yield* answers.accepted(written.envelope, written.outcome, 201) }
          }))
        })
    }
  }))
}
