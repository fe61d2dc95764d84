// CAIP-19 asset ids of EVM chains (CAIP-19 "Asset Type and Asset ID Specification", with the
// eip155 namespace of CAIP-2 and the slip44 / erc20 asset namespaces), as the chain oracle
// reports a transfer's asset and as AICS_SUP_NETWORKS and the card name it
// (docs/protocol.md 13.4):
//
//   eip155:<chain id>/slip44:60          the chain's native coin (ether's SLIP-44 number)
//   eip155:<chain id>/erc20:<address>    an ERC-20 token, its contract address in lower case
//
// Lower case is this service's form of an address: a configured address may be written in
// any case (EIP-55 mixed case included) and is compared as lower case.

import { keccak_256 } from "@noble/hashes/sha3.js"

export type EvmAsset =
  | { readonly _tag: "Native"; readonly chainId: number }
  | { readonly _tag: "Erc20"; readonly chainId: number; readonly token: string }

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const ASSET = /^eip155:([1-9][0-9]{0,15})\/(?:slip44:60|erc20:(0x[0-9a-fA-F]{40}))$/

export const isEvmAddress = (text: string): boolean => EVM_ADDRESS.test(text)

/**
 * EIP-55: an address written in one case carries no checksum; in mixed case, each letter is
 * upper case exactly where the matching nibble of keccak-256(lower-case hex) is 8 or more. A
 * mixed-case address that breaks it was mistyped. `address` is an EVM address (isEvmAddress).
 */
export const eip55Consistent = (address: string): boolean => {
  const hex = address.slice(2)
  const lower = hex.toLowerCase()
  if (hex === lower || hex === hex.toUpperCase()) return true
  const hash = keccak_256(new TextEncoder().encode(lower))
  for (let i = 0; i < hex.length; i++) {
    const c = hex[i]!
    if (c === lower[i] && c === c.toUpperCase()) continue // a digit
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f
    if ((nibble >= 8) !== (c !== lower[i])) return false
  }
  return true
}

export const nativeAsset = (chainId: number): string => `eip155:${chainId}/slip44:60`

export const erc20Asset = (chainId: number, token: string): string => `eip155:${chainId}/erc20:${token.toLowerCase()}`

/** The asset an id names, or undefined when it is not an EVM CAIP-19 id this service reads. */
export const parseEvmAsset = (id: string): EvmAsset | undefined => {
  const match = ASSET.exec(id)
  if (match === null) return undefined
  const chainId = Number(match[1])
  if (!Number.isSafeInteger(chainId)) return undefined
  return match[2] === undefined ? { _tag: "Native", chainId } : { _tag: "Erc20", chainId, token: match[2].toLowerCase() }
}

/** The id in this service's form (lower-case token address). */
export const formatEvmAsset = (asset: EvmAsset): string =>
  asset._tag === "Native" ? nativeAsset(asset.chainId) : erc20Asset(asset.chainId, asset.token)
