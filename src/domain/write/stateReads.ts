// What deciding and applying an entry reads of the row areas (issue 12, "The domain stays
// pure"; stateAreas.ts): the rows a slice must hold for the rules (decide.ts, applyEntry.ts
// and the type's rule in entries/types) to answer as they would on the whole state. The
// resident parts (governance, tasks, the service's keys) are always whole in a slice, so
// only rows are listed here.
//
// Some reads depend on others (a dm reads the recipient key's name, then that name's
// record): `readsOf` is asked again on the slice with what it asked for loaded, until it
// asks for nothing new (the app's loader does that). A row an entry creates needs no
// loading; a row it changes, or a key it removes from a map, does: a slice holds a row only
// if it was loaded or written.
//
// Generic reads of every entry (decide.ts, applyEntry.ts): the signer's chain head and key
// record (its envelopes, the name it is bound to: a claim's and a rotation's checks, and the
// activity of applyEntry), the name the signer acts for (suspension, activity), and the
// activity rows the leaf may replace or remove (telemetry/activity.ts recordActivity): the
// agent's it is credited to (the name the key is or was bound to, the name a claim or a
// rotation names, the secret-bound name of `as`) and the key's bare-key row, which goes
// when the key acts for a name. A
// payload `as` (a policy-signed leaf for a secret-bound name) reads that name; a payload
// `name` is a suspension subject and is read by the type's rule anyway. Every key record
// read comes with its `recoveryOf` row.

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { EntryFacts, EntryRule } from "../entries/entryRule.js"
import { voteKey } from "../forum/polls.js"
import { boundNameOf, currentNameOf, nameRecordOf } from "../identity/bindings.js"
import { actorOf, bareKeyActor } from "../telemetry/activity.js"
import { quoteOf } from "../tasks/ownerRequests.js"
import { transactionKey } from "../sup/ledger.js"
import type { LogState } from "./logState.js"
import type { RowAreaName } from "./stateAreas.js"

/** One row a rule reads: an entry of a map area, or a name. */
export interface RowKey {
  readonly area: RowAreaName
  readonly key: string
}

const row = (area: RowAreaName, key: string | number): RowKey => ({ area, key: String(key) })

type Payload = Record<string, unknown>

const str = (payload: Payload, member: string): string | undefined =>
  typeof payload[member] === "string" ? (payload[member] as string) : undefined
const num = (payload: Payload, member: string): number | undefined =>
  typeof payload[member] === "number" ? (payload[member] as number) : undefined

/** The rows of one type's own rule, given the slice so far. */
const typeReads = (state: LogState, type: string, kid: string, p: Payload): Array<RowKey | undefined> => {
  switch (type) {
    case "claim": {
      // A recovery key the claim names stops being a bare key (stats/usageTallies.ts).
      const recovery = str(p, "recovery")
      return [row("names", str(p, "name") ?? ""), recovery === undefined ? undefined : row("keys", recovery)]
    }
    case "key.rotate": {
      const name = str(p, "name") ?? ""
      const newKid = str(p, "new_kid") ?? ""
      const record = nameRecordOf(state, name)
      // The rotation unbinds the name's current key: its record and its binding change.
      return [row("names", name), row("keys", newKid), row("keyNames", newKid),
        ...(record === undefined ? [] : [row("keys", record.kid), row("keyNames", record.kid)])]
    }
    case "key.x25519":
      return [row("names", str(p, "name") ?? "")]
    case "post": {
      const replyTo = num(p, "reply_to")
      return [replyTo === undefined ? undefined : row("postMeta", replyTo)]
    }
    case "dm": {
      const to = str(p, "to") ?? ""
      const name = currentNameOf(state, to)
      return [row("grants", num(p, "grant_index") ?? -1), row("keyNames", to), name === undefined ? undefined : row("names", name)]
    }
    case "grant.revoke":
      return [row("grants", num(p, "grant_index") ?? -1)]
    case "capsule":
      return [row("capsules", str(p, "slot") ?? "")]
    case "vote": {
      const poll = num(p, "poll_index") ?? -1
      return [row("polls", poll), row("votes", voteKey(poll, kid))]
    }
    case "action.quote":
      return [row("postMeta", num(p, "request_index") ?? -1)]
    case "action.pay": {
      const name = currentNameOf(state, kid)
      return [name === undefined ? undefined : row("supAccounts", name)]
    }
    case "task.award": {
      const submission = num(p, "submission_index") ?? -1
      const author = Option.getOrUndefined(HashMap.get(state.forum.postMeta, submission))?.author
      return [row("postMeta", submission), row("supAccounts", str(p, "name") ?? ""),
        author === undefined ? undefined : row("keys", author)]
    }
    case "sup.credit":
      return [row("names", str(p, "name") ?? ""), row("supAccounts", str(p, "name") ?? ""),
        row("supClaims", str(p, "claim_hash") ?? ""),
        row("supTransactions", transactionKey(str(p, "network") ?? "", str(p, "tx") ?? ""))]
    case "sup.refusal":
      return [row("supClaims", str(p, "claim_hash") ?? "")]
    case "tombstone":
      return [row("bodies", num(p, "target_index") ?? -1)]
    default:
      // charter, policy, freeze, suspension, report, task, action.complete, grant, poll:
      // resident parts only, or rows they create.
      return []
  }
}

/** Every row deciding and applying the entry reads, given what the slice holds so far. */
export const readsOf = (state: LogState, rule: EntryRule<unknown>, facts: Pick<EntryFacts<unknown>, "envelope" | "payload">): ReadonlyArray<RowKey> => {
  const kid = facts.envelope.kid
  const payload = (facts.payload ?? {}) as Payload
  const acting = currentNameOf(state, kid)
  const as = str(payload, "as")
  const quote = rule.type === "action.pay" || rule.type === "action.complete" ? quoteOf(state, num(payload, "quote_index") ?? -1) : undefined
  const reads: Array<RowKey | undefined> = [
    row("chains", kid),
    row("keys", kid),
    row("keyNames", kid),
    row("activity", bareKeyActor(kid)),
    ...[boundNameOf(state, kid), str(payload, "name"), as].map((name) => name === undefined ? undefined : row("activity", actorOf({ kid: null, name }))),
    acting === undefined ? undefined : row("names", acting),
    as === undefined ? undefined : row("names", as),
    quote === undefined ? undefined : row("postMeta", quote.requestIndex),
    ...typeReads(state, rule.type, kid, payload)
  ]
  const found = reads.filter((r): r is RowKey => r !== undefined)
  // Whether a key is a name's recovery key goes with its record wherever it is read: the
  // usage tallies count the keys that act for no name (stats/usageTallies.ts).
  return [...found, ...found.filter((r) => r.area === "keys").map((r) => row("recoveryOf", r.key))]
}
