// The owner's side of the client (docs/spec/service.md "Owner operations", "Notices"): drafts of the
// owner-signed entry types, checked locally with the service's own schemas, written to the
// /v2/admin/* route of their type with the owner's key file (an agent key file that `aics
// keygen` made, whose kid is the owner_kid leaf 0 names) and answered 201; the notice
// register read and closed with signed requests; the keyless notice form. The documents an
// owner's entry names (a policy, an audit report, a completion's result) go with it as its
// body, so the service can serve them (policies in the wire bundle, the others at
// /v2/bodies/{digest}); orders are named by hash only and never sent.

import { Either, Schema } from "effect"
import { isUtf8, utf8 } from "../domain/bytes.js"
import { DOCUMENT_LIMIT } from "../domain/entries/entryRule.js"
import { decodeU64, encodeU64 } from "../domain/encoding.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { ActionCompletePayload } from "../domain/entries/types/actionComplete.js"
import { ActionQuotePayload } from "../domain/entries/types/actionQuote.js"
import { FreezePayload } from "../domain/entries/types/freeze.js"
import { PolicyPayload } from "../domain/entries/types/policy.js"
import { AuditReport } from "../domain/entries/types/report.js"
import { SuspensionPayload } from "../domain/entries/types/suspension.js"
import { TaskPayload } from "../domain/entries/types/task.js"
import { TaskAwardPayload } from "../domain/entries/types/taskAward.js"
import { TombstonePayload } from "../domain/entries/types/tombstone.js"
import { NOTICE_LIMITS, NOTICE_OUTCOMES, noticeIssues, type NoticeOutcome } from "../domain/governance/notice.js"
import { documentCites } from "../domain/governance/policyTiming.js"
import { TOMBSTONE_REASONS } from "../domain/governance/tombstones.js"
import { adminPathOf } from "../domain/http/adminRoutes.js"
import { signRequest } from "../domain/http/messageSignature.js"
import { isDidKey } from "../domain/identity/didKey.js"
import { writeWithKeyFile } from "./agent.js"
import { crypto, randomBytes } from "./crypto.js"
import { ENVELOPE_LIFETIME_SECONDS } from "./envelope.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { describeProblem, endpoint, send } from "./http.js"
import { readAgentKeyFile } from "./keyFile.js"
import { nameHandle } from "./nameLookup.js"
import { checked, checkedName, textBytes, type EntryDraft } from "./payloads.js"
import { getEntry } from "./read.js"
import { verifyReceiptNote, verifyRefusalNote } from "./receipts.js"
import { signedGetJson } from "./signedRead.js"
import { readAnswer, type LogClient, type WriteResult } from "./write.js"

const hashOf = (bytes: Uint8Array) => encodeU64(crypto.sha256(bytes))

/** A document the entry carries, within the service's limit, so no nonce is spent on a certain refusal. */
const ownerDocument = (bytes: Uint8Array, what: string): Uint8Array => {
  if (bytes.length > DOCUMENT_LIMIT) throw usageError(`${what} is at most ${DOCUMENT_LIMIT} bytes, this one is ${bytes.length}`)
  return bytes
}

const draft = <A, I>(type: string, schema: Schema.Schema<A, I>, payload: JsonObject, body: Uint8Array | null = null): EntryDraft => {
  checked(schema, payload, type)
  return { type, payload, body }
}

export const tombstoneDraft = (targetIndex: number, reasonCode: string): EntryDraft => {
  if (!(TOMBSTONE_REASONS as ReadonlyArray<string>).includes(reasonCode)) {
    throw usageError(`the reason_code is one of ${TOMBSTONE_REASONS.join(", ")}, not ${JSON.stringify(reasonCode)}`)
  }
  return draft("tombstone", TombstonePayload, { target_index: targetIndex, reason_code: reasonCode })
}

/**
 * The subject of a suspension as given: the did:key of an Ed25519 key, or a name in any form
 * the other commands take one (`name`, `@name`, `@name.<instance domain>`: nameLookup.ts
 * nameHandle). Its did:key or name_norm, and the domain a handle named (the caller checks it
 * against leaf 0's instance_domain, as the service does a handle in a path); a usage error
 * saying what a subject is otherwise.
 */
