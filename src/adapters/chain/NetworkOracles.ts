// The service's chain oracle (docs/protocol.md 13.4): the networks of AICS_SUP_NETWORKS with
// `rpc` are checked on their EVM chain (EvmChainOracle.ts), the others in the ledger an
// operator's watcher appends to (AICS_SUP_LEDGER, adapters/fs/FsChainOracle.ts).

import { Effect, Layer } from "effect"
import type { ContributionSettings } from "../../app/ServiceConfig.js"
import { ChainOracle } from "../../ports/ChainOracle.js"
import { FsChainOracleLive } from "../fs/FsChainOracle.js"

// viem (with ox, abitype and @scure's wallets) is ~7 MiB of heap for life: loaded only when a
// network is checked on chain.

export const NetworkOraclesLive = (settings: Pick<ContributionSettings, "ledger" | "evm">) =>
  settings.evm.length === 0
    ? FsChainOracleLive(settings.ledger)
    : Layer.effect(ChainOracle, Effect.gen(function*() {
      const ledger = yield* Effect.provide(ChainOracle, FsChainOracleLive(settings.ledger))
      const { makeEvmChainOracle } = yield* Effect.promise(() => import("./EvmChainOracle.js"))
      const evm = yield* makeEvmChainOracle(settings.evm)
      const onChain = new Set(settings.evm.map((n) => n.network))
      return ChainOracle.of({
        report: (network, tx, address) => (onChain.has(network) ? evm : ledger).report(network, tx, address)
      })
    }))
