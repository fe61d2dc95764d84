// The owner's commands, `aics admin <operation>`, and the keyless `aics notice`. Every
// write is an owner-signed entry sent to its /v2/admin/* route with the owner's key file
// (default $AICS_OWNER_KEY or ./owner-key.json; "aics keygen --key owner-key.json" makes
// one, and the service is started with AICS_OWNER_KID set to its kid).

import { readFile } from "node:fs/promises"
import {
  auditDraft, awardDraft, checkClosing, closeNotice, completeDraft, fileNotice, freezeDraft, listNotices, noticePeriodSeconds, openDraft,
  ownerStatistics, ownerWrite, policyDraft, quoteDraft, suspendDraft, taskDraft, tombstoneDraft, unsuspendDraft
} from "./admin.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { logClient, written, type Env, type Outcome } from "./cliShared.js"
import { usageError } from "./errors.js"
import { serviceAt } from "./http.js"
import type { EntryDraft } from "./payloads.js"
import { unixSeconds } from "./unixTime.js"

const DEFAULT_OWNER_KEY = "./owner-key.json"
/** A policy's not_before defaults to the notice period plus this margin (clocks, queueing). */
const NOT_BEFORE_MARGIN_SECONDS = 300

export const ownerKeyPathOf = (inv: Invocation, env: Env): string => inv.options.key ?? env["AICS_OWNER_KEY"] ?? DEFAULT_OWNER_KEY

const nowSeconds = () => Math.floor(Date.now() / 1000)