export const subjectOf = (given: string): { readonly subject: string; readonly domain: string | undefined } => {
  if (given.startsWith("did:")) {
    if (!isDidKey(given)) throw usageError(`${JSON.stringify(given)} is not the did:key of an Ed25519 key; a subject is a did:key or a name (name, @name or @name.<instance domain>)`)
    return { subject: given, domain: undefined }
  }
  const { norm, segment } = nameHandle(given)
  return { subject: norm, domain: segment.startsWith("@") ? segment.slice(norm.length + 2) : undefined }
}

/** A suspension of a did:key or a name (subjectOf), executing the order whose bytes are `order`. */
export const suspendDraft = (subject: string, order: Uint8Array, until?: number): EntryDraft =>
  draft("suspension", SuspensionPayload, {
    subject: subjectOf(subject).subject,
    order: hashOf(order),
    ...(until === undefined ? {} : { until })
  })

/** Ends the suspension of `subject`: a leaf without order whose `until` is `until`, at or before its logged time. */
export const unsuspendDraft = (subject: string, until: number): EntryDraft =>
  draft("suspension", SuspensionPayload, { subject: subjectOf(subject).subject, until })

export const freezeDraft = (): EntryDraft => draft("freeze", FreezePayload, { state: "frozen" })

/** Reopens the log, ending the freeze written at `resume`. */
export const openDraft = (resume: number): EntryDraft => draft("freeze", FreezePayload, { state: "open", resume })

/** What an audit report is of (AuditReport's `subject`). */
export const AUDIT_KINDS: ReadonlyArray<string> = AuditReport.fields.subject.literals

/** The kind of an audit report, or a usage error listing the kinds. */
export const checkedAuditKind = (kind: string): string => {
  if (!AUDIT_KINDS.includes(kind)) throw usageError(`an audit report is of ${AUDIT_KINDS.join(", ")}, not ${JSON.stringify(kind)}`)
  return kind
}

/** An audit report (incident, freeze or order) named by its hash; the report goes with it, to be served at /v2/bodies. */
export const auditDraft = (subject: string, report: Uint8Array): EntryDraft =>
  draft("report", AuditReport, { kind: "audit", subject: checkedAuditKind(subject), report_hash: hashOf(report) }, ownerDocument(report, "an audit report"))

/**
 * A policy's document as the log takes one, a change's or a card's alike (entries/types/
 * policy.ts): UTF-8 text (else body_mismatch) within its limit and, when the policy executes
 * an order, citing the order's hash (governance/policyTiming.ts documentCites, else
 * order_not_cited). The log reads nothing else of it: a card is any such text. Said here,
 * before the owner key signs, rather than spending a nonce on a certain refusal.
 */
const policyDocument = (document: Uint8Array, orderHash: string | undefined): Uint8Array => {
  ownerDocument(document, "a policy document")
  if (!isUtf8(document)) {
    const utf16 = (document[0] === 0xff && document[1] === 0xfe) || (document[0] === 0xfe && document[1] === 0xff)
    throw usageError(`a policy document is UTF-8 text (the log refuses any other: body_mismatch), and this one is not${utf16 ? ": it starts with a UTF-16 byte order mark; save it as UTF-8" : ""}`)
  }
  if (orderHash !== undefined && !documentCites(document, orderHash)) {
    throw usageError(`a policy that executes an order cites it: its document must contain the order's SHA-256 as U64 text, ${orderHash} (the log refuses it otherwise: order_not_cited)`)
  }
  return document
}

export const policyDraft = (kind: string, document: Uint8Array, notBefore: number, order?: Uint8Array): EntryDraft => {
  const orderHash = order === undefined ? undefined : hashOf(order)
  return draft("policy", PolicyPayload, {
    kind,
    document_hash: hashOf(document),
    size: document.length,
    not_before: notBefore,
    ...(orderHash === undefined ? {} : { order_hash: orderHash })
  }, policyDocument(document, orderHash))
}

export const taskDraft = (text: string, reward: number, closes: number): EntryDraft => {
  const body = textBytes(text, "the task's text")
  return draft("task", TaskPayload, { body_hash: hashOf(body), size: body.length, reward, closes }, body)
}

export const awardDraft = (taskIndex: number, submissionIndex: number, name: string): EntryDraft =>
  draft("task.award", TaskAwardPayload, { task_index: taskIndex, submission_index: submissionIndex, name: checkedName(name) })

export const quoteDraft = (requestIndex: number, amount: number, expires?: number): EntryDraft =>
  draft("action.quote", ActionQuotePayload, { request_index: requestIndex, amount, ...(expires === undefined ? {} : { expires }) })

