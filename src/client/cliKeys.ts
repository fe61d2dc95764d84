// The aics commands of key management and audit: rotate, recover, audit log, audit name.

import { createInterface } from "node:readline/promises"
import { auditLog, auditName, logAuditJson, nameAuditJson, type LogAudit } from "./audit.js"
import { KEYS_SAMPLED } from "./auditIdentityViews.js"
import { SAMPLE_SEED_BYTES, type Sampled } from "./auditSample.js"
import { CHANNELS_SAMPLED } from "./auditViews.js"
import { carryGrants, grantsToCarry, rotationNotes, type CarriedGrant } from "./carryOver.js"
import type { Invocation } from "./cliArgs.js"
import { keyPathOf, logClient, witnessedLines, written, type Env, type Outcome } from "./cliShared.js"
import { recover, rotate, type Rotation } from "./rotation.js"
import { usageError } from "./errors.js"
import { terminalProgress } from "./progress.js"
import type { LogClient } from "./write.js"
import { fromHex } from "../domain/bytes.js"
import { DIRECTORY_LIMIT } from "../domain/views/limits.js"

/** The user's yes: --yes, or y at a prompt when stdin and stderr are a terminal; no otherwise. */
const consented = async (inv: Invocation, question: string): Promise<boolean> => {
  if (inv.options.yes === true) return true
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) return false
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim())
  } finally {
    prompt.close()
  }
}

/** The grants a rotation left behind, re-signed with the user's consent: lines, JSON, and a failure if any re-grant was refused. */
const carryOver = async (inv: Invocation, client: LogClient, keyPath: string, grants: ReadonlyArray<CarriedGrant>) => {
  if (grants.length === 0) return { lines: [], json: { regranted: [] as Array<unknown>, pending: [] as Array<unknown> } }
  if (!(await consented(inv, `sign these ${grants.length} grant(s) again with the new key?`))) {
    return {
      lines: [`not re-granted: run "aics regrant --yes" to sign them again with the new key`],
      json: { regranted: [], pending: grants }
    }
  }
  const done = await carryGrants(client, keyPath, grants)
  const refused = done.filter((d) => d.result._tag === "Refused")
  return {
    lines: done.map((d) =>
      d.result._tag === "Accepted"
        ? `re-granted ${d.carried.sender} (was entry ${d.carried.index}) as entry ${d.result.receipt.index}`
        : `NOT re-granted ${d.carried.sender}: refused ${d.result.code}: ${d.result.detail}`),
    json: { regranted: done.map((d) => ({ ...d.carried, result: d.result._tag === "Accepted" ? { index: d.result.receipt.index } : { refused: d.result.code } })), pending: [] },
    ...(refused.length > 0 ? { failure: `${refused.length} of ${done.length} grants were not re-granted` } : {})
  }
}

const rotated = (r: Rotation, how: string): Outcome => {
  const extra = { name: r.name, old_kid: r.oldKid, new_kid: r.newKid }
  if (r.result === null) {
    return {
      lines: [`the log already names ${r.newKid} for ${r.name} (an earlier ${how}); the key file now uses it`],
      json: { ...extra, finished_earlier: true }
    }
  }
  const outcome = written(r.result, (index) => `${how === "rotate" ? "rotated" : "recovered"} ${r.name} to ${r.newKid} as entry ${index}`, extra)
  return r.result._tag === "Accepted"
    ? { ...outcome, lines: [...outcome.lines, `the key file now uses ${r.newKid} (seq 0); ${r.oldKid} is kept under "previous"`] }
    : outcome
}

/** After a rotation or recovery: what moved and what did not, said plainly, and the grants carried over with consent. */
const afterMove = async (inv: Invocation, client: LogClient, keyPath: string, rotation: Rotation, how: "rotate" | "recover"): Promise<Outcome> => {
  const outcome = rotated(rotation, how)
  if (outcome.failure !== undefined) return outcome
  const grants = await grantsToCarry(client, keyPath)
  const carried = await carryOver(inv, client, keyPath, grants)
  return {
    lines: [...outcome.lines, ...rotationNotes(rotation.name, rotation.oldKid, grants), ...carried.lines],
    json: { ...(outcome.json as Record<string, unknown>), ...carried.json },
    ...("failure" in carried ? { failure: carried.failure } : {})
  }
}

export const rotateCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const keyPath = keyPathOf(inv, env)
  return afterMove(inv, client, keyPath, await rotate(client, keyPath, { name: inv.options.name }), "rotate")
}

export const recoverCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const keyPath = keyPathOf(inv, env)
  // A recovered key may have been stolen: its grants are listed, and carried over only with consent.
  return afterMove(inv, client, keyPath, await recover(client, keyPath, inv.options["recovery-key"]!, { name: inv.options.name }), "recover")
}