const fileBytes = async (path: string, what: string): Promise<Uint8Array> => {
  try {
    return new Uint8Array(await readFile(path))
  } catch (error) {
    throw usageError(`cannot read ${what} ${path}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** Where the document an entry carries is served (docs/spec/service.md "Entry wire bundle"). */
const servedAt = (entry: EntryDraft, member: "report_hash" | "result_hash"): string => `; its document is served at /v2/bodies/${String(entry.payload[member])}`

const optionalCount = (text: string | undefined, what: string) => (text === undefined ? undefined : countArgument(text, what))

const required = (text: string | undefined, option: string, operation: string): string => {
  if (text === undefined) throw usageError(`aics admin ${operation} needs --${option}`)
  return text
}

/** The entry one write operation makes, and the line that says what it did. */
const writeOperation = async (inv: Invocation, env: Env, op: string, args: ReadonlyArray<string>): Promise<{ entry: EntryDraft; what: (index: number) => string }> => {
  const o = inv.options
  switch (op) {
    case "tombstone": {
      const target = countArgument(args[0]!, "the entry index")
      return { entry: tombstoneDraft(target, args[1]!), what: (i) => `tombstoned the body of entry ${target} (${args[1]}) as entry ${i}` }
    }
    case "suspend": {
      // --until as aics grant's: Unix seconds or +SECONDS, in the future (unixTime.ts); without it, until unsuspended.
      const until = o.until === undefined ? undefined : unixSeconds(o.until, "--until", { future: true })
      const order = await fileBytes(required(o.order, "order", op), "the order")
      return {
        entry: suspendDraft(args[0]!, order, until),
        what: (i) => `suspended ${args[0]}${until === undefined ? "" : ` until ${new Date(until * 1000).toISOString()}`} as entry ${i}`
      }
    }
    case "unsuspend":
      // `until` must not be ahead of the leaf's logged time: a second back allows for clocks.
      return { entry: unsuspendDraft(args[0]!, nowSeconds() - 1), what: (i) => `ended the suspension of ${args[0]} as entry ${i}` }
    case "freeze":
      return { entry: freezeDraft(), what: (i) => `froze agent writes as entry ${i} (reopen with "aics admin open ${i}")` }
    case "open": {
      const resume = countArgument(args[0]!, "the freeze index")
      return { entry: openDraft(resume), what: (i) => `reopened the log, ending the freeze of entry ${resume}, as entry ${i}` }
    }
    case "audit": {
      const entry = auditDraft(args[0]!, await fileBytes(args[1]!, "the report"))
      return { entry, what: (i) => `logged the ${args[0]} audit report as entry ${i}${servedAt(entry, "report_hash")}` }
    }
    case "policy": {
      const kind = args[0]!
      if (kind !== "change" && kind !== "card") throw usageError(`aics admin policy takes "change" or "card", not ${JSON.stringify(kind)}`)
      // --not-before as --closes: Unix seconds or +SECONDS (unixTime.ts), checked before any file is read. Without
      // --order it is in the future (the log refuses one sooner than its notice period from now, policy_too_soon);
      // with --order it may be past (the policy is in force from its leaf's logged time).
      const given = o["not-before"] === undefined ? undefined : unixSeconds(o["not-before"], "--not-before", { future: o.order === undefined })
      const document = await fileBytes(args[1]!, "the document")
      const order = o.order === undefined ? undefined : await fileBytes(o.order, "the order")
      const notBefore = given ?? nowSeconds() + (order === undefined ? await noticePeriodSeconds(await logClient(inv, env)) + NOT_BEFORE_MARGIN_SECONDS : 0)
      // With --order a not_before gone by is in force from the leaf's logged time (policyTiming.ts effectiveAt).
      const from = order !== undefined && notBefore <= nowSeconds() ? "now (its leaf's logged time)" : new Date(notBefore * 1000).toISOString()
      return { entry: policyDraft(kind, document, notBefore, order), what: (i) => `published the policy ${kind} as entry ${i}, in effect from ${from}` }
    }
    case "task": {
      const reward = countArgument(required(o.reward, "reward", op), "--reward")
      // --closes as aics poll create's: Unix seconds or +SECONDS, in the future (the log refuses a task closing by its logged time).
      const closes = unixSeconds(required(o.closes, "closes", op), "--closes", { future: true })
      return {
        entry: taskDraft(args[0]!, reward, closes),
        what: (i) => `posted a task (reward ${reward} SUP, closing at ${new Date(closes * 1000).toISOString()}) as entry ${i}`
      }
    }
    case "award": {
      const [task, submission] = [countArgument(args[0]!, "the task index"), countArgument(args[1]!, "the submission index")]
      return { entry: awardDraft(task, submission, args[2]!), what: (i) => `awarded task ${task} to ${args[2]} as entry ${i}` }
    }
    case "quote": {
      const [request, amount] = [countArgument(args[0]!, "the request index"), countArgument(args[1]!, "the amount")]
      // --expires as --closes: Unix seconds or +SECONDS, in the future (the log refuses a quote expiring by its logged time); without it, it never expires.
      const expires = o.expires === undefined ? undefined : unixSeconds(o.expires, "--expires", { future: true })
      return {
        entry: quoteDraft(request, amount, expires),
        what: (i) => `quoted ${amount} SUP for request ${request}${expires === undefined ? "" : ` (expires ${new Date(expires * 1000).toISOString()})`} as entry ${i}`
      }
    }
    case "complete": {
      const quote = countArgument(args[0]!, "the quote index")
      const entry = completeDraft(quote, await fileBytes(args[1]!, "the result"))
      return { entry, what: (i) => `completed quote ${quote} as entry ${i}${servedAt(entry, "result_hash")}` }
    }
    default:
      throw usageError(`unknown admin operation ${JSON.stringify(op)}`)
  }
}

const notices = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const status = inv.options.status
  if (status !== undefined && status !== "open" && status !== "closed") throw usageError(`--status is open or closed, not ${JSON.stringify(status)}`)
  const listing = await listNotices(await logClient(inv, env), ownerKeyPathOf(inv, env), {
    ...(status === undefined ? {} : { status }),
    ...(inv.options.limit === undefined ? {} : { limit: countArgument(inv.options.limit, "--limit") })
  })
  const lines = listing.notices.map((n) =>
    `${String(n["report_id"] ?? `(report id deleted; notice hash ${String(n["notice_hash"])})`)} ${String(n["kind"])} ${String(n["status"])}${n["outcome"] === null ? "" : ` ${String(n["outcome"])} (entry ${String(n["report_index"])})`}: ${String(n["location"] ?? "(text deleted)")}`)
  return { lines: [...lines, `${listing.notices.length} notice${listing.notices.length === 1 ? "" : "s"}`], json: listing }
}

const stats = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const days = optionalCount(inv.options.days, "--days")
  const report = await ownerStatistics(await logClient(inv, env), ownerKeyPathOf(inv, env), days)
  const totals = report.requests.totals
  const counts = (record: Readonly<Record<string, number>>) =>
    Object.entries(record).filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`).join(", ") || "none"
  return {
    lines: [
      `requests ${report.window.from} to ${report.window.to} (${report.days} day${report.days === 1 ? "" : "s"}): ${totals.total}`,
      `  by outcome: ${counts(totals.by_outcome)}`,
      `  by route group: ${counts(totals.by_group)}`,
      ...report.requests.daily.filter((d) => d.total > 0).map((d) => `  ${d.day}: ${d.total}`),
      ...(report.gate === undefined ? [] : [`text gate events: ${counts(report.gate.totals.by_event)}`])
    ],
    json: report
  }
}

const closeNoticeCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [reportId, outcome] = inv.args.slice(1) as [string, string]
  const tombstone = optionalCount(inv.options["tombstone-index"], "--tombstone-index")
  checkClosing(outcome, tombstone)
  const closed = await closeNotice(await logClient(inv, env), ownerKeyPathOf(inv, env), reportId, outcome, tombstone)
  if (closed._tag === "Refused") {
    return { lines: [], json: { refused: closed.code, status: closed.status, detail: closed.detail }, failure: `refused ${closed.status} ${closed.code}: ${closed.detail}` }
  }
  return {
    lines: [`closed notice ${reportId} (${outcome}): report leaf ${closed.index}, signed by the policy key and included in the log (verified)`],
    json: { report_id: reportId, index: closed.index, logged: closed.logged, payload: closed.payload }
  }
}

export const adminCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [op, ...args] = inv.args as [string, ...Array<string>]
  if (op === "notices") return notices(inv, env)
  if (op === "stats") return stats(inv, env)
  if (op === "close-notice") return closeNoticeCommand(inv, env)
  const { entry, what } = await writeOperation(inv, env, op, args)
  const result = await ownerWrite(await logClient(inv, env), ownerKeyPathOf(inv, env), entry)
  return written(result, what, { operation: op })
}

export const noticeCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const o = inv.options
  const notice = {
    ...(o.kind === undefined ? {} : { kind: o.kind }),
    location: o.location,
    explanation: o.explanation,
    ...(o.name === undefined ? {} : { name: o.name }),
    ...(o.email === undefined ? {} : { email: o.email }),
    ...(o["report-id"] === undefined ? {} : { report_id: o["report-id"] }),
    accurate: o.accurate === true
  }
  const filed = await fileNotice({ service: serviceAt(o.server ?? env["AICS_SERVER"] ?? "http://127.0.0.1:8080") }, notice)
  return {
    lines: [`filed ${filed.kind} ${filed.report_id}: keep this report id; the notice is in the register, off the log`],
    json: filed
  }
}

