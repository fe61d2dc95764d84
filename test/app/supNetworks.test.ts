// AICS_SUP_NETWORKS (src/app/supNetworks.ts): a watcher's network as before, an EVM network with
// its RPC URLs, chain id and confirmations, and a one-line error for each mistake.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_RPC_TIMEOUT_MS, parseSupNetworks } from "../../src/app/supNetworks.js"

const TOKEN = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
// EIP-55 checksummed (USDC on Ethereum), and a mixed-case address with a valid checksum.
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
const evm = (over: Record<string, unknown> = {}) => ({
  network: "base", asset: `eip155:8453/erc20:${TOKEN}`, address: ADDRESS, units_per_sup: "1000000",
  chain_id: 8453, rpc: ["https://rpc-a.example/key", "http://127.0.0.1:8545"], confirmations: 12, ...over
})
const parse = (value: unknown) => parseSupNetworks(JSON.stringify(value))

describe("AICS_SUP_NETWORKS", () => {
  it("reads a watcher's network and an EVM network, lower-casing the EVM asset and address", () => {
    const parsed = Either.getOrThrow(parse([{ network: "ledger", asset: "usdc", address: "Addr", units_per_sup: 10_000 }, evm()]))
    expect(parsed.terms).toEqual([
      { network: "ledger", asset: "usdc", address: "Addr", unitsPerSup: 10_000n },
      { network: "base", asset: `eip155:8453/erc20:${TOKEN.toLowerCase()}`, address: ADDRESS.toLowerCase(), unitsPerSup: 1_000_000n }
    ])
    expect(parsed.evm).toEqual([{
      network: "base", chainId: 8453, rpcUrls: ["https://rpc-a.example/key", "http://127.0.0.1:8545"], confirmations: 12,
      timeoutMs: DEFAULT_RPC_TIMEOUT_MS, asset: `eip155:8453/erc20:${TOKEN.toLowerCase()}`, address: ADDRESS.toLowerCase()
    }])
    expect(Either.getOrThrow(parse([evm({ asset: "eip155:8453/slip44:60", rpc_timeout_ms: 800 })])).evm[0]).toMatchObject({ timeoutMs: 800, asset: "eip155:8453/slip44:60" })
    expect(Either.getOrThrow(parseSupNetworks(""))).toEqual({ terms: [], evm: [] })
  })

  const errors: ReadonlyArray<[unknown, RegExp]> = [
    [[evm({ chain_id: undefined })], /base needs chain_id, rpc and confirmations together/],
    [[evm({ rpc: [] })], /rpc of base must be an array of 1 to 8 http\(s\) URLs/],
    [[evm({ rpc: ["ftp://x"] })], /rpc of base must be an array/],
    [[evm({ confirmations: 0 })], /confirmations of base must be an integer from 1 to 10000/],
    [[evm({ chain_id: "8453" })], /chain_id of base must be a positive integer/],
    [[evm({ asset: "usdc" })], /asset of base must be CAIP-19 eip155:8453\/slip44:60 or eip155:8453\/erc20:<0x address>/],
    [[evm({ asset: "eip155:1/slip44:60" })], /asset of base names chain 1, chain_id is 8453/],
    [[evm({ address: "0x12" })], /address of base must be an EVM address/],
    [[evm({ address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" })], /address of base is mixed case but not its EIP-55 checksum/],
    [[evm({ asset: "eip155:8453/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4B" })], /token address is mixed case but not its EIP-55 checksum/],
    [[evm({ rpc_timeout_ms: 5 })], /rpc_timeout_ms of base must be an integer from 100 to 120000/],
    [[evm({ extra: 1 })], /nothing else/],
    [[{ network: "l", asset: "a", address: "b", units_per_sup: "10000", rpc_timeout_ms: 500 }], /rpc_timeout_ms of l needs rpc/]
  ]
  for (const [value, message] of errors) {
    it(`refuses ${JSON.stringify(value).slice(0, 90)} with one line`, () => {
      const parsed = parse(value)
      expect(Either.isLeft(parsed)).toBe(true)
      const why = Either.isLeft(parsed) ? parsed.left : ""
      expect(why).toMatch(message)
      expect(why).not.toContain("\n")
    })
  }
})
