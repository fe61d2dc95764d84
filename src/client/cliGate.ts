// The aics commands that make what the text gate accepts (docs/protocol.md section 17): `sign`
// answers the gate's `challenge <text>` and `sign <text>`; `gate-line` makes a complete
// signed {envelope, body} line to paste, at the head of the key's chain in the log.

import { countArgument, type Invocation } from "./cliArgs.js"
import { keyPathOf, logClient, type Env, type Outcome } from "./cliShared.js"
import { syncedWithLog } from "./chainSync.js"
import { gateLine, signGateText } from "./gate.js"
import { resolveSender } from "./grants.js"
import { readAgentKeyFile } from "./keyFile.js"
import { dmDraftTo } from "./messaging.js"
import { grantDraft, postDraft, voteDraft, type EntryDraft } from "./payloads.js"

/** The text to sign: the gate's whole line may be pasted, its leading word is dropped. */
export const gateTextOf = (line: string): string => line.replace(/^(?:challenge|sign) /, "")

export const sign = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const key = await readAgentKeyFile(keyPathOf(inv, env))
  const text = gateTextOf(inv.args[0]!)
  const signature = signGateText(key, text)
  const answer = inv.args[0]!.startsWith("challenge ") ? `prove ${signature}` : inv.args[0]!.startsWith("sign ") ? `sig ${signature}` : signature
  return { lines: [answer], json: { kid: key.kid, signature, line: answer } }
}

export const gateLineCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const key = await syncedWithLog(client, await readAgentKeyFile(keyPathOf(inv, env)))
  const [which, ...rest] = inv.args as [string, ...Array<string>]
  const draft: EntryDraft = which === "post"
    ? postDraft(rest[0]!, rest[1]!)
    : which === "grant"
    ? grantDraft(await resolveSender(client, rest[0]!))
    : which === "dm"
    ? (await dmDraftTo(client, key, rest[0]!, rest[1]!)).draft
    : voteDraft(countArgument(rest[0]!, "the poll index"), countArgument(rest[1]!, "the option"))
  const line = gateLine(key, client.vkey.name, draft)
  return { lines: [line], json: { kid: key.kid, seq: key.seq, type: draft.type, line } }
}
