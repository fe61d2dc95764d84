// The EVM chain oracle against a real local chain (ganache, test/support/chain.ts): the port's
// contract with real transactions, and what only a JSON-RPC client faces: the chain id
// checked at start, a reorganisation, a node that is down or on another chain.

import { it } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import type { Address, Hash } from "viem"
import { EvmChainOracleLive } from "../../../src/adapters/chain/EvmChainOracle.js"
import type { EvmNetworkSettings } from "../../../src/app/supNetworks.js"
import { ChainOracle } from "../../../src/ports/ChainOracle.js"
import { CHAIN_ID, startChain, type LocalChain } from "../../support/chain.js"
import { startRpcProxy } from "../../support/rpcProxy.js"
import { freePort } from "../../support/server.js"
import { chainOracleContract } from "../../ports/ChainOracle.contract.js"

let chain: LocalChain
beforeAll(async () => {
  chain = await startChain()
})
afterAll(async () => {
  await chain?.dispose()
})

const CONFIRMATIONS = 3
const ADDRESS = "0x00000000000000000000000000000000000c0ffe"
const OTHER = "0x000000000000000000000000000000000000beef"

const settings = (over: Partial<EvmNetworkSettings> = {}): EvmNetworkSettings => ({
  network: "devnet",
  chainId: CHAIN_ID,
  rpcUrls: [chain.url],
  confirmations: CONFIRMATIONS,
  timeoutMs: 2000,
  asset: chain.native,
  address: ADDRESS,
  ...over
})

chainOracleContract("EvmChainOracle (ganache)", {
  fresh: Effect.sync(() => ({
    layer: EvmChainOracleLive([settings()]),
    network: "devnet",
    address: ADDRESS,
    otherAddress: OTHER,
    native: chain.native,
    token: chain.erc20,
    unknownTx: `0x${"ab".repeat(32)}`,
    pay: ({ asset, to, units }) =>
      Effect.promise(() => (asset === "native" ? chain.sendNative(to as Address, units) : chain.sendToken(to as Address, units))),
    // Instamine put the transaction in the head block: one confirmation; mine the rest.
    finalize: () => Effect.promise(() => chain.mine(CONFIRMATIONS - 1)),
    payFailing: (to, units) => Effect.promise(() => chain.sendToken(to as Address, units, "empty"))
  }))
})

