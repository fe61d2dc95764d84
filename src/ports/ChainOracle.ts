// The chain oracle (docs/spec/service.md "Contribution": "A claim is checked on chain"): what a
// chain says about one transaction. Adapters: a client of EVM chains over JSON-RPC
// (adapters/chain/EvmChainOracle.ts), a JSON-lines ledger an operator's watcher appends to
// (adapters/fs/FsChainOracle.ts), memory for tests; adapters/chain/NetworkOracles.ts sends
// each network to its own.
//
// Contract (test/ports/ChainOracle.contract.ts): `report(network, tx, address)` says where
// transaction `tx` on `network` stands (domain/sup/chainReport.ts): absent, pending (with
// the confirmations still missing when known), failed, or final with its transfers to
// `address`, one per asset, amounts exact in the asset's smallest units; a transaction
// first pending becomes final once confirmed; nothing of another network, transaction or
// address. When the chain cannot be asked or answers inconsistently the report fails with
// ChainUnavailable: missing evidence is never reported as an absent or failed transaction.
// The domain decides what a report means (domain/sup/contributions.ts decideClaim).

import type { Effect } from "effect"
import { Context, Data } from "effect"
import type { ChainReport } from "../domain/sup/chainReport.js"
import type { StorageError } from "./StorageError.js"

/** The chain could not be asked (every RPC URL failed or timed out) or contradicted itself. */
export class ChainUnavailable extends Data.TaggedError("ChainUnavailable")<{
  readonly network: string
  readonly detail: string
  /** Seconds after which asking again makes sense. */
  readonly retryAfter: number
}> {
  override get message(): string {
    return `${this.network}: ${this.detail}`
  }
}

export class ChainOracle extends Context.Tag("aics/ChainOracle")<ChainOracle, {
  readonly report: (network: string, tx: string, address: string) => Effect.Effect<ChainReport, StorageError | ChainUnavailable>
}>() {}