/** Completes the paid quote, naming the result by its hash; the result goes with it, to be served at /v2/bodies. */
export const completeDraft = (quoteIndex: number, result: Uint8Array): EntryDraft =>
  draft("action.complete", ActionCompletePayload, { quote_index: quoteIndex, result_hash: hashOf(result) }, ownerDocument(result, "a result"))

/** Writes an owner entry to its route with the owner's key file, 201 once durable. */
export const ownerWrite = (client: LogClient, keyPath: string, entry: EntryDraft): Promise<WriteResult> => {
  const path = adminPathOf(entry.type)
  if (path === undefined) throw usageError(`${entry.type} is not an owner operation`)
  return writeWithKeyFile(client, keyPath, () => entry, undefined, { path, status: 201 })
}

/** The charter's notice period (leaf 0, verified): a policy's not_before is at least this far ahead. */
export const noticePeriodSeconds = async (client: LogClient): Promise<number> => {
  const charter = await getEntry(client, 0)
  const period = charter.envelope.payload["notice_period_seconds"]
  if (charter.envelope.type !== "charter" || typeof period !== "number") throw protocolError("entry 0 is not a charter with notice_period_seconds")
  return period
}

// ---------------------------------------------------------------------------------------
// The notice register

/** A signed request with a JSON body (or none), as the owner's non-entry routes take. */
const signedRequest = async (client: LogClient, keyPath: string, method: "GET" | "POST", path: string, body: Uint8Array | null) => {
  const key = await readAgentKeyFile(keyPath)
  const url = endpoint(client.service, path)
  const created = Math.floor((client.now ?? Date.now)() / 1000)
  const content = body ?? new Uint8Array(0)
  const headers = signRequest({
    seed: key.seed, keyid: key.kid, nonce: encodeU64(randomBytes(16)), created, expires: created + ENVELOPE_LIFETIME_SECONDS,
    method, authority: url.host, scheme: url.protocol.slice(0, -1), path: url.pathname, body: content
  }, crypto)
  if (Either.isLeft(headers)) throw usageError(`the request cannot be signed: ${headers.left.detail}`)
  return send(client.service, path, {
    method,
    headers: {
      ...(body === null ? {} : { "content-type": "application/json" }),
      "content-digest": headers.right["Content-Digest"],
      "signature-input": headers.right["Signature-Input"],
      signature: headers.right.Signature
    },
    ...(body === null ? {} : { body: content })
  })
}

export interface NoticeListing {
  readonly notices: ReadonlyArray<Record<string, unknown>>
}

/** GET /v2/admin/notices, signed by the owner key. */
export const listNotices = async (client: LogClient, keyPath: string, options: { status?: "open" | "closed"; limit?: number }): Promise<NoticeListing> => {
  const query = new URLSearchParams({
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.limit === undefined ? {} : { limit: String(options.limit) })
  }).toString()
  const json = await signedGetJson(client, await readAgentKeyFile(keyPath), `/v2/admin/notices${query === "" ? "" : `?${query}`}`) as NoticeListing
  if (typeof json !== "object" || json === null || !Array.isArray(json.notices)) throw protocolError("GET /v2/admin/notices: not a notice list")
  return json
}

/** The owner's request statistics (GET /v2/admin/stats): aggregate counts only. */
export interface OwnerStatistics {
  readonly generated_at: string
  readonly days: number
  readonly window: { readonly from: string; readonly to: string }
  readonly requests: {
    readonly daily: ReadonlyArray<{ readonly day: string; readonly total: number }>
    readonly totals: { readonly total: number; readonly by_outcome: Readonly<Record<string, number>>; readonly by_group: Readonly<Record<string, number>> }
  }
  /** The text gate's events (docs/protocol.md 12.4); absent from a service that does not count them. */
  readonly gate?: { readonly totals: { readonly by_event: Readonly<Record<string, number>> } }
  readonly [member: string]: unknown
}

/** GET /v2/admin/stats?days=N, signed by the owner key. */
export const ownerStatistics = async (client: LogClient, keyPath: string, days: number | undefined): Promise<OwnerStatistics> => {
  const json = await signedGetJson(client, await readAgentKeyFile(keyPath), `/v2/admin/stats${days === undefined ? "" : `?days=${days}`}`) as OwnerStatistics
  if (typeof json !== "object" || json === null || typeof json.requests !== "object" || !Array.isArray(json.requests?.daily)) {
    throw protocolError("GET /v2/admin/stats: not the owner statistics")
  }
  return json
}

