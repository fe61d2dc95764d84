// The chain oracle in memory, for tests: a test records the transfers "the chain" holds.

import { Effect, Layer } from "effect"
import { reportOfTransfers } from "../../domain/sup/chainReport.js"
import type { ChainTransfer } from "../../domain/sup/contributions.js"
import { ChainOracle } from "../../ports/ChainOracle.js"
import type { StorageError } from "../../ports/StorageError.js"

/**
 * The latest report per transfer (network, tx, address, asset), indexed by what a lookup
 * asks (network, tx, address), so a lookup costs the same however many transfers were
 * reported; shared with the file adapter.
 */
export class TransferIndex {
  private readonly byLookup = new Map<string, Map<string, ChainTransfer>>()

  private static key(network: string, tx: string, address: string): string {
    return JSON.stringify([network, tx, address])
  }

  /** Records a report, replacing an earlier one of the same transfer. */
  set(transfer: ChainTransfer): void {
    const key = TransferIndex.key(transfer.network, transfer.tx, transfer.address)
    const assets = this.byLookup.get(key) ?? new Map<string, ChainTransfer>()
    assets.set(transfer.asset, transfer)
    this.byLookup.set(key, assets)
  }

  clear(): void {
    this.byLookup.clear()
  }

  lookup(network: string, tx: string, address: string): ReadonlyArray<ChainTransfer> {
    return [...(this.byLookup.get(TransferIndex.key(network, tx, address))?.values() ?? [])]
  }
}

export const oracleOver = (transfers: TransferIndex, refresh: Effect.Effect<void, StorageError> = Effect.void) =>
  ChainOracle.of({
    report: (network, tx, address) => Effect.zipRight(refresh, Effect.sync(() => reportOfTransfers(transfers.lookup(network, tx, address))))
  })

export interface MemoryChain {
  readonly layer: Layer.Layer<ChainOracle>
  /** What the chain now says about a transfer (a later report of it replaces the earlier). */
  readonly record: (transfer: ChainTransfer) => Effect.Effect<void>
}

export const makeMemoryChain = (): MemoryChain => {
  const transfers = new TransferIndex()
  return {
    layer: Layer.succeed(ChainOracle, oracleOver(transfers)),
    record: (transfer) => Effect.sync(() => transfers.set(transfer))
  }
}
