// Contributions (docs/spec/service.md "Contribution intent", "Contribution" state, "SUP" routes
// POST /v2/sup/contributions/intents and POST /v2/sup/contributions; docs/protocol.md
// section 13). Pure: the time, the random tag and what the chain says are arguments.
//
//   intent   {network, amount} (and an optional name) -> the exact `units` of the network's asset to send
//            to its address, valid until `expires`, claimable until `claim_until`. The units
//            are amount x units_per_sup plus a small tag (below 1 % of one SUP) that no other
//            intent of the network that can still receive a transfer has, so one transfer
//            matches one intent.
//   claim    {intent_id, tx, created} (and the name, when the intent named none) in JCS
//            form -> a `sup.credit` of the intent's amount to the name, or a `sup.refusal`
//            with one code of the closed list (entries/types/supRefusal.ts), decided by
//            `decideClaim` from what the chain oracle reports for `tx` to the intent's
//            address once that is final; before, no leaf (the claim is made again later).

import * as Schema from "effect/Schema"
import { NameNorm, SupAmount, UnixSeconds } from "../entries/fields.js"
import { Network, TxId } from "../entries/types/supCredit.js"
import type { CLAIM_REFUSALS } from "../entries/types/supRefusal.js"
import type { ChainReport } from "./chainReport.js"

/** What the operator configures for one network (README "Configuration", AICS_SUP_NETWORKS). */
export interface NetworkTerms {
  readonly network: string
  /** The asset identifier as the chain oracle reports it (e.g. a CAIP-19 id or a ticker). */
  readonly asset: string
  /** Where contributions are sent. */
  readonly address: string
  /** Smallest units of the asset per SUP, at least MIN_UNITS_PER_SUP. */
  readonly unitsPerSup: bigint
}

/** A tag below 1 % of one SUP must leave room for at least 99 intents of one amount. */
export const MIN_UNITS_PER_SUP = 10_000n
/** At most this many distinct tags per amount, whatever the asset's precision. */
const MAX_TAGS = 1_000_000n

/** The tags an intent's units may carry: 1 to tagSpan. */
export const tagSpan = (unitsPerSup: bigint): number => {
  const span = unitsPerSup / 100n - 1n
  return Number(span < MAX_TAGS ? span : MAX_TAGS)
}

/** Units of an intent: amount x units_per_sup + tag, as a decimal string (they exceed 2^53). */
export const intentUnits = (terms: NetworkTerms, amount: number, tag: number): string =>
  (BigInt(amount) * terms.unitsPerSup + BigInt(tag)).toString()

/** A contribution intent as the service keeps it (off the log). Times are Unix seconds. */
export interface ContributionIntent {
  readonly intentId: string
  /**
   * The name the intent fixed when it was made, or null: then the claim names it
   * (docs/protocol.md 13.2). Only named intents count towards MAX_OPEN_INTENTS.
   */
  readonly name: string | null
  readonly network: string
  readonly asset: string
  readonly address: string
  readonly units: string
  readonly amount: number
  readonly created: number
  readonly expires: number
  readonly claimUntil: number
}

/**
 * While an intent can still receive a transfer (up to and including `expires`), no other
 * intent of its network gets its units. That is enough for one transfer to match one
 * intent: a later intent with the same units is made after this one expired, so a
 * transfer by `expires` is older than the later intent (`tx_not_found` for it) and one
 * after is too late for this one (`intent_expired`). Holding the units until `claim_until`
 * instead would let anyone block an amount's units for the whole claim period.
 */
export const receivesTransfers = (intent: ContributionIntent, now: number): boolean => now <= intent.expires

/**
 * At most this many intents of one name on one network can receive a transfer at a time:
 * intents cost nothing to make, and each holds units of its amount until it expires.
 */
export const MAX_OPEN_INTENTS = 16

/** docs/spec/service.md's `{network, amount}`; `name` is optional (docs/protocol.md 13.2). */
export const IntentRequest = Schema.Struct({
  network: Network,
  amount: SupAmount,
  name: Schema.optional(NameNorm)
})
export type IntentRequest = typeof IntentRequest.Type

/** The intent for a request, given the terms of its network, the time and a tag in 1..tagSpan. */
export const makeIntent = (
  request: IntentRequest,
  terms: NetworkTerms,
  timing: { readonly now: number; readonly intentSeconds: number; readonly claimSeconds: number },
  intentId: string,
  tag: number
): ContributionIntent => {
  const expires = timing.now + timing.intentSeconds
  return {
    intentId,
    name: request.name ?? null,
    network: terms.network,
    asset: terms.asset,
    address: terms.address,
    units: intentUnits(terms, request.amount, tag),
    amount: request.amount,
    created: timing.now,
    expires,
    claimUntil: expires + timing.claimSeconds
  }
}

/** The 201 answer of POST /v2/sup/contributions/intents. */
export const intentView = (intent: ContributionIntent) => ({
  intent_id: intent.intentId,
  name: intent.name,
  network: intent.network,
  asset: intent.asset,
  address: intent.address,
  units: intent.units,
  amount: intent.amount,
  expires: intent.expires,
  claim_until: intent.claimUntil
})

/** How far a claim's `created` may be from the service's clock (as for signatures). */
export const CLAIM_CLOCK_SKEW_SECONDS = 300

export const ContributionClaim = Schema.Struct({
  intent_id: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/, { message: () => "intent_id: 1 to 64 of A-Z a-z 0-9 _ -" })),
  tx: TxId,
  created: UnixSeconds,
  /** The name to credit: required when the intent named none, else equal to the intent's. */
  name: Schema.optional(NameNorm)
})
export type ContributionClaim = typeof ContributionClaim.Type

