// Notices (docs/spec/service.md items 9 and 10 of "What the service does", "States and transitions"
// "Notice", "Notices", "Notice request", "Limits"). The notice register lives OFF the log:
// the app keeps it and calls these pure rules. Taking a notice writes no leaf; closing one
// writes one policy-signed `report` leaf {kind: "notice", notice_hash, outcome}. The report
// id, the text and the contact never reach the log, and are deleted 12 months after the
// notice is closed:
//
//   (none) --POST /notice accepted-------------> open      (201, no leaf)
//   open   --owner close with an outcome--------> closed    (one `report` leaf)
//   closed --12 calendar months after closing---> closed, report id, text and contact deleted
//
// What is left of a purged notice is what the log already says and the owner's register
// still needs to count and list it: kind, when it was taken and closed, the outcome, the
// report leaf and the notice hash that leaf carries. No report id finds it any more. A
// counter-notice that cited the deleted report id cites that notice's report leaf instead
// (citeReportLeaf), so it still says what it counters without keeping the id.
//
// A closed notice never opens again: `closeNotice` refuses `notice_closed`, and on the log
// a second report for one notice hash is refused `notice_closed` too (noticeReportRefusal).

import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

/** The closed list of outcomes a notice is closed with (docs/protocol.md section 11.2). */
export const NOTICE_OUTCOMES = ["removed", "no_action", "invalid", "withdrawn", "duplicate"] as const
export type NoticeOutcome = typeof NOTICE_OUTCOMES[number]

export const NOTICE_KINDS = ["notice", "counter_notice", "erasure_request"] as const
export type NoticeKind = typeof NOTICE_KINDS[number]

const nullableMax = (max: number) => Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(max))))

/** The length bounds of the notice fields (docs/spec/service.md "Limits"), read by the schema and the /notice page. */
export const NOTICE_LIMITS = {
  location: { min: 1, max: 1000 },
  explanation: { min: 10, max: 8000 },
  name: { max: 200 },
  email: { max: 254 },
  report_id: { max: 40 }
} as const

/** The body of POST /notice (docs/spec/service.md "Notice request"); no other members. */
export const NoticeRequest = Schema.Struct({
  kind: Schema.optional(Schema.Literal(...NOTICE_KINDS)),
  location: Schema.String.pipe(Schema.minLength(NOTICE_LIMITS.location.min), Schema.maxLength(NOTICE_LIMITS.location.max)),
  explanation: Schema.String.pipe(Schema.minLength(NOTICE_LIMITS.explanation.min), Schema.maxLength(NOTICE_LIMITS.explanation.max)),
  name: nullableMax(NOTICE_LIMITS.name.max),
  email: nullableMax(NOTICE_LIMITS.email.max),
  report_id: nullableMax(NOTICE_LIMITS.report_id.max),
  // Only `true` is taken: the sender states that the notice is accurate and complete.
  accurate: Schema.Literal(true)
})
export type NoticeRequest = typeof NoticeRequest.Type

/** The body of the owner's close (POST /v2/admin/notices/{report_id}/close); no other members. */
export const NoticeCloseRequest = Schema.Struct({
  outcome: Schema.Literal(...NOTICE_OUTCOMES),
  tombstone_index: Schema.optional(Schema.Int.pipe(Schema.nonNegative()))
})

const L = NOTICE_LIMITS

/** What each member must be, from the same bounds as the schema: the message of a 422 naming it. */
export const NOTICE_FIELD_RULES: Readonly<Record<keyof NoticeRequest, string>> = {
  kind: `one of ${NOTICE_KINDS.join(", ")} (default notice)`,
  location: `a string of ${L.location.min} to ${L.location.max} characters`,
  explanation: `a string of ${L.explanation.min} to ${L.explanation.max} characters`,
  name: `null or a string of at most ${L.name.max} characters`,
  email: `null or a string of at most ${L.email.max} characters`,
  report_id: `null or a string of at most ${L.report_id.max} characters`,
  accurate: "true: you state that the notice is accurate and complete"
}

