// The owner's commands, `aics admin <operation>`, and the keyless `aics notice`. Every
// write is an owner-signed entry sent to its /v2/admin/* route with the owner's key file
// (default $AICS_OWNER_KEY or ./owner-key.json; "aics keygen --key owner-key.json" makes
// one, and the service is started with AICS_OWNER_KID set to its kid).

import { readFile, stat } from "node:fs/promises"
import { MAX_CLOCK_SKEW_SECONDS } from "../domain/http/aicsProfile.js"
import {
  auditDraft, awardDraft, checkClosing, checkedAuditKind, closeNotice, completeDraft, fileNotice, freezeDraft, listNotices, noticePeriodSeconds, openDraft,
  ownerStatistics, ownerWrite, policyDraft, quoteDraft, subjectOf, suspendDraft, taskDraft, tombstoneDraft, unsuspendDraft
} from "./admin.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { logClient, written, type Env, type Outcome } from "./cliShared.js"
import { keyFileError, usageError } from "./errors.js"
import { freezeInForce, ownerKidOf } from "./governance.js"
import { serviceAt } from "./http.js"
import type { EntryDraft } from "./payloads.js"
import { getEntry } from "./read.js"
import { serviceNowMillis, unixSecondsByService } from "./serviceClock.js"
import { unixSeconds } from "./unixTime.js"
import type { LogClient } from "./write.js"

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

/**
 * The owner's key file, when it is there. A missing one is said as an owner's: given with
 * --key or AICS_OWNER_KEY, the key of the owner leaf 0 names (its kid, when leaf 0 can be
 * read); not "run aics keygen", since a new key is never the owner.
 */
const ownerKeyPath = async (inv: Invocation, env: Env, client: LogClient): Promise<string> => {
  const path = ownerKeyPathOf(inv, env)
  // Anything but a missing file is readAgentKeyFile's to say (a mode, a bad file).
  if (await stat(path).then(() => true, (e: NodeJS.ErrnoException) => e.code !== "ENOENT")) return path
  const owner = await ownerKidOf(client).catch(() => undefined)
  throw keyFileError(`no owner key file at ${path}: give the owner's key file with --key or AICS_OWNER_KEY, the key of ` +
    `${owner ?? "the owner"} that leaf 0 names (a first start that made it wrote it to <data dir>/owner.key); ` +
    `a new key from "aics keygen" is not the owner`)
}

/**
 * A WHEN option read again by the service's clock (serviceClock.ts), its form having been
 * checked on this machine's before any file is read: "+SECONDS" counts from the service's
 * now, and "in the future" is by it, as the log judges the leaf.
 */
const byServiceClock = async (inv: Invocation, env: Env, text: string, what: string, options: { readonly future: boolean }): Promise<number> =>
  unixSecondsByService(await logClient(inv, env), text, what, options)

