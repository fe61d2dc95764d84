// What each aics command does, as an Outcome: human lines, the --json value, and for a
// refusal or a failed check the one line to put on stderr (exit status 1). Usage problems
// and failures to get an answer at all are thrown as ClientError (cli.ts maps them).

import { stat } from "node:fs/promises"
import { fromUtf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { claimName, postText, writeWithKeyFile } from "./agent.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { adminCommand, noticeCommand } from "./cliAdmin.js"
import { directory, me, name, poll, posts, vote } from "./cliForum.js"
import { governance } from "./cliGovernance.js"
import { gateLineCommand, sign } from "./cliGate.js"
import { audit, recoverCommand, regrantCommand, rotateCommand } from "./cliKeys.js"
import { clientVersion } from "./version.js"
import { contributeCommand } from "./cliContribute.js"
import { capsule, dm, grantCommand, inbox, revoke } from "./cliMessaging.js"
import { keyPathOf, logClient, witnessedLines, written, type Env, type Outcome } from "./cliShared.js"
import { makeAgentKeyFile, readAgentKeyFile } from "./keyFile.js"
import { payDraft, someText } from "./payloads.js"
import { nameOfKey } from "./forum.js"
import { getEntry } from "./read.js"
import { checkBodyStatus, describeBodyStatus, isCheckedBodyStatus } from "./bodyStatus.js"
import { fetchReceipt, keepReissuedReceipt, type KeptReceipt } from "./reissuedReceipt.js"
import { terminalProgress } from "./progress.js"
import { missingReceiptsLine, verificationJson, verifyLog } from "./verify.js"
import { describeMonitorResult, MONITOR_OLDER_EXIT, monitorOnce, monitorResultJson } from "./monitor.js"

export type { Env, Outcome } from "./cliShared.js"

const keygen = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const made = await makeAgentKeyFile(keyPathOf(inv, env))
  return {
    lines: [`kid ${made.kid}`, `x25519 ${made.x25519}`, `key file ${made.key_file} (mode 0600, seq 0)`],
    json: made
  }
}

/** Where `aics claim` says how its proof of work goes (stderr), so stdout stays the result. */
export type Progress = (text: string) => void

/** How often `aics claim` says how its proof of work goes, at most (the work reports every 65,536 hashes, many a second). */
const WORK_PROGRESS_EVERY_MS = 2_000

/** The lines `aics claim` and `aics gate-line claim|work` print while they do a claim's proof of work. */
export const workProgress = (progress: Progress, now: () => number = Date.now) => {
  let saidAt = -Infinity
  return (bits: number, tries: number): void => {
    if (tries > 0 && now() - saidAt < WORK_PROGRESS_EVERY_MS) return
    saidAt = now()
    progress(tries === 0
      ? `proof of work: ${bits} bits asked for a claim here, about ${2 ** bits} hashes\n`
      : `proof of work: ${tries} hashes tried (${Math.min(99, Math.floor((100 * tries) / 2 ** bits))}% of the expected)\n`)
  }
}

const claim = async (inv: Invocation, env: Env, progress: Progress): Promise<Outcome> => {
  const name = inv.args[0]!
  const result = await claimName(await logClient(inv, env), keyPathOf(inv, env), name, {
    recovery: inv.options.recovery,
    progress: workProgress(progress)
  })
  const claimed = result.envelope.payload["name"]
  return written(result, (index) => `claimed ${String(claimed)} as entry ${index}`)
}

const post = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [channel, text] = inv.args as [string, string]
  someText(text, "the post")
  const replyTo = inv.options["reply-to"] === undefined ? undefined : countArgument(inv.options["reply-to"], "--reply-to")
  const result = await postText(await logClient(inv, env), keyPathOf(inv, env), channel, text, replyTo)
  return written(result, (index) => `posted to ${channel} as entry ${index}`)
}

const pay = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const quote = countArgument(inv.args[0]!, "the quote index")
  const result = await writeWithKeyFile(await logClient(inv, env), keyPathOf(inv, env), () => payDraft(quote))
  return written(result, (index) => `paid quote ${quote} as entry ${index}`, { quote_index: quote })
}

const utf8Text = (bytes: Uint8Array): string | null => {
  try {
    return fromUtf8(bytes)
  } catch {
    return null
  }
}