/** The rule of a notice in one sentence, from NOTICE_LIMITS (the 422's detail, the CLI's usage error). */
export const NOTICE_RULE = `a notice is JSON or a form with location (${L.location.min} to ${L.location.max} characters), ` +
  `explanation (${L.explanation.min} to ${L.explanation.max}), accurate true, and optionally kind (${NOTICE_KINDS.join(", ")}), ` +
  `name (at most ${L.name.max}), email (at most ${L.email.max}), report_id (at most ${L.report_id.max}); no other members`

/** One reason a notice request is not taken: the member (`""` the whole body) and why (a 422's `errors`). */
export interface NoticeIssue {
  readonly path: string
  readonly message: string
}

/** Every reason `request` is not a notice (none: it is one), from the schema above. */
export const noticeIssues = (request: unknown): ReadonlyArray<NoticeIssue> => {
  if (request === undefined) return [{ path: "", message: "the body is not a JSON object or a form (application/json or application/x-www-form-urlencoded, each member once)" }]
  const decoded = Schema.decodeUnknownEither(NoticeRequest, { onExcessProperty: "error", errors: "all" })(request)
  if (Either.isRight(decoded)) return []
  // One element per member, its message the member's rule: a member can fail several
  // checks (each branch of `null or a string`), and the value is never echoed back.
  const issues = new Map<string, string>()
  for (const e of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
    const path = e.path.map(String).join(".")
    const rule = NOTICE_FIELD_RULES[path as keyof NoticeRequest] as string | undefined
    if (issues.has(path)) continue
    issues.set(path, rule === undefined ? (e._tag === "Unexpected" ? "is not a member of a notice (no other members are taken)" : "must be a JSON object")
      : e._tag === "Missing" ? `is missing: it must be ${rule}` : `must be ${rule}`)
  }
  return [...issues].map(([path, message]) => ({ path, message }))
}

export interface NoticeText {
  readonly location: string
  readonly explanation: string
  /** The report id a counter-notice cites, as its sender wrote it. */
  readonly citedReportId: string | null
  /** Once that report id is deleted: the report leaf of the notice it named (citeReportLeaf). */
  readonly citedReportIndex?: number | undefined
  /**
   * A random secret the notice hash commits to (U64 of 32 bytes, chosen by the app), kept
   * with the text and deleted with it: without it nobody can confirm a guessed notice
   * against the public `notice_hash`. Absent on notices taken before it was kept.
   */
  readonly salt?: string | undefined
}

export interface NoticeRecord {
  /** The register's id (never on the log); null once deleted, 12 months after closing. */
  readonly reportId: string | null
  readonly kind: NoticeKind
  /** Unix ms the notice was taken. */
  readonly received: number
  readonly status: "open" | "closed"
  /** The text (location, explanation, the cited report id) and the contact; null once deleted. */
  readonly text: NoticeText | null
  readonly contact: { readonly name: string | null; readonly email: string | null } | null
  /** Set on closing: when, with what outcome, and the report leaf. */
  readonly closed: number | null
  readonly outcome: NoticeOutcome | null
  readonly reportIndex: number | null
  /** Set on closing: the notice hash the report leaf carries (absent on notices closed before it was kept). */
  readonly noticeHash?: string | undefined
}

export type NoticeProblem = "notice_invalid" | "notice_closed"

/** Takes a notice (open), or says every reason it is not one. `reportId` is chosen by the app; `now` is Unix ms. */
export const openNotice = (
  request: unknown,
  reportId: string,
  now: number,
  salt?: string
): Either.Either<NoticeRecord, ReadonlyArray<NoticeIssue>> => {
  const issues = noticeIssues(request)
  if (issues.length > 0) return Either.left(issues)
  const r = Schema.decodeUnknownSync(NoticeRequest)(request)
  return Either.right({
    reportId,
    kind: r.kind ?? "notice",
    received: now,
    status: "open",
    text: { location: r.location, explanation: r.explanation, citedReportId: r.report_id ?? null, ...(salt === undefined ? {} : { salt }) },
    contact: { name: r.name ?? null, email: r.email ?? null },
    closed: null,
    outcome: null,
    reportIndex: null
  })
}

