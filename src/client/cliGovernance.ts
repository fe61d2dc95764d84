// `aics governance [subject]`: what the owner's leaves establish now (docs/protocol.md 12.6):
// whether agent writes are frozen, the policies in force and those announced for later
// (what the charter's notice period gives an agent time to read), and with a subject
// whether that key or name is suspended. The work is the library's (governance.ts); this
// file only turns answers into lines.

import type { Invocation } from "./cliArgs.js"
import { logClient, type Env, type Outcome } from "./cliShared.js"
import { type CheckedView, type PolicyItem, readGovernance } from "./governance.js"

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

const policyLine = (label: string, p: PolicyItem | null, now: number): string =>
  p === null
    ? `${label}: none`
    : `${label}: entry ${p.index} (document ${p.document_hash}, ${p.size} bytes${p.order_hash === null ? "" : `, citing order ${p.order_hash}`}), ` +
      `${p.effective_at <= now ? "in effect since" : "in effect from"} ${when(p.effective_at)}; read it with: aics get ${p.index}`

const json = <V>(checked: CheckedView<V>) => ({ ...checked.view, checkpoint_size: checked.checkpointSize, checked_leaves: checked.checkedLeaves })

export const governance = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const subject = inv.args[0]
  const { freeze, policy, suspension, checkedLeaves: checked } = await readGovernance(client, subject)
  const now = Date.now()

  const f = freeze.view
  const lines = [
    f.frozen_index === null
      ? `agent writes: open${f.indices.length === 0 ? " (never frozen)" : ` (the last freeze ended by entry ${f.indices[f.indices.length - 1]})`}`
      : `agent writes: FROZEN by entry ${f.frozen_index}: every agent-signed entry is refused writes_frozen (the owner reopens with: aics admin open)`,
    policyLine("policy change in force", policy.view.change, now),
    policyLine("card policy in force", policy.view.card, now),
    ...(policy.view.pending.length === 0
      ? ["no policy announced for later"]
      : policy.view.pending.map((p) => policyLine(`announced ${p.kind === "change" ? "policy change" : "card policy"}`, p, now)))
  ]
  if (suspension !== undefined) {
    const s = suspension.view
    const until = s.until === null ? "until ended" : `until ${when(s.until * 1000)}`
    lines.push(
      s.suspended
        ? `${s.subject}: SUSPENDED by entry ${s.index} (order ${s.order}) ${until}: its agent-signed entries are refused suspended`
        : s.index === null
        ? `${s.subject}: not suspended (never was)`
        : s.ended_index !== null
        ? `${s.subject}: not suspended (the suspension of entry ${s.index} was ended by entry ${s.ended_index})`
        : `${s.subject}: not suspended (the suspension of entry ${s.index} ran out at ${when(s.until! * 1000)})`
    )
    lines.push("(an agent's entries are refused while its key, the name it acts for or the name an entry acts for is suspended: ask for each)")
  }
  lines.push(
    checked.length === 0
      ? "checked: the views' log-signed checkpoints; they name no leaf in force"
      : `checked: ${checked.length === 1 ? "leaf" : "leaves"} ${checked.join(", ")} signed by the owner key of leaf 0 and included under log-signed checkpoints, each saying what the view says`,
    "not checked: a later leaf that changed this, which a stale view hides, or one the view leaves out: aics audit log replays the whole log and compares these views with it"
  )
  return {
    lines,
    json: { freeze: json(freeze), policy: json(policy), ...(suspension === undefined ? {} : { suspension: json(suspension) }) }
  }
}