describe("EvmChainOracle beyond the contract", () => {
  it.scoped("counts the confirmations still missing against the current head", () =>
    Effect.gen(function*() {
      const oracle = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings()]))
      const tx = yield* Effect.promise(() => chain.sendNative(ADDRESS, 10n))
      expect(yield* oracle.report("devnet", tx, ADDRESS)).toEqual({ _tag: "Pending", missing: 2 })
      yield* Effect.promise(() => chain.mine(1))
      expect(yield* oracle.report("devnet", tx, ADDRESS)).toEqual({ _tag: "Pending", missing: 1 })
      yield* Effect.promise(() => chain.mine(1))
      expect((yield* oracle.report("devnet", tx, ADDRESS))._tag).toBe("Final")
    }))

  it.scoped("a transaction reorganised away is absent", () =>
    Effect.gen(function*() {
      const oracle = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings()]))
      const snapshot = yield* Effect.promise(() => chain.snapshot())
      const tx = yield* Effect.promise(() => chain.sendNative(ADDRESS, 11n))
      expect((yield* oracle.report("devnet", tx, ADDRESS))._tag).toBe("Pending")
      yield* Effect.promise(() => chain.revert(snapshot))
      yield* Effect.promise(() => chain.mine(CONFIRMATIONS))
      expect(yield* oracle.report("devnet", tx, ADDRESS)).toEqual({ _tag: "Absent" })
    }))

  it.scoped("a transaction id in another spelling than JSON-RPC's is absent (one transaction, one key)", () =>
    Effect.gen(function*() {
      const oracle = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings()]))
      const tx = yield* Effect.promise(() => chain.sendNative(ADDRESS, 12n))
      yield* Effect.promise(() => chain.mine(CONFIRMATIONS))
      expect((yield* oracle.report("devnet", tx, ADDRESS))._tag).toBe("Final")
      expect(yield* oracle.report("devnet", tx.toUpperCase().replace("0X", "0x"), ADDRESS)).toEqual({ _tag: "Absent" })
    }))

  it.scoped("falls back to the next RPC URL when the first is down; fails ChainUnavailable when none answers", () =>
    Effect.gen(function*() {
      const dead = `http://127.0.0.1:${yield* Effect.promise(() => freePort())}`
      const oracle = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings({ rpcUrls: [dead, chain.url] })]))
      const tx = yield* Effect.promise(() => chain.sendNative(ADDRESS, 13n))
      yield* Effect.promise(() => chain.mine(CONFIRMATIONS))
      expect((yield* oracle.report("devnet", tx, ADDRESS))._tag).toBe("Final")
      const alone = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings({ rpcUrls: [dead] })]))
      const failed = yield* Effect.either(alone.report("devnet", tx, ADDRESS))
      expect(Either.isLeft(failed) && failed.left._tag === "ChainUnavailable" && failed.left.retryAfter > 0).toBe(true)
      // The URL (it may hold an API key) is never in the error.
      expect(Either.isLeft(failed) && failed.left.detail.includes("127.0.0.1")).toBe(false)
    }))

  it.scoped("a node on another chain id stops the start with a one-line error", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.provide(ChainOracle, EvmChainOracleLive([settings({ chainId: 5, asset: "eip155:5/slip44:60" })])))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toMatch(/devnet: rpc 1 is chain 1337, chain_id is 5/)
    }))

  it.scoped("a token transfer that reverted is failed once final, pending before", () =>
    Effect.gen(function*() {
      const oracle = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings()]))
      const tx = yield* Effect.promise(() => chain.sendToken(ADDRESS, 40n, "empty"))
      expect((yield* oracle.report("devnet", tx as Hash, ADDRESS))._tag).toBe("Pending")
      yield* Effect.promise(() => chain.mine(CONFIRMATIONS))
      expect(yield* oracle.report("devnet", tx as Hash, ADDRESS)).toEqual({ _tag: "Failed" })
    }))

  it.scoped("an RPC node that answers inconsistently or not at all hands the claim to the next; alone, it is ChainUnavailable", () =>
    Effect.gen(function*() {
      const proxy = yield* Effect.acquireRelease(Effect.promise(() => startRpcProxy(chain.url)), (p) => Effect.promise(() => p.close()))
      const tx = yield* Effect.promise(() => chain.sendNative(ADDRESS, 14n))
      yield* Effect.promise(() => chain.mine(CONFIRMATIONS))
      const alone = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings({ rpcUrls: [proxy.url], timeoutMs: 300 })]))
      const backed = yield* Effect.provide(ChainOracle, EvmChainOracleLive([settings({ rpcUrls: [proxy.url, chain.url], timeoutMs: 300 })]))
      expect((yield* alone.report("devnet", tx, ADDRESS))._tag).toBe("Final")
      for (const [mode, why] of [["wrong_chain", /answers chain id 5, not 1337/], ["stale_block", /reorganisation is under way/], ["hang", /timed out/]] as const) {
        proxy.mode = mode
        const failed = yield* Effect.either(alone.report("devnet", tx, ADDRESS))
        expect(Either.isLeft(failed), mode).toBe(true)
        if (Either.isLeft(failed)) {
          expect(failed.left._tag).toBe("ChainUnavailable")
          expect(failed.left.detail).toMatch(why)
        }
        // With a second, honest node the claim gets its answer.
        expect((yield* backed.report("devnet", tx, ADDRESS))._tag, mode).toBe("Final")
      }
    }))
})