/**
 * What the notice hash commits to: JCS of this object (contact and report id left out),
 * with the notice's secret salt where it has one, so the public hash confirms no guess.
 */
export const noticeHashInput = (record: NoticeRecord) => ({
  kind: record.kind,
  received: record.received,
  location: record.text?.location ?? null,
  explanation: record.text?.explanation ?? null,
  ...(record.text?.salt === undefined ? {} : { salt: record.text.salt })
})

/** Closes an open notice once the app wrote its report leaf: the leaf's index and the notice hash it carries. */
export const closeNotice = (
  record: NoticeRecord,
  outcome: NoticeOutcome,
  now: number,
  reportIndex: number,
  noticeHash: string
): Either.Either<NoticeRecord, NoticeProblem> =>
  record.status === "closed"
    ? Either.left("notice_closed")
    : Either.right({ ...record, status: "closed", closed: now, outcome, reportIndex, noticeHash })

/** Unix ms from which a closed notice's report id, text and contact are deleted: 12 calendar months after closing (UTC). */
export const deletionDueAt = (closed: number): number => {
  const d = new Date(closed)
  // setUTCMonth rolls over (29 February + 12 months = 1 March): never earlier than 12 months.
  d.setUTCMonth(d.getUTCMonth() + 12)
  return d.getTime()
}

/** Whether a record still holds what must be deleted at `now`: a report id, text or contact 12 months after closing. */
export const purgeDue = (record: NoticeRecord, now: number): boolean =>
  record.status === "closed" && record.closed !== null && now >= deletionDueAt(record.closed) &&
  (record.reportId !== null || record.text !== null || record.contact !== null)

/** The record as it must be at `now`: report id, text and contact gone once the deletion is due. */
export const purgeNotice = (record: NoticeRecord, now: number): NoticeRecord =>
  purgeDue(record, now) ? { ...record, reportId: null, text: null, contact: null } : record

/**
 * A record whose text cites `reportId`, a report id being deleted: it cites that notice's
 * report leaf instead, so a counter-notice still says what it counters without the id.
 */
export const citeReportLeaf = (record: NoticeRecord, reportId: string, reportIndex: number): NoticeRecord =>
  record.text !== null && record.text.citedReportId === reportId
    ? { ...record, text: { ...record.text, citedReportId: null, citedReportIndex: reportIndex } }
    : record

/**
 * The register at `now` after the deletions due: each due record purged, and every record
 * citing a deleted report id made to cite its report leaf. Records that change are
 * returned (a new object), the others as they were; `purged` counts the deletions.
 */
export const purgeRegister = (records: ReadonlyArray<NoticeRecord>, now: number): { readonly records: ReadonlyArray<NoticeRecord>; readonly purged: number } => {
  const deleted = records.filter((r) => purgeDue(r, now))
  if (deleted.length === 0) return { records, purged: 0 }
  const cited = deleted.flatMap((r) => (r.reportId === null || r.reportIndex === null ? [] : [[r.reportId, r.reportIndex] as const]))
  return {
    records: records.map((r) => cited.reduce((next, [id, index]) => citeReportLeaf(next, id, index), purgeNotice(r, now))),
    purged: deleted.length
  }
}

// The log side: the `report` leaf of kind notice.

export interface NoticeReport {
  readonly notice_hash: string
  readonly outcome: NoticeOutcome
  readonly tombstone_index?: number | undefined
}

export const noticeReportRefusal = (state: LogState, report: NoticeReport): Refusal | undefined => {
  const earlier = HashMap.get(state.governance.noticeReports, report.notice_hash)
  if (earlier._tag === "Some") return refuse("notice_closed", `the notice was closed by leaf ${earlier.value}`)
  if (report.outcome === "removed") {
    if (report.tombstone_index === undefined || !HashMap.has(state.governance.tombstoneLeaves, report.tombstone_index)) {
      return refuse("payload_invalid", "outcome removed needs tombstone_index naming a tombstone leaf")
    }
  } else if (report.tombstone_index !== undefined) {
    return refuse("payload_invalid", "tombstone_index goes only with outcome removed")
  }
  return undefined
}
