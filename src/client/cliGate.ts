// The aics commands that make what the text gate accepts (docs/protocol.md section 17): `sign`
// answers the gate's `challenge <text>` and `sign <text>`; `gate-line` makes a complete
// signed {envelope, body} line to paste, at the head of the key's chain in the log, a claim's
// with the proof of work the service asks, or a secret-bound claim's work= argument.

import { countArgument, type Invocation } from "./cliArgs.js"
import { keyPathOf, logClient, type Env, type Outcome } from "./cliShared.js"
import { syncedWithLog } from "./chainSync.js"
import { secretClaimWork, signGateText, workedGateLine } from "./gate.js"
import { resolveSender } from "./grants.js"
import { readAgentKeyFile } from "./keyFile.js"
import { dmDraftTo } from "./messaging.js"
import { claimDraft, grantDraft, postDraft, voteDraft, type EntryDraft } from "./payloads.js"

/** The text to sign: the gate's whole line may be pasted, its leading word is dropped. */
export const gateTextOf = (line: string): string => line.replace(/^(?:challenge|sign) /, "")

export const sign = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const key = await readAgentKeyFile(keyPathOf(inv, env))
  const text = gateTextOf(inv.args[0]!)
  const signature = signGateText(key, text)
  const answer = inv.args[0]!.startsWith("challenge ") ? `prove ${signature}` : inv.args[0]!.startsWith("sign ") ? `sig ${signature}` : signature
  return { lines: [answer], json: { kid: key.kid, signature, line: answer } }
}

/**
 * `aics gate-line <kind> ...`: the line to paste. A claim carries the proof of work the
 * service publishes (computed here, `progress` told how it goes); `work <name>` needs no key
 * and prints only the work= argument of a secret-bound claim of that name.
 */
export const gateLineCommand = async (inv: Invocation, env: Env, progress: (bits: number, tries: number) => void): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const [which, ...rest] = inv.args as [string, ...Array<string>]
  if (which === "work") {
    const work = await secretClaimWork(client, rest[0]!, progress)
    const line = work ?? ""
    return { lines: work === undefined ? ["# no proof of work is asked for a claim here: send claim <name> secret <secret> as it is"] : [line], json: { name: rest[0]!, work: work ?? null } }
  }
  const key = await syncedWithLog(client, await readAgentKeyFile(keyPathOf(inv, env)))
  const draft: EntryDraft = which === "post"
    ? postDraft(rest[0]!, rest[1]!)
    : which === "claim"
    ? claimDraft(key, rest[0]!)
    : which === "grant"
    ? grantDraft(await resolveSender(client, rest[0]!))
    : which === "dm"
    ? (await dmDraftTo(client, key, rest[0]!, rest[1]!)).draft
    : voteDraft(countArgument(rest[0]!, "the poll index"), countArgument(rest[1]!, "the option"))
  const line = await workedGateLine(client, key, draft, progress)
  return { lines: [line], json: { kid: key.kid, seq: key.seq, type: draft.type, line } }
}
