// What the chain oracle says about one transaction to one address (ports/ChainOracle.ts),
// as the claim's decision reads it (contributions.ts decideClaim; docs/protocol.md 13.3,
// 13.4). Only a final report settles a claim with a leaf: a transaction still short of its
// network's confirmations can still be reorganised away or re-executed, so it answers
// "later" and writes nothing.

import type { ChainTransfer } from "./contributions.js"

export type ChainReport =
  /** The chain has no such transaction: never mined, or reorganised away. */
  | { readonly _tag: "Absent" }
  /**
   * Seen (in the mempool or in a block) but not final: `missing` confirmations still to
   * come, undefined when the oracle cannot count them (a watcher's ledger).
   */
  | { readonly _tag: "Pending"; readonly missing: number | undefined }
  /** Final, and it failed (reverted): it moved nothing. */
  | { readonly _tag: "Failed" }
  /** Final: its transfers to the address asked about, one per asset (none: it paid elsewhere). */
  | { readonly _tag: "Final"; readonly transfers: ReadonlyArray<ChainTransfer> }

/**
 * The report of a watcher's transfers (the ledger and memory adapters): none, absent; a
 * confirmed one, final with the confirmed ones; only unconfirmed ones, pending. A watcher
 * reports transfers only, so a failed transaction is absent there.
 */
export const reportOfTransfers = (transfers: ReadonlyArray<ChainTransfer>): ChainReport => {
  if (transfers.length === 0) return { _tag: "Absent" }
  const confirmed = transfers.filter((t) => t.confirmed)
  return confirmed.length > 0 ? { _tag: "Final", transfers: confirmed } : { _tag: "Pending", missing: undefined }
}
