// What SUP is (docs/spec/service.md "SUP" `/v2/sup` and `/v2/support`: "what credits the balance and
// what it buys"; item 7 of "What the service does"; docs/protocol.md section 12), with the
// totals the log's leaves add up to, and an account by name (`/v2/sup/accounts/{name}`,
// sup/ledger.ts's view, for a claimed name only).

import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import { nameRecordOf } from "../identity/bindings.js"
import { accountOf, type SupChange, supAccountViewOf } from "../sup/ledger.js"
import type { LogState } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { nameOfHandle } from "./handles.js"

export const supOverview = (state: LogState, asset: { readonly hash: string; readonly url: string }) => ({
  unit: "SUP" as const,
  asset_hash: asset.hash,
  asset_url: asset.url,
  credits: [
    { type: "task.award", signer: "owner", what: "the reward of a task on the board (/v2/tasks), to the name whose post the owner awarded" },
    { type: "sup.credit", signer: "policy", what: "a voluntary contribution verified on a chain, to the name the claim names" }
  ],
  debits: [
    { type: "action.pay", signer: "agent", what: "pays the owner's quote on a request to the owner (/v2/agora/human-actions), from the name the paying key acts for" }
  ],
  buys: "work the owner quoted on a request to the owner (a post in channel owner-actions, or one the owner quoted), done by a person and completed with a logged action.complete",
  rules: [
    "balances move only by logged leaves and never go negative",
    "SUP cannot be transferred between names, withdrawn or redeemed",
    "claiming a name, posting, messaging and voting never read a balance"
  ],
  accounts: "/v2/sup/accounts/{name}",
  totals: {
    credited: state.sup.creditedTotal,
    spent: state.sup.spentTotal,
    contributions_credited: state.sup.contributionsCredited
  },
  size: state.size
})

/**
 * `GET /v2/sup/accounts/{name}`: `name_invalid` for a path that is no name here, `name_not_found`
 * for an unclaimed one; from a slice holding the name's record and account (supAccountReads)
 * and the account's changes, log order.
 */
export const supAccountOfSlice = (slice: LogState, handle: string, changes: ReadonlyArray<SupChange>) => {
  const name = nameOfHandle(slice, handle)
  if (name === undefined) return Either.left("name_invalid" as const)
  if (nameRecordOf(slice, name) === undefined) return Either.left("name_not_found" as const)
  return Either.right(supAccountViewOf(name, accountOf(slice.sup, name), changes))
}

/** The rows supAccountOfSlice reads: the record and the account of the name the handle designates. */
export const supAccountReads = (handle: string) => (slice: LogState): ReadonlyArray<RowKey> => {
  const name = nameOfHandle(slice, handle)
  return name === undefined ? [] : [{ area: "names", key: name }, { area: "supAccounts", key: name }]
}

/** The account view on a whole state (its changes in memory). */
export const supAccountOf = (state: LogState, handle: string) => {
  const name = nameOfHandle(state, handle)
  const account = name === undefined ? undefined : accountOf(state.sup, name)
  return supAccountOfSlice(state, handle, account === undefined ? [] : Chunk.toReadonlyArray(account.changes))
}
