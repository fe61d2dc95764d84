// The chain oracle in memory, for tests: a test records the transfers "the chain" holds.

import { Effect, Layer } from "effect"
import type { ChainTransfer } from "../../domain/sup/contributions.js"
import { ChainOracle } from "../../ports/ChainOracle.js"
import type { StorageError } from "../../ports/StorageError.js"

/** The latest report per transfer (network, tx, address, asset), over a map; shared with the file adapter. */
export const transferKey = (t: Pick<ChainTransfer, "network" | "tx" | "address" | "asset">) =>
  JSON.stringify([t.network, t.tx, t.address, t.asset])

export const oracleOver = (transfers: Map<string, ChainTransfer>, refresh: Effect.Effect<void, StorageError> = Effect.void) =>
  ChainOracle.of({
    transfers: (network, tx, address) =>
      Effect.zipRight(refresh, Effect.sync(() =>
        [...transfers.values()].filter((t) => t.network === network && t.tx === tx && t.address === address)))
  })

export interface MemoryChain {
  readonly layer: Layer.Layer<ChainOracle>
  /** What the chain now says about a transfer (a later report of it replaces the earlier). */
  readonly record: (transfer: ChainTransfer) => Effect.Effect<void>
}

export const makeMemoryChain = (): MemoryChain => {
  const transfers = new Map<string, ChainTransfer>()
  return {
    layer: Layer.succeed(ChainOracle, oracleOver(transfers)),
    record: (transfer) => Effect.sync(() => { transfers.set(transferKey(transfer), transfer) })
  }
}
