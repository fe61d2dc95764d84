// AICS_SUP_NETWORKS (README "Configuration", docs/operations.md "Contributions of SUP"): a JSON
// array, one element per network contributions may be sent on:
//
//   {"network", "asset", "address", "units_per_sup"}            checked by the watcher's ledger
//   {... , "chain_id", "rpc", "confirmations"[, "rpc_timeout_ms"]} checked on an EVM chain itself
//
// An element with `rpc` is read by the EVM chain oracle (adapters/chain/EvmChainOracle.ts):
// its `asset` must be a CAIP-19 id of that chain (eip155:<chain_id>/slip44:60 or
// eip155:<chain_id>/erc20:<address>) and its `address` an EVM address; both are kept in
// lower case, the form the oracle reports and the card shows. An address written in mixed
// case must carry a valid EIP-55 checksum (a typo in it would send funds nowhere); all lower
// case skips that check. Every error is one line naming the network and the member.

import { Either } from "effect"
import { eip55Consistent, isEvmAddress, parseEvmAsset, formatEvmAsset } from "../domain/sup/caip19.js"
import { MIN_UNITS_PER_SUP, type NetworkTerms } from "../domain/sup/contributions.js"

/** A network checked on an EVM chain over JSON-RPC. */
export interface EvmNetworkSettings {
  readonly network: string
  readonly chainId: number
  /** Tried in order for each claim; the next on a failure, a timeout or an inconsistent answer. */
  readonly rpcUrls: ReadonlyArray<string>
  /** Blocks, the transaction's own included, before a transfer counts. */
  readonly confirmations: number
  /** How long one JSON-RPC request may take. */
  readonly timeoutMs: number
  /** CAIP-19, lower case. */
  readonly asset: string
  /** Lower case. */
  readonly address: string
}

export interface SupNetworks {
  readonly terms: ReadonlyArray<NetworkTerms>
  readonly evm: ReadonlyArray<EvmNetworkSettings>
}

const NETWORK = /^[a-z0-9-]{1,32}$/
const TOKEN = /^[\x21-\x7e]{1,200}$/
const BASE = ["address", "asset", "network", "units_per_sup"]
const CHAIN = ["chain_id", "confirmations", "rpc"]
const MAX_RPC_URLS = 8
export const DEFAULT_RPC_TIMEOUT_MS = 5000

const httpUrl = (text: unknown): boolean => {
  if (typeof text !== "string") return false
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** The networks of AICS_SUP_NETWORKS, or why the text is not a valid value (one line). */
export const parseSupNetworks = (text: string): Either.Either<SupNetworks, string> => {
  if (text.trim() === "") return Either.right({ terms: [], evm: [] })
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Either.left("is not JSON")
  }
  if (!Array.isArray(value)) return Either.left("is not a JSON array")
  const terms: Array<NetworkTerms> = []
  const evm: Array<EvmNetworkSettings> = []
  for (const item of value as Array<Record<string, unknown>>) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return Either.left("needs an object in each element")
    const keys = Object.keys(item)
    const { network, asset, address, units_per_sup: units } = item
    if (!BASE.every((k) => keys.includes(k)) || keys.some((k) => !BASE.includes(k) && !CHAIN.includes(k) && k !== "rpc_timeout_ms")) {
      return Either.left("needs network, asset, address and units_per_sup in each element (and chain_id, rpc, confirmations, rpc_timeout_ms for a chain checked over JSON-RPC), nothing else")
    }
    if (typeof network !== "string" || !NETWORK.test(network)) return Either.left(`network ${JSON.stringify(network)} is not 1 to 32 of a-z 0-9 -`)
    if (terms.some((t) => t.network === network)) return Either.left(`names network ${network} twice`)
    if (typeof asset !== "string" || !TOKEN.test(asset)) return Either.left(`asset of ${network} is not 1 to 200 printable characters without spaces`)
    if (typeof address !== "string" || !TOKEN.test(address)) return Either.left(`address of ${network} is not 1 to 200 printable characters without spaces`)
    const unitsText = typeof units === "number" && Number.isSafeInteger(units) ? String(units) : units
    if (typeof unitsText !== "string" || !/^[1-9][0-9]{0,77}$/.test(unitsText) || BigInt(unitsText) < MIN_UNITS_PER_SUP) {
      return Either.left(`units_per_sup of ${network} must be a decimal integer of at least ${MIN_UNITS_PER_SUP}`)
    }
    const chainKeys = CHAIN.filter((k) => keys.includes(k))
    if (chainKeys.length === 0 && keys.includes("rpc_timeout_ms")) return Either.left(`rpc_timeout_ms of ${network} needs rpc, chain_id and confirmations`)
    if (chainKeys.length === 0) {
      terms.push({ network, asset, address, unitsPerSup: BigInt(unitsText) })
      continue
    }
    if (chainKeys.length < CHAIN.length) return Either.left(`${network} needs chain_id, rpc and confirmations together (it has ${chainKeys.join(", ")})`)
    const { chain_id: chainId, rpc, confirmations, rpc_timeout_ms: timeout } = item
    if (typeof chainId !== "number" || !Number.isSafeInteger(chainId) || chainId < 1) return Either.left(`chain_id of ${network} must be a positive integer`)
    if (!Array.isArray(rpc) || rpc.length === 0 || rpc.length > MAX_RPC_URLS || !rpc.every(httpUrl)) {
      return Either.left(`rpc of ${network} must be an array of 1 to ${MAX_RPC_URLS} http(s) URLs`)
    }
    if (typeof confirmations !== "number" || !Number.isSafeInteger(confirmations) || confirmations < 1 || confirmations > 10_000) {
      return Either.left(`confirmations of ${network} must be an integer from 1 to 10000`)
    }
    const timeoutMs = timeout ?? DEFAULT_RPC_TIMEOUT_MS
    if (typeof timeoutMs !== "number" || !Number.isSafeInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 120_000) {
      return Either.left(`rpc_timeout_ms of ${network} must be an integer from 100 to 120000`)
    }
    const parsed = parseEvmAsset(asset)
    if (parsed === undefined) return Either.left(`asset of ${network} must be CAIP-19 eip155:${chainId}/slip44:60 or eip155:${chainId}/erc20:<0x address>, got ${asset}`)
    if (parsed.chainId !== chainId) return Either.left(`asset of ${network} names chain ${parsed.chainId}, chain_id is ${chainId}`)
    if (!isEvmAddress(address)) return Either.left(`address of ${network} must be an EVM address (0x and 40 hex digits)`)
    if (!eip55Consistent(address)) return Either.left(`address of ${network} is mixed case but not its EIP-55 checksum (write it all in lower case, or fix it)`)
    if (parsed._tag === "Erc20" && !eip55Consistent(asset.slice(asset.indexOf(":0x") + 1))) {
      return Either.left(`asset of ${network}: the token address is mixed case but not its EIP-55 checksum (write it all in lower case, or fix it)`)
    }
    const lower = { asset: formatEvmAsset(parsed), address: address.toLowerCase() }
    terms.push({ network, ...lower, unitsPerSup: BigInt(unitsText) })
    evm.push({ network, chainId, rpcUrls: rpc as Array<string>, confirmations, timeoutMs, ...lower })
  }
  return Either.right({ terms, evm })
}
