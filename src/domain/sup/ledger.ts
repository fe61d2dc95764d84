// SUP (docs/spec/service.md items 7 and 3 of "What the service does", "SUP", "Contribution";
// AICS-1 20.3 and 20.6). An account belongs to a name. Its balance moves only by logged
// leaves:
//
//   credit  `task.award` (the task's reward, to the submission's name)
//           `sup.credit` (policy-signed, a contribution verified on chain)
//   debit   `action.pay` (paying an owner's quote)
//
// A balance never goes negative: a payment above it is refused `insufficient_balance`
// (a key that holds no name has no account, so a balance of 0). A contribution claim is
// settled once, by a `sup.credit` or a `sup.refusal` leaf (`claim_settled`), and one
// on-chain transaction credits once. Claiming a name, posting, messaging and voting never
// read a balance: no rule of theirs imports this module.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

export type SupChangeKind = "task.award" | "sup.credit" | "action.pay"

export interface SupChange {
  readonly index: number
  readonly logged: number
  readonly kind: SupChangeKind
  /** Positive for a credit, negative for a debit. */
  readonly delta: number
}

export interface SupAccount {
  readonly name: string
  readonly balance: number
  readonly changes: Chunk.Chunk<SupChange>
}

export interface SupState {
  readonly accounts: HashMap.HashMap<string, SupAccount>
  /** claim_hash -> the leaf that settled it (credit or refusal). */
  readonly claims: HashMap.HashMap<string, number>
  /** `<network>:<tx>` -> the sup.credit leaf that credited it. */
  readonly transactions: HashMap.HashMap<string, number>
  readonly creditedTotal: number
  readonly spentTotal: number
  readonly contributionsCredited: number
}

export const emptySup: SupState = {
  accounts: HashMap.empty(),
  claims: HashMap.empty(),
  transactions: HashMap.empty(),
  creditedTotal: 0,
  spentTotal: 0,
  contributionsCredited: 0
}

export const accountOf = (sup: SupState, name: string): SupAccount | undefined => Option.getOrUndefined(HashMap.get(sup.accounts, name))

export const balanceOf = (sup: SupState, name: string): number => accountOf(sup, name)?.balance ?? 0

const change = (sup: SupState, name: string, c: SupChange): SupState => {
  const account = accountOf(sup, name) ?? { name, balance: 0, changes: Chunk.empty<SupChange>() }
  return {
    ...sup,
    accounts: HashMap.set(sup.accounts, name, { name, balance: account.balance + c.delta, changes: Chunk.append(account.changes, c) }),
    creditedTotal: sup.creditedTotal + Math.max(c.delta, 0),
    spentTotal: sup.spentTotal + Math.max(-c.delta, 0)
  }
}

export const credit = (sup: SupState, name: string, amount: number, kind: "task.award" | "sup.credit", index: number, logged: number): SupState =>
  change(sup, name, { index, logged, kind, delta: amount })

export const debitRefusal = (sup: SupState, name: string | undefined, amount: number): Refusal | undefined => {
  if (name === undefined) return refuse("insufficient_balance", "the key holds no name, so no SUP account")
  const balance = balanceOf(sup, name)
  return balance < amount ? refuse("insufficient_balance", `${name} has ${balance} SUP, ${amount} needed`) : undefined
}

/** Debits a payment that debitRefusal allowed. */
export const debit = (sup: SupState, name: string, amount: number, index: number, logged: number): SupState =>
  change(sup, name, { index, logged, kind: "action.pay", delta: -amount })

export const transactionKey = (network: string, tx: string): string => `${network}:${tx}`

export const claimRefusal = (sup: SupState, claimHash: string, transaction?: string): Refusal | undefined => {
  const settled = HashMap.get(sup.claims, claimHash)
  if (settled._tag === "Some") return refuse("claim_settled", `the claim was settled by leaf ${settled.value}`)
  if (transaction !== undefined) {
    const used = HashMap.get(sup.transactions, transaction)
    if (used._tag === "Some") return refuse("claim_settled", `transaction ${transaction} was credited by leaf ${used.value}`)
  }
  return undefined
}

export const settleClaim = (sup: SupState, claimHash: string, index: number, transaction?: string): SupState => ({
  ...sup,
  claims: HashMap.set(sup.claims, claimHash, index),
  transactions: transaction === undefined ? sup.transactions : HashMap.set(sup.transactions, transaction, index),
  contributionsCredited: sup.contributionsCredited + (transaction === undefined ? 0 : 1)
})

/**
 * `GET /v2/sup/accounts/{name}`: balance and the leaves that changed it, from the name's
 * account (undefined: none) and its changes, log order (in a slice, the account holds none).
 */
export const supAccountViewOf = (name: string, account: SupAccount | undefined, changes: ReadonlyArray<SupChange>) => ({
  name,
  balance: account?.balance ?? 0,
  changes: changes.map((c) => ({ index: c.index, logged: c.logged, kind: c.kind, delta: c.delta })),
  indices: changes.map((c) => c.index),
  size: changes.length === 0 ? 0 : changes[changes.length - 1]!.index + 1
})

/** The account view on a whole state (the account's changes in memory). */
export const supAccountView = (state: LogState, name: string) => {
  const account = accountOf(state.sup, name)
  return supAccountViewOf(name, account, account === undefined ? [] : Chunk.toReadonlyArray(account.changes))
}