export const regrantCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const keyPath = keyPathOf(inv, env)
  const grants = await grantsToCarry(client, keyPath)
  if (grants.length === 0) return { lines: ["nothing to re-grant: every grant in force of the keys this file rotated from is signed again"], json: { regranted: [], pending: [] } }
  const carried = await carryOver(inv, client, keyPath, grants)
  return {
    lines: [...grants.map((g) => `grant entry ${g.index} of ${g.from} for ${g.sender}`), ...carried.lines],
    json: carried.json,
    ...("failure" in carried ? { failure: carried.failure } : {})
  }
}

/** Values a DIFFERENT line quotes whole up to this length: a page of a key's 10,000 envelopes would fill a screen. */
const SHOWN_CHARACTERS = 400

const show = (value: unknown): string => {
  if (value === undefined) return "(absent)"
  const text = JSON.stringify(value)
  return text.length <= SHOWN_CHARACTERS ? text : `${text.slice(0, SHOWN_CHARACTERS)}... (${text.length} characters: --json has it whole)`
}

/** What a replay of the log found, as the lines of both audits say it. */
const replayLines = (client: LogClient, report: { readonly checkpointSize: number; readonly rootHash: string; readonly bundlesFetched: number; readonly tilesFetched: number; readonly problems: ReadonlyArray<string>; readonly uncheckedLeaves: ReadonlyArray<string> }, replayed: number) => [
  `checkpoint size ${report.checkpointSize} root ${report.rootHash}: ${replayed} entries from ${report.bundlesFetched} bundles replayed as the sequencer decides them, leaves and roots checked against ${report.tilesFetched} tiles`,
  ...witnessedLines(client),
  ...report.problems.map((p) => `PROBLEM: ${p}`),
  ...report.uncheckedLeaves.map((u) => `not checked: ${u}`)
]

/** The views counted rather than named, each kind by its path, as the lines say them. */
const COUNTED: ReadonlyArray<readonly [(path: string) => boolean, string, string]> = [
  [(p) => p.startsWith("/v2/agora/posts?") && !p.startsWith("/v2/agora/posts?channel="), "page of posts", "pages of posts"],
  [(p) => p.startsWith("/v2/agora/polls/"), "poll", "polls"],
  [(p) => p.startsWith("/v2/agora/posts?channel="), "page of a channel's posts", "pages of channels' posts"],
  [(p) => p.startsWith("/v2/directory?q="), "directory search", "directory searches"],
  [(p) => p.startsWith("/v2/names/"), "name view", "name views"],
  [(p) => p.startsWith("/v2/keys/"), "page of a key's view", "pages of keys' views"],
  [(p) => p.startsWith("/v2/inbox/") && p.endsWith("/grants"), "key's grants", "keys' grants"]
]

/** The views that agree: the single ones by path (the owner's, the lists), the rest counted by kind. */
const agreeingViews = (paths: ReadonlyArray<string>): string => {
  const named = paths.filter((p) => !COUNTED.some(([kind]) => kind(p)))
  const counted = COUNTED.map(([kind, one, many]) => {
    const n = paths.filter(kind).length
    return `${n} ${n === 1 ? one : many}`
  })
  return [...named, ...counted].join(", ")
}

/** How many of the log's names, keys and channels were compared, and how the rest were left out when some were. */
const sampledLine = (sampled: LogAudit["sampled"], seed: string): string => {
  const part = (s: Sampled, one: string, many: string, how: string) =>
    s.compared < s.total ? `${s.compared} of ${s.total} ${many} (${how})` : s.total === 1 ? `the one ${one}` : `${s.total === 0 ? "no" : `all ${s.total}`} ${many}`
  const line = [
    part(sampled.names, "name", "names", `spread over claim order, each past the directory's first page of ${DIRECTORY_LIMIT.max} with its directory entry; that page is compared whole`),
    part(sampled.keys, "key", "keys", `each compared name's latest keys and recovery key, and ${KEYS_SAMPLED} spread over all keys`),
    part(sampled.channels, "channel", "channels", `the ones /agora lists and ${CHANNELS_SAMPLED} spread over all channels`)
  ].join(", ")
  const partial = [sampled.names, sampled.keys, sampled.channels].some((s) => s.compared < s.total)
  return `compared: ${line}${partial ? `; the sample is this audit's random draw (seed ${seed}: --sample-seed draws it again), the others are not compared here (aics audit name <name> compares any one name)` : ""}`
}