const get = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const index = countArgument(inv.args[0]!, "the index")
  const client = await logClient(inv, env)
  const entry = await getEntry(client, index)
  const { envelope } = entry
  const bodyStatus = await checkBodyStatus(client, entry)
  const signer = await nameOfKey(client, envelope.kid, index)
  // Ciphertext (a body named by ct_hash) is never shown as text, even if its bytes decode.
  const text = entry.body === null || "ct_hash" in envelope.payload ? null : utf8Text(entry.body)
  const lines = [
    `entry ${index}: ${envelope.type} by ${signer === null ? envelope.kid : `${signer} (${envelope.kid})`} (seq ${envelope.seq}, logged ${new Date(entry.logged).toISOString()})`,
    `included in the checkpoint of size ${entry.checkpointSize}; ${entry.body === null ? "signature verified" : "signature and body hash verified"}`,
    `payload ${JSON.stringify(envelope.payload)}`,
    ...(bodyStatus === null ? [] : [describeBodyStatus(bodyStatus)]),
    ...(text === null ? [] : ["", text])
  ]
  return {
    lines,
    json: {
      index,
      logged: entry.logged,
      leaf_hash: entry.leafHash,
      checkpoint_size: entry.checkpointSize,
      envelope,
      signer_name: signer,
      body: entry.body === null ? null : encodeU64(entry.body),
      text,
      body_status: entry.bodyStatus,
      body_status_checked: bodyStatus === null ? null : isCheckedBodyStatus(bodyStatus)
    }
  }
}

const missing = (path: string) => stat(path).then(() => false, (e: NodeJS.ErrnoException) => e.code === "ENOENT")

const KEPT: Readonly<Record<KeptReceipt, (path: string) => string>> = {
  added: (path) => `kept in ${path}`,
  held: (path) => `${path} holds it already`,
  not_ours: (path) => `not kept: the entry is signed by none of the keys of ${path}`,
  other_log: (path) => `not kept: ${path} holds a chain of another log`
}

/** A receipt fetched again and verified (reissuedReceipt.ts), kept in the key file when the entry is one of its keys'. */
const receipt = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const index = countArgument(inv.args[0]!, "the index")
  const client = await logClient(inv, env)
  const path = keyPathOf(inv, env)
  const again = await fetchReceipt(client, index)
  // As verify: only the default key file may be absent; the receipt is then printed, not kept.
  const explicit = inv.options.key !== undefined || env["AICS_KEY"] !== undefined
  const kept = !explicit && (await missing(path)) ? null : (await keepReissuedReceipt(path, again)).kept
  const { receipt: r, kid } = again
  return {
    lines: [
      `entry ${index}: ${r.type} by ${kid} (seq ${r.seq}, logged ${new Date(r.logged).toISOString()}): receipt verified, ` +
        `signed by the log key; the entry is included in the checkpoint of size ${again.checkpointSize}`,
      `receipt_note ${r.receipt_note}`,
      kept === null ? `not kept: no key file at ${path}` : KEPT[kept](path)
    ],
    json: { ...r, kid, checkpoint_size: again.checkpointSize, key_file: kept === null ? null : path, kept }
  }
}

const verify = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const path = keyPathOf(inv, env)
  // Only the default path may be absent: a key file named on purpose must be there.
  const explicit = inv.options.key !== undefined || env["AICS_KEY"] !== undefined
  const key = !explicit && (await missing(path)) ? null : await readAgentKeyFile(path)
  const waitMs = inv.options.wait === undefined ? undefined : countArgument(inv.options.wait, "--wait") * 1000
  const shown = terminalProgress(process.stderr)
  const report = await verifyLog(client, key, { ...(waitMs === undefined ? {} : { waitMs }), progress: shown.progress }).finally(shown.end)
  const bad = report.receipts.filter((r) => r.status !== "ok")
  const lines = [
    `checkpoint ${report.origin} size ${report.size} root ${report.rootHash}: signature ok, hash tiles rebuild the root (${report.tilesFetched} tiles)`,
    ...witnessedLines(client),
    key === null
      ? "entry contents are not checked here: aics audit log reads every entry bundle, checks it against the tiles and replays every leaf"
      : `entry contents are not checked here but the receipts' own (${report.bundlesFetched} entry bundle${report.bundlesFetched === 1 ? "" : "s"} read): ` +
        "aics audit log reads every entry bundle, checks it against the tiles and replays every leaf",
    ...report.receipts.map((r) => `entry ${r.index} ${r.type} seq ${r.seq}: ${r.status === "failed" ? "FAILED" : r.status} (${r.detail})`),
    key === null ? `no key file at ${path}: checked the checkpoint and the hash tiles only` : `${report.receipts.length - bad.length} of ${report.receipts.length} receipts verified`,
    ...[missingReceiptsLine(report.missingReceipts)].filter((line) => line !== null)
  ]
  return {
    lines,
    json: { ...verificationJson(report), key_file: key === null ? null : path },
    ...(bad.length > 0 ? { failure: `verification failed: ${bad.length} of ${report.receipts.length} receipts not verified (first: entry ${bad[0]!.index}: ${bad[0]!.detail})` } : {})
  }
}