/** One transfer the chain oracle reports (ports/ChainOracle.ts). `time` is Unix seconds. */
export interface ChainTransfer {
  readonly network: string
  readonly tx: string
  readonly address: string
  readonly asset: string
  /** Smallest units, decimal. */
  readonly units: string
  readonly confirmed: boolean
  readonly time: number
}

export type ClaimRefusalCode = (typeof CLAIM_REFUSALS)[number]

export type ClaimDecision =
  | { readonly _tag: "Credit"; readonly name: string; readonly amount: number; readonly network: string; readonly tx: string }
  | { readonly _tag: "Refusal"; readonly code: ClaimRefusalCode; readonly detail: string }
  /** Not final yet: no leaf; the claim is made again later (`missing` confirmations, when known). */
  | { readonly _tag: "Wait"; readonly missing: number | undefined; readonly detail: string }

const refusal = (code: ClaimRefusalCode, detail: string): ClaimDecision => ({ _tag: "Refusal", code, detail })

/**
 * The name a claim credits: the intent's, when it fixed one (a claim naming another is
 * malformed), else the claim's, which it must then carry. Left: why the claim is malformed.
 */
export const nameToCredit = (intent: ContributionIntent, claim: ContributionClaim): { readonly name: string } | { readonly error: string } => {
  if (intent.name !== null) {
    return claim.name === undefined || claim.name === intent.name ? { name: intent.name } : { error: `the intent credits ${intent.name}; the claim names ${claim.name}` }
  }
  return claim.name === undefined ? { error: "the intent named no name: the claim names the name to credit" } : { name: claim.name }
}

/**
 * The outcome of a claim, in this order: the intent exists (`intent_unknown`), the claim
 * comes by `claim_until` (`claim_late`), neither the intent nor the transaction credited
 * before (`tx_used`); then what the chain says: nothing (`tx_not_found`), not final yet
 * (wait: no leaf), failed (`tx_failed`); else the final transaction sends something to the
 * intent's address (`tx_not_found`), of the intent's asset (`asset_mismatch`), exactly the
 * intent's units (`amount_mismatch`), not before the intent was made (`tx_not_found`: such
 * a transfer is someone else's) and by `expires` (`intent_expired`). A refusal is final,
 * so it is decided only on a final transaction (docs/protocol.md 13.3).
 */
export interface ClaimFacts {
  readonly claim: ContributionClaim
  readonly intent: ContributionIntent | undefined
  /** The name to credit (nameToCredit); the intent's when undefined. */
  readonly name?: string | undefined
  /** The sup.credit leaf that credited this intent already, if any. */
  readonly intentCredited: number | undefined
  /** The sup.credit leaf that credited `<network>:<tx>` already, if any. */
  readonly txCredited: number | undefined
  readonly now: number
}

/**
 * The refusal a claim meets before the chain is asked (`intent_unknown`, `claim_late`,
 * `tx_used`), if any: then the chain is not asked, so an unreachable chain cannot turn
 * such a claim into a 503.
 */
export const refusalBeforeChain = (input: ClaimFacts): ClaimDecision | undefined => {
  const { claim, intent, now } = input
  if (intent === undefined) return refusal("intent_unknown", `no intent ${claim.intent_id} was made here`)
  if (now > intent.claimUntil) return refusal("claim_late", `the intent could be claimed until ${intent.claimUntil}`)
  if (input.intentCredited !== undefined) return refusal("tx_used", `the intent was credited by leaf ${input.intentCredited}`)
  if (input.txCredited !== undefined) return refusal("tx_used", `transaction ${claim.tx} was credited by leaf ${input.txCredited}`)
  return undefined
}

export const decideClaim = (input: ClaimFacts & {
  /** What the oracle reports for the claim's tx to the intent's address on its network. */
  readonly report: ChainReport
}): ClaimDecision => {
  const early = refusalBeforeChain(input)
  if (early !== undefined) return early
  const { claim, report } = input
  const intent = input.intent!
  if (report._tag === "Absent") return refusal("tx_not_found", `${intent.network} has no transaction ${claim.tx}: never mined, or reorganised away`)
  if (report._tag === "Pending") {
    return {
      _tag: "Wait",
      missing: report.missing,
      detail: report.missing === undefined
        ? `transaction ${claim.tx} is not confirmed yet; claim again once it is`
        : `transaction ${claim.tx} needs ${report.missing} more confirmation${report.missing === 1 ? "" : "s"}; claim again once it has them`
    }
  }
  if (report._tag === "Failed") return refusal("tx_failed", `transaction ${claim.tx} failed (reverted): it moved nothing`)
  const toAddress = report.transfers.filter((t) => t.network === intent.network && t.tx === claim.tx && t.address === intent.address)
  if (toAddress.length === 0) return refusal("tx_not_found", `transaction ${claim.tx} on ${intent.network} pays nothing to ${intent.address}`)
  const ofAsset = toAddress.filter((t) => t.asset === intent.asset)
  if (ofAsset.length === 0) return refusal("asset_mismatch", `transaction ${claim.tx} pays ${toAddress[0]!.asset}, the intent asks for ${intent.asset}`)
  const transfer = ofAsset.find((t) => t.units === intent.units)
  if (transfer === undefined) return refusal("amount_mismatch", `transaction ${claim.tx} pays ${ofAsset[0]!.units} units, the intent asks for exactly ${intent.units}`)
  if (transfer.time < intent.created) {
    return refusal("tx_not_found", `transaction ${claim.tx} (at ${transfer.time}) is older than the intent (made at ${intent.created})`)
  }
  if (transfer.time > intent.expires) return refusal("intent_expired", `transaction ${claim.tx} came at ${transfer.time}, after the intent expired at ${intent.expires}`)
  return { _tag: "Credit", name: input.name ?? intent.name!, amount: intent.amount, network: intent.network, tx: claim.tx }
}
