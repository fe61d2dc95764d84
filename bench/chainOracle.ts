// bench/chainOracle: what checking a claim on an EVM chain costs (docs/protocol.md 13.4): the
// latency of EvmChainOracle.report against a local ganache node, per kind of answer, the
// JSON-RPC requests each takes, and the cost of a first RPC URL that is down.
//
//   npm run build && node dist/bench/chainOracle.js [rounds]     (default 300 per row)
//
// Run from the repository root (it starts node_modules/ganache). Loopback only: a real
// RPC provider adds its network round trip to each request counted here.

import { performance } from "node:perf_hooks"
import { Effect, Logger, LogLevel } from "effect"
import type { Address, Hash } from "viem"
import { makeEvmChainOracle } from "../src/adapters/chain/EvmChainOracle.js"
import type { EvmNetworkSettings } from "../src/app/supNetworks.js"
import { CHAIN_ID, startChain } from "../test/support/chain.js"
import { startRpcProxy } from "../test/support/rpcProxy.js"
import { freePort } from "../test/support/server.js"

const rounds = Number(process.argv[2] ?? 300)
const ADDRESS = "0x00000000000000000000000000000000000c0ffe" as Address
const CONFIRMATIONS = 3

/** Runs quietly: the fallback row would log a warning per report about the URL that is down. */
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect.pipe(Logger.withMinimumLogLevel(LogLevel.None)))

const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

const main = async () => {
  const chain = await startChain()
  const proxy = await startRpcProxy(chain.url)
  try {
    const settings = (rpcUrls: ReadonlyArray<string>): EvmNetworkSettings => ({
      network: "devnet", chainId: CHAIN_ID, rpcUrls, confirmations: CONFIRMATIONS, timeoutMs: 2000, asset: chain.native, address: ADDRESS
    })
    const direct = await run(makeEvmChainOracle([settings([chain.url])]))
    const counted = await run(makeEvmChainOracle([settings([proxy.url])]))
    const dead = `http://127.0.0.1:${await freePort()}`
    const fallback = await run(makeEvmChainOracle([settings([dead, chain.url])]))

    const native = await chain.sendNative(ADDRESS, 1_000_000_000_000n)
    const token = await chain.sendToken(ADDRESS, 5_000_000n)
    await chain.mine(CONFIRMATIONS)
    const pending = await chain.sendNative(ADDRESS, 7n)
    const absent = `0x${"ab".repeat(32)}` as Hash

    const rows: Array<[string, typeof direct, string, string]> = [
      ["final, native transfer", direct, native, "Final"],
      ["final, ERC-20 transfer", direct, token, "Final"],
      ["pending (1 of 3 confirmations)", direct, pending, "Pending"],
      ["absent", direct, absent, "Absent"],
      ["final, first URL down (refused)", fallback, native, "Final"]
    ]
    console.log(`EvmChainOracle.report on local ganache, ${rounds} rounds per row (machine shared with other work)`)
    console.log("| answer | requests | p50 ms | p95 ms | max ms |")
    console.log("| --- | ---: | ---: | ---: | ---: |")
    for (const [label, oracle, tx, expected] of rows) {
      const before = proxy.requests()
      const viaProxy = await run(counted.report("devnet", tx, ADDRESS))
      const requests = proxy.requests() - before
      if (viaProxy._tag !== expected) throw new Error(`${label}: ${viaProxy._tag}, expected ${expected}`)
      for (let i = 0; i < 20; i++) await run(oracle.report("devnet", tx, ADDRESS))
      const times: Array<number> = []
      for (let i = 0; i < rounds; i++) {
        const start = performance.now()
        const report = await run(oracle.report("devnet", tx, ADDRESS))
        times.push(performance.now() - start)
        if (report._tag !== expected) throw new Error(`${label}: ${report._tag}, expected ${expected}`)
      }
      times.sort((a, b) => a - b)
      console.log(`| ${label} | ${label.includes("first URL down") ? `${requests} + 1 refused` : requests} | ${quantile(times, 0.5).toFixed(2)} | ${quantile(times, 0.95).toFixed(2)} | ${times[times.length - 1]!.toFixed(2)} |`)
    }
  } finally {
    await proxy.close()
    await chain.dispose()
  }
}

await main()