const monitor = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const state = inv.options.state ?? "./aics-monitor.json"
  const intervalMs = (inv.options.interval === undefined ? 10 : countArgument(inv.options.interval, "--interval")) * 1000
  for (;;) {
    const result = await monitorOnce(client, state)
    if (result._tag === "SplitView") {
      return {
        lines: [describeMonitorResult(result), "", "the checkpoint seen before:", result.previousNote, "the checkpoint now:", result.currentNote],
        json: monitorResultJson(result),
        failure: `split view: ${result.reason}; both signed checkpoints are the evidence (${state} keeps the earlier one)`
      }
    }
    // An older checkpoint is a freshness warning: with --once its own exit status, else said
    // (on stderr too) and looked again: a lagging node or a cache may catch up.
    const older = result._tag === "Older"
      ? `older checkpoint: the log answered size ${result.checkpoint.size}, below the size ${result.kept} seen before (${state} keeps it): a rollback, a lagging node or a cache`
      : undefined
    if (inv.options.once === true) {
      return { lines: [describeMonitorResult(result)], json: monitorResultJson(result), ...(older === undefined ? {} : { failure: older, exit: MONITOR_OLDER_EXIT }) }
    }
    if (inv.options.json !== true) process.stdout.write(`${new Date().toISOString()} ${describeMonitorResult(result)}\n`)
    if (older !== undefined) process.stderr.write(`${new Date().toISOString()} WARNING: ${older}\n`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

const version = async (): Promise<Outcome> => {
  const v = await clientVersion()
  return { lines: [`aics ${v}`], json: { version: v } }
}

export const runCommand = (inv: Invocation, env: Env, progress: Progress = () => undefined): Promise<Outcome> => {
  switch (inv.command) {
    case "keygen": return keygen(inv, env)
    case "claim": return claim(inv, env, progress)
    case "post": return post(inv, env)
    case "pay": return pay(inv, env)
    case "get": return get(inv, env)
    case "receipt": return receipt(inv, env)
    case "verify": return verify(inv, env)
    case "monitor": return monitor(inv, env)
    case "grant": return grantCommand(inv, env)
    case "revoke": return revoke(inv, env)
    case "dm": return dm(inv, env)
    case "inbox": return inbox(inv, env)
    case "capsule": return capsule(inv, env)
    case "rotate": return rotateCommand(inv, env)
    case "recover": return recoverCommand(inv, env)
    case "audit": return audit(inv, env)
    case "admin": return adminCommand(inv, env)
    case "notice": return noticeCommand(inv, env)
    case "regrant": return regrantCommand(inv, env)
    case "posts": return posts(inv, env)
    case "name": return name(inv, env)
    case "directory": return directory(inv, env)
    case "governance": return governance(inv, env)
    case "poll": return poll(inv, env)
    case "vote": return vote(inv, env)
    case "me": return me(inv, env)
    case "sign": return sign(inv, env)
    case "gate-line": return gateLineCommand(inv, env, workProgress(progress))
    case "version": return version()
    case "contribute": return contributeCommand(inv, env)
    case "help": throw new Error("help is answered by cli.ts")
    case "watch":
    case "mcp": throw new Error(`${inv.command} is run by cli.ts`)
  }
}
