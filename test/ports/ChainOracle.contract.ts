// The ChainOracle contract (src/ports/ChainOracle.ts), run against every adapter: the memory
// chain, the watcher's ledger file and an EVM chain over JSON-RPC (ganache). Each adapter
// brings a driver that makes transactions happen on its "chain": for the ledger and the
// memory chain, the reports a watcher would write; for the EVM chain, real transactions.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import type { ChainReport } from "../../src/domain/sup/chainReport.js"
import type { ChainTransfer } from "../../src/domain/sup/contributions.js"
import { ChainOracle } from "../../src/ports/ChainOracle.js"

export interface ChainDriver {
  readonly layer: Layer.Layer<ChainOracle, unknown>
  readonly network: string
  /** The address asked about, in the form the oracle reports it. */
  readonly address: string
  readonly otherAddress: string
  /** Asset ids as the oracle reports them. */
  readonly native: string
  readonly token: string
  /** A transfer the chain has seen but that is not final yet; its transaction id. */
  readonly pay: (p: { readonly asset: "native" | "token"; readonly to: string; readonly units: bigint }) => Effect.Effect<string, unknown>
  /** Gives the transaction its confirmations: final from now on. */
  readonly finalize: (tx: string) => Effect.Effect<void, unknown>
  /** A final transaction that failed (a token transfer beyond the sender's balance). */
  readonly payFailing: (to: string, units: bigint) => Effect.Effect<string, unknown>
  /** A transaction id the chain never saw. */
  readonly unknownTx: string
}

export interface ChainOracleUnderTest {
  readonly fresh: Effect.Effect<ChainDriver, unknown, Scope.Scope>
}

/** A watcher's report of a transfer (the ledger and memory drivers). */
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

/**
 * A driver over a watcher's reports: `pay` reports the transfer unconfirmed, `finalize`
 * again confirmed; a failed transaction moved nothing, so a watcher reports nothing.
 */
export const watcherDriver = (
  layer: Layer.Layer<ChainOracle, unknown>,
  record: (t: ChainTransfer) => Effect.Effect<void, unknown>
): ChainDriver => {
  const sent = new Map<string, ChainTransfer>()
  let next = 0
  return {
    layer, network: "testnet", address: "addr-1", otherAddress: "addr-2", native: "coin", token: "usdc", unknownTx: "0xnever",
    pay: ({ asset, to, units }) =>
      Effect.suspend(() => {
        const t = transfer({ tx: `0x${(++next).toString(16)}`, address: to, asset: asset === "native" ? "coin" : "usdc", units: units.toString(), confirmed: false })
        sent.set(t.tx, t)
        return Effect.as(record(t), t.tx)
      }),
    finalize: (tx) => Effect.suspend(() => record({ ...sent.get(tx)!, confirmed: true })),
    payFailing: () => Effect.sync(() => `0x${(++next).toString(16)}`)
  }
}

const finalTransfers = (report: ChainReport): ReadonlyArray<ChainTransfer> => {
  expect(report._tag).toBe("Final")
  return report._tag === "Final" ? report.transfers : []
}

export const chainOracleContract = (name: string, adapter: ChainOracleUnderTest): void => {
  describe(`ChainOracle contract: ${name}`, () => {
    it.scoped("a transaction the chain never saw is absent", () =>
      Effect.gen(function*() {
        const chain = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, chain.layer)
        expect(yield* oracle.report(chain.network, chain.unknownTx, chain.address)).toEqual({ _tag: "Absent" })
      }))

    it.scoped("a native transfer is pending until final, then reported with its exact units", () =>
      Effect.gen(function*() {
        const chain = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, chain.layer)
        const tx = yield* chain.pay({ asset: "native", to: chain.address, units: 5_000_123n })
        const pending = yield* oracle.report(chain.network, tx, chain.address)
        expect(pending._tag).toBe("Pending")
        if (pending._tag === "Pending" && pending.missing !== undefined) expect(pending.missing).toBeGreaterThan(0)
        yield* chain.finalize(tx)
        const [paid, ...more] = finalTransfers(yield* oracle.report(chain.network, tx, chain.address))
        expect(more).toEqual([])
        expect(paid).toMatchObject({ network: chain.network, tx, address: chain.address, asset: chain.native, units: "5000123", confirmed: true })
        expect(Number.isSafeInteger(paid!.time)).toBe(true)
      }))

    it.scoped("a token transfer keeps units beyond 2^53 exactly", () =>
      Effect.gen(function*() {
        const chain = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, chain.layer)
        const tx = yield* chain.pay({ asset: "token", to: chain.address, units: 1_000_000_000_000_000_000_042n })
        yield* chain.finalize(tx)
        const transfers = finalTransfers(yield* oracle.report(chain.network, tx, chain.address))
        expect(transfers.map((t) => [t.asset, t.units])).toEqual([[chain.token, "1000000000000000000042"]])
      }))

    it.scoped("a transaction paying another address reports nothing paid to this one", () =>
      Effect.gen(function*() {
        const chain = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, chain.layer)
        const tx = yield* chain.pay({ asset: "native", to: chain.otherAddress, units: 7n })
        yield* chain.finalize(tx)
        const report = yield* oracle.report(chain.network, tx, chain.address)
        expect(report._tag === "Absent" || (report._tag === "Final" && report.transfers.length === 0)).toBe(true)
        expect(finalTransfers(yield* oracle.report(chain.network, tx, chain.otherAddress)).map((t) => t.units)).toEqual(["7"])
      }))

    it.scoped("a failed transaction reports no transfer", () =>
      Effect.gen(function*() {
        const chain = yield* adapter.fresh
        const oracle = yield* Effect.provide(ChainOracle, chain.layer)
        const tx = yield* chain.payFailing(chain.address, 5n)
        yield* chain.finalize(tx)
        const report = yield* oracle.report(chain.network, tx, chain.address)
        expect(["Failed", "Absent"]).toContain(report._tag)
      }))
  })
}
