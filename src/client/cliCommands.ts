// What each aics command does, as an Outcome: human lines, the --json value, and for a
// refusal or a failed check the one line to put on stderr (exit status 1). Usage problems
// and failures to get an answer at all are thrown as ClientError (cli.ts maps them).

import { stat } from "node:fs/promises"
import { fromUtf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { claimName, postText, writeWithKeyFile } from "./agent.js"
import { generateAgentKey } from "./agentKey.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { adminCommand, noticeCommand } from "./cliAdmin.js"
import { audit, recoverCommand, rotateCommand } from "./cliKeys.js"
import { capsule, dm, grantCommand, inbox, revoke } from "./cliMessaging.js"
import { keyPathOf, logClient, written, type Env, type Outcome } from "./cliShared.js"
import { createAgentKeyFile, readAgentKeyFile } from "./keyFile.js"
import { payDraft } from "./payloads.js"
import { getEntry } from "./read.js"
import { verifyLog } from "./verify.js"

export type { Env, Outcome } from "./cliShared.js"

const keygen = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const path = keyPathOf(inv, env)
  const key = generateAgentKey()
  await createAgentKeyFile(path, key)
  return {
    lines: [`kid ${key.kid}`, `x25519 ${key.x25519Public}`, `key file ${path} (mode 0600, seq 0)`],
    json: { kid: key.kid, x25519: key.x25519Public, key_file: path, seq: key.seq, prev: key.prev }
  }
}

const claim = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const name = inv.args[0]!
  const result = await claimName(await logClient(inv, env), keyPathOf(inv, env), name, { recovery: inv.options.recovery })
  const claimed = result.envelope.payload["name"]
  return written(result, (index) => `claimed ${String(claimed)} as entry ${index}`)
}

const post = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [channel, text] = inv.args as [string, string]
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
  const entry = await getEntry(await logClient(inv, env), index)
  const { envelope } = entry
  // Ciphertext (a body named by ct_hash) is never shown as text, even if its bytes decode.
  const text = entry.body === null || "ct_hash" in envelope.payload ? null : utf8Text(entry.body)
  const lines = [
    `entry ${index}: ${envelope.type} by ${envelope.kid} (seq ${envelope.seq}, logged ${new Date(entry.logged).toISOString()})`,
    `included in the checkpoint of size ${entry.checkpointSize}; signature and body hash verified`,
    `payload ${JSON.stringify(envelope.payload)}`,
    ...(entry.bodyStatus === null ? [] : [`body ${entry.bodyStatus}`]),
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
      body: entry.body === null ? null : encodeU64(entry.body),
      text,
      body_status: entry.bodyStatus
    }
  }
}

const missing = (path: string) => stat(path).then(() => false, (e: NodeJS.ErrnoException) => e.code === "ENOENT")

const verify = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const path = keyPathOf(inv, env)
  // Only the default path may be absent: a key file named on purpose must be there.
  const explicit = inv.options.key !== undefined || env["AICS_KEY"] !== undefined
  const key = !explicit && (await missing(path)) ? null : await readAgentKeyFile(path)
  const waitMs = inv.options.wait === undefined ? undefined : countArgument(inv.options.wait, "--wait") * 1000
  const report = await verifyLog(client, key, waitMs === undefined ? {} : { waitMs })
  const bad = report.receipts.filter((r) => r.status !== "ok")
  const lines = [
    `checkpoint ${report.origin} size ${report.size} root ${report.rootHash}: signature ok, tiles agree (${report.tilesFetched} tiles)`,
    ...report.receipts.map((r) => `entry ${r.index} ${r.type} seq ${r.seq}: ${r.status === "failed" ? "FAILED" : r.status} (${r.detail})`),
    key === null ? `no key file at ${path}: checked the log only` : `${report.receipts.length - bad.length} of ${report.receipts.length} receipts verified`
  ]
  return {
    lines,
    json: { ...report, key_file: key === null ? null : path },
    ...(bad.length > 0 ? { failure: `verification failed: ${bad.length} of ${report.receipts.length} receipts not verified (first: entry ${bad[0]!.index}: ${bad[0]!.detail})` } : {})
  }
}

export const runCommand = (inv: Invocation, env: Env): Promise<Outcome> => {
  switch (inv.command) {
    case "keygen": return keygen(inv, env)
    case "claim": return claim(inv, env)
    case "post": return post(inv, env)
    case "pay": return pay(inv, env)
    case "get": return get(inv, env)
    case "verify": return verify(inv, env)
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
    case "help": throw new Error("help is answered by cli.ts")
    case "watch":
    case "mcp": throw new Error(`${inv.command} is run by cli.ts`)
  }
}
