// `report` (docs/spec/service.md "Owner operations" /v2/admin/audits, "Notice", item 9). Two kinds,
// two signers:
//   audit   owner-signed: an incident, freeze or order audit, naming the report document by
//           `report_hash`. The document comes as the request's body (required: a report
//           named by a hash nobody can fetch audits nothing) and is served at
//           /v2/bodies/{digest}, never in the wire bundle (docs/spec/service.md "Entry wire bundle");
//   notice  policy-signed, written when a notice is closed: the notice hash and the outcome
//           code (with the tombstone leaf for `removed`). Nothing else of the notice reaches
//           the log, and no body: its text is personal data, kept off the log and deleted.
//           Rules: governance/notice.ts.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { NOTICE_OUTCOMES, noticeReportRefusal } from "../../governance/notice.js"
import { DOCUMENT_LIMIT, entryRule, type BodyRule } from "../entryRule.js"
import { Hash32, LeafIndex } from "../fields.js"

export const AuditReport = Schema.Struct({
  kind: Schema.Literal("audit"),
  subject: Schema.Literal("incident", "freeze", "order"),
  report_hash: Hash32
})

export const NoticeReport = Schema.Struct({
  kind: Schema.Literal("notice"),
  notice_hash: Hash32,
  outcome: Schema.Literal(...NOTICE_OUTCOMES),
  tombstone_index: Schema.optional(LeafIndex)
})

export const ReportPayload = Schema.Union(AuditReport, NoticeReport)

const AUDIT_DOCUMENT: BodyRule = { kind: "document", hashMember: "report_hash", maxBytes: DOCUMENT_LIMIT }

export const report = entryRule({
  type: "report",
  signer: "owner",
  signers: ["owner", "policy"],
  signerOf: (payload) => (payload.kind === "audit" ? "owner" : "policy"),
  payload: ReportPayload,
  body: AUDIT_DOCUMENT,
  bodyOf: (payload) => (payload.kind === "audit" ? AUDIT_DOCUMENT : { kind: "none" }),
  check: (state, { payload }) => (payload.kind === "notice" ? noticeReportRefusal(state, payload) : undefined),
  apply: (state, { payload, index }) => ({
    ...state,
    governance: payload.kind === "audit"
      ? { ...state.governance, audits: Chunk.append(state.governance.audits, index) }
      : { ...state.governance, noticeReports: HashMap.set(state.governance.noticeReports, payload.notice_hash, index) }
  })
})
