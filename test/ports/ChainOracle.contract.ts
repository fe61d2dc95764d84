// The ChainOracle contract (src/ports/ChainOracle.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import type { ChainTransfer } from "../../src/domain/sup/contributions.js"
import { ChainOracle } from "../../src/ports/ChainOracle.js"

export interface ChainOracleUnderTest {
  /** A new oracle over an empty chain, and how to make the chain report a transfer. */
  readonly fresh: Effect.Effect<{
    readonly layer: Layer.Layer<ChainOracle, unknown>
    readonly record: (transfer: ChainTransfer) => Effect.Effect<void, unknown>
  }, unknown, Scope.Scope>
}

export const transfer = (over: Partial<ChainTransfer> = {}): ChainTransfer => ({
  network: "testnet",
  tx: "0xaaa",
  address: "addr-1",
  asset: "usdc",
  units: "5000123",
  confirmed: true,
  time: 1_767_225_600,
  ...over
})

export const chainOracleContract = (name: string, adapter: ChainOracleUnderTest): void => {
  describe(`ChainOracle contract: ${name}`, () => {
    it.scoped("knows nothing of an empty chain", () =>
      Effect.gen(function*() {
        const { layer } = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, layer)
        expect(yield* oracle.transfers("testnet", "0xaaa", "addr-1")).toEqual([])
      }))

    it.scoped("reports the transfers of one transaction to one address, and only those", () =>
      Effect.gen(function*() {
        const { layer, record } = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, layer)
        yield* record(transfer())
        yield* record(transfer({ asset: "dai", units: "7" }))
        yield* record(transfer({ address: "addr-2" }))
        yield* record(transfer({ tx: "0xbbb" }))
        yield* record(transfer({ network: "othernet" }))
        const found = yield* oracle.transfers("testnet", "0xaaa", "addr-1")
        expect([...found].sort((a, b) => a.asset.localeCompare(b.asset))).toEqual([transfer({ asset: "dai", units: "7" }), transfer()])
        expect(yield* oracle.transfers("testnet", "0xaaa", "addr-3")).toEqual([])
        expect(yield* oracle.transfers("othernet", "0xaaa", "addr-1")).toEqual([transfer({ network: "othernet" })])
      }))

    it.scoped("a later report of a transfer replaces the earlier one (unconfirmed, then confirmed)", () =>
      Effect.gen(function*() {
        const { layer, record } = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, layer)
        yield* record(transfer({ confirmed: false, time: 100 }))
        expect(yield* oracle.transfers("testnet", "0xaaa", "addr-1")).toEqual([transfer({ confirmed: false, time: 100 })])
        yield* record(transfer({ confirmed: true, time: 160 }))
        expect(yield* oracle.transfers("testnet", "0xaaa", "addr-1")).toEqual([transfer({ confirmed: true, time: 160 })])
      }))

    it.scoped("keeps units beyond 2^53 exactly", () =>
      Effect.gen(function*() {
        const { layer, record } = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, layer)
        const big = transfer({ units: "1000000000000000000042" })
        yield* record(big)
        expect(yield* oracle.transfers("testnet", "0xaaa", "addr-1")).toEqual([big])
      }))
  })
}