export type NoticeClosing =
  | { readonly _tag: "Closed"; readonly index: number; readonly logged: number; readonly outcome: NoticeOutcome; readonly payload: JsonObject }
  | { readonly _tag: "Refused"; readonly code: string; readonly status: number; readonly detail: string }

/** The outcome is one of the closed list, and `removed` (only it) names its tombstone. */
export const checkClosing = (outcome: string, tombstoneIndex: number | undefined): void => {
  if (!(NOTICE_OUTCOMES as ReadonlyArray<string>).includes(outcome)) throw usageError(`the outcome is one of ${NOTICE_OUTCOMES.join(", ")}, not ${JSON.stringify(outcome)}`)
  if ((outcome === "removed") !== (tombstoneIndex !== undefined)) throw usageError("the outcome removed takes --tombstone-index (the tombstone that hid the content), and only it")
}

/**
 * POST /v2/admin/notices/{report_id}/close: the service writes one policy-signed report
 * leaf. Its receipt is checked against the log key, then the leaf itself is read back with
 * its inclusion proof: a report of kind notice with this outcome, signed by leaf 0's policy key.
 */
export const closeNotice = async (
  client: LogClient,
  keyPath: string,
  reportId: string,
  outcome: string,
  tombstoneIndex?: number
): Promise<NoticeClosing> => {
  checkClosing(outcome, tombstoneIndex)
  const path = `/v2/admin/notices/${encodeURIComponent(reportId)}/close`
  const body = utf8(JSON.stringify({ outcome, ...(tombstoneIndex === undefined ? {} : { tombstone_index: tombstoneIndex }) }))
  const response = await signedRequest(client, keyPath, "POST", path, body)
  if (response.status !== 201 && response.headers.get("content-type")?.includes("problem+json")) {
    throw protocolError(`POST ${path}: ${await describeProblem(response)}`)
  }
  const { entry, note } = await readAnswer(response, path)
  if (response.status !== 201) {
    const code = String(entry["refused"])
    verifyRefusalNote(note, client.vkey, { code, envelopeHash: crypto.sha256(body) })
    return { _tag: "Refused", code, status: response.status, detail: String(entry["detail"]) }
  }
  const index = entry["index"]
  const logged = entry["logged"]
  const leafHash = typeof entry["leaf_hash"] === "string" ? decodeU64(entry["leaf_hash"]) : undefined
  if (typeof index !== "number" || typeof logged !== "number" || leafHash === undefined) throw protocolError(`POST ${path}: the 201 answer lacks index, logged or leaf_hash`)
  verifyReceiptNote(note, client.vkey, { index, leafHash, logged })
  const [leaf, charter] = [await getEntry(client, index), await getEntry(client, 0)]
  const payload = leaf.envelope.payload
  if (leaf.leafHash !== entry["leaf_hash"] || leaf.envelope.type !== "report" || payload["kind"] !== "notice" || payload["outcome"] !== outcome) {
    throw verificationError(`entry ${index} is not the report of this closing`)
  }
  if (leaf.envelope.kid !== charter.envelope.payload["policy_kid"]) throw verificationError(`entry ${index} is not signed by the policy key of leaf 0`)
  return { _tag: "Closed", index, logged, outcome: outcome as NoticeOutcome, payload }
}

/** POST /notice: keyless. Fields are checked locally with the service's schema first. */
export const fileNotice = async (client: Pick<LogClient, "service">, notice: Record<string, unknown>): Promise<{ report_id: string; kind: string; received: number }> => {
  // The service's own checks (governance/notice.ts), so the CLI and a 422 say the same.
  const issues = noticeIssues(notice)
  if (issues.some((e) => e.path === "accurate")) throw usageError("a notice is taken only with --accurate: you state that it is accurate and complete")
  if (issues.length > 0) {
    throw usageError(`a notice needs --location (${NOTICE_LIMITS.location.min} to ${NOTICE_LIMITS.location.max} characters), --explanation (${NOTICE_LIMITS.explanation.min} to ${NOTICE_LIMITS.explanation.max}) and --accurate; ${issues.map((e) => `${e.path}: ${e.message}`).join("; ")}`)
  }
  const response = await send(client.service, "/notice", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(notice) })
  if (response.status !== 201) throw protocolError(`POST /notice: ${await describeProblem(response)}`)
  const json = await response.json() as { report_id?: unknown; kind?: unknown; received?: unknown }
  if (typeof json.report_id !== "string") throw protocolError("POST /notice: the answer has no report_id")
  return { report_id: json.report_id, kind: String(json.kind), received: Number(json.received) }
}