/** A suspension's subject (admin.ts subjectOf); a handle's domain must be this log's, leaf 0's instance_domain. */
const checkedSubject = async (inv: Invocation, env: Env, given: string): Promise<string> => {
  const { subject, domain } = subjectOf(given)
  if (domain === undefined) return subject
  const instance = String((await getEntry(await logClient(inv, env), 0)).envelope.payload["instance_domain"]).toLowerCase()
  if (domain !== instance) throw usageError(`${given} is a handle of ${domain}, not of this log's instance domain ${instance}`)
  return subject
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
      // --until as aics grant's: Unix seconds or +SECONDS, in the future (unixTime.ts), then by the service's clock; without it, until unsuspended.
      if (o.until !== undefined) unixSeconds(o.until, "--until", { future: true })
      const order = await fileBytes(required(o.order, "order", op), "the order")
      const subject = await checkedSubject(inv, env, args[0]!)
      const until = o.until === undefined ? undefined : await byServiceClock(inv, env, o.until, "--until", { future: true })
      return {
        entry: suspendDraft(subject, order, until),
        what: (i) => `suspended ${args[0]}${until === undefined ? "" : ` until ${new Date(until * 1000).toISOString()}`} as entry ${i}`
      }
    }
    case "unsuspend": {
      // `until` must not be ahead of the leaf's logged time: the service's clock (its Date,
      // whole seconds rounded down) a second back, for another node's clock; without a Date,
      // this machine's clock back by the skew the service allows a signed request's created
      // (a clock further off has the request itself refused, signature_clock).
      const subject = await checkedSubject(inv, env, args[0]!)
      const serviceNow = await serviceNowMillis(await logClient(inv, env))
      const until = serviceNow === undefined ? nowSeconds() - MAX_CLOCK_SKEW_SECONDS : Math.floor(serviceNow / 1000) - 1
      return { entry: unsuspendDraft(subject, until), what: (i) => `ended the suspension of ${args[0]} as entry ${i}` }
    }
    case "freeze":
      return { entry: freezeDraft(), what: (i) => `froze agent writes as entry ${i} (reopen with "aics admin open ${i}")` }
    case "open": {
      // Without an index, the freeze in force: GET /v2/governance/freeze, its leaf checked (governance.ts).
      const resume = args[0] === undefined ? await freezeInForce(await logClient(inv, env)) : countArgument(args[0], "the freeze index")
      return { entry: openDraft(resume), what: (i) => `reopened the log, ending the freeze of entry ${resume}, as entry ${i}` }
    }
    case "audit": {
      // The kind before the file is read: a usage error listing the kinds, not the schema's words.
      const entry = auditDraft(checkedAuditKind(args[0]!), await fileBytes(args[1]!, "the report"))
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
      const notBefore = given !== undefined
        ? await byServiceClock(inv, env, o["not-before"]!, "--not-before", { future: o.order === undefined })
        : nowSeconds() + (order === undefined ? await noticePeriodSeconds(await logClient(inv, env)) + NOT_BEFORE_MARGIN_SECONDS : 0)
      // With --order a not_before gone by is in force from the leaf's logged time (policyTiming.ts effectiveAt).
      const from = order !== undefined && notBefore <= nowSeconds() ? "now (its leaf's logged time)" : new Date(notBefore * 1000).toISOString()
      return { entry: policyDraft(kind, document, notBefore, order), what: (i) => `published the policy ${kind} as entry ${i}, in effect from ${from}` }
    }
    case "task": {
      const reward = countArgument(required(o.reward, "reward", op), "--reward")
      // --closes as aics poll create's: Unix seconds or +SECONDS, in the future (the log refuses a task closing by its logged time).
      unixSeconds(required(o.closes, "closes", op), "--closes", { future: true })
      const closes = await byServiceClock(inv, env, o.closes!, "--closes", { future: true })
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
      if (o.expires !== undefined) unixSeconds(o.expires, "--expires", { future: true })
      const expires = o.expires === undefined ? undefined : await byServiceClock(inv, env, o.expires, "--expires", { future: true })
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

/** Characters of a notice's explanation `aics admin notices` shows (the whole is in --json). */
const EXPLANATION_SHOWN = 120

/** `text` on one line, cut to `max` characters with "..." when longer. */
const shortened = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= max ? line : `${line.slice(0, max - 3).trimEnd()}...`
}

/** "Name <email>", either alone, or what says there is none. */
const contactOf = (n: Record<string, unknown>): string => {
  const name = typeof n["name"] === "string" && n["name"] !== "" ? n["name"] : undefined
  const email = typeof n["email"] === "string" && n["email"] !== "" ? `<${n["email"]}>` : undefined
  return [name, email].filter((p) => p !== undefined).join(" ") || "(none given, or deleted)"
}

const notices = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const status = inv.options.status
  if (status !== undefined && status !== "open" && status !== "closed") throw usageError(`--status is open or closed, not ${JSON.stringify(status)}`)
  const client = await logClient(inv, env)
  const listing = await listNotices(client, await ownerKeyPath(inv, env, client), {
    ...(status === undefined ? {} : { status }),
    ...(inv.options.limit === undefined ? {} : { limit: countArgument(inv.options.limit, "--limit") })
  })
  const lines = listing.notices.flatMap((n) => [
    `${String(n["report_id"] ?? `(report id deleted; notice hash ${String(n["notice_hash"])})`)} ${String(n["kind"])} ${String(n["status"])}${n["outcome"] === null ? "" : ` ${String(n["outcome"])} (entry ${String(n["report_index"])})`}: ${String(n["location"] ?? "(text deleted)")}`,
    `  explanation: ${typeof n["explanation"] === "string" ? shortened(n["explanation"], EXPLANATION_SHOWN) : "(text deleted)"}`,
    `  contact: ${contactOf(n)}`
  ])
  return { lines: [...lines, `${listing.notices.length} notice${listing.notices.length === 1 ? "" : "s"}`], json: listing }
}

const stats = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const days = optionalCount(inv.options.days, "--days")
  const client = await logClient(inv, env)
  const report = await ownerStatistics(client, await ownerKeyPath(inv, env, client), days)
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
  const client = await logClient(inv, env)
  const closed = await closeNotice(client, await ownerKeyPath(inv, env, client), reportId, outcome, tombstone)
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
  const client = await logClient(inv, env)
  const result = await ownerWrite(client, await ownerKeyPath(inv, env, client), entry)
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