/** --sample-seed: the hex of SAMPLE_SEED_BYTES bytes, as a report gives it. */
const sampleSeedOption = (hex: string): Uint8Array => {
  const seed = fromHex(hex)
  if (seed === undefined || seed.length !== SAMPLE_SEED_BYTES) throw usageError(`--sample-seed takes ${SAMPLE_SEED_BYTES} bytes in hex (${SAMPLE_SEED_BYTES * 2} digits), as a report's seed; got ${JSON.stringify(hex)}`)
  return seed
}

export const audit = (inv: Invocation, env: Env): Promise<Outcome> => (inv.args[0] === "log" ? auditLogCommand(inv, env) : auditNameCommand(inv, env))

const auditLogCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const shown = terminalProgress(process.stderr)
  const client = await logClient(inv, env)
  const sampleSeed = inv.options["sample-seed"] === undefined ? undefined : sampleSeedOption(inv.options["sample-seed"])
  const report = await auditLog(client, { progress: shown.progress, ...(sampleSeed === undefined ? {} : { sampleSeed }) }).finally(shown.end)
  const differing = report.views.filter((v) => v.outcome === "differs")
  const ahead = report.views.filter((v) => v.outcome === "ahead")
  const agreeing = report.views.filter((v) => v.outcome === "agrees").map((v) => v.view)
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
  const partly = report.uncheckedLeaves.length === 0 ? "" : ` (${count(report.uncheckedLeaves.length, "leaf", "leaves")} but for the one check said above)`
  const lines = [
    ...replayLines(client, report, report.entriesReplayed),
    ...differing.flatMap((v) => v.differences.map((d) => `DIFFERENT ${v.view} ${d.path}: the log implies ${show(d.log)}, the service says ${show(d.server)}`)),
    ...ahead.map((v) => `not compared: ${v.view} names leaves past size ${report.checkpointSize} (the log kept moving while the audit caught up: audit again)`),
    ...(agreeing.length === 0 ? [] : [`the views that agree with the log: ${agreeingViews(agreeing)}`]),
    ...(report.views.length === 0 ? [] : [sampledLine(report.sampled, report.sampleSeed)]),
    report.ok
      ? `every leaf of the log at size ${report.checkpointSize} is one the sequencer had to write${partly}`
      : `the log at size ${report.checkpointSize}: ${count(report.leavesRefused, "leaf", "leaves")} the sequencer could not have written, ${count(differing.length, "view", "views")} differing, ${ahead.length} not compared`
  ]
  const first = report.problems[0] ?? differing[0]?.view.concat(" differs") ?? ahead[0]?.view.concat(" is past the checkpoint audited: audit again") ??
    `only ${report.entriesReplayed} of ${report.checkpointSize} entries replayed`
  return {
    lines,
    json: logAuditJson(report),
    ...(report.ok ? {} : { failure: `audit of the log failed: ${report.leavesRefused} leaves refused, ${differing.length} views differing, ${ahead.length} not compared (first: ${first})` })
  }
}

const auditNameCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const shown = terminalProgress(process.stderr)
  const client = await logClient(inv, env)
  const report = await auditName(client, inv.args[1]!, { progress: shown.progress }).finally(shown.end)
  const lines = [
    ...replayLines(client, report, report.entriesFolded),
    ...report.differences.map((d) => `DIFFERENT ${d.path}: the log implies ${show(d.log)}, the service says ${show(d.server)}`),
    ...report.laterKeyEvents.map((e) => `STALE: the log holds a ${e.type} of ${report.name} at leaf ${e.index}, past the view's size ${report.size}: the view's keys may not be the current ones`),
    ...report.unchecked.map((u) => u.side === "service_only"
      ? `not checked: /${u.member}, which this aics does not fold (a service of a later version)`
      : `not checked: /${u.member}, which the service does not give (a service of an earlier version)`),
    report.ok
      ? `the name view of ${report.name} at size ${report.size} agrees with the log`
      : `the name view of ${report.name} at size ${report.size}: ${report.differences.length} difference${report.differences.length === 1 ? "" : "s"}, ` +
        `${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}, ${report.laterKeyEvents.length} later key event${report.laterKeyEvents.length === 1 ? "" : "s"}`
  ]
  const later = report.laterKeyEvents[0] === undefined ? undefined : `a later ${report.laterKeyEvents[0].type} at leaf ${report.laterKeyEvents[0].index}: the view is stale`
  const first = report.problems[0] ?? (report.differences[0] === undefined ? later : `${report.differences[0].path} differs`)
  return {
    lines,
    json: nameAuditJson(report),
    ...(report.ok ? {} : { failure: `audit of ${report.name} failed: ${report.differences.length} differences, ${report.problems.length} problems, ${report.laterKeyEvents.length} later key events (first: ${first})` })
  }
}
