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

export type EvmAsset =
  | { readonly _tag: "Native"; readonly chainId: number }
  | { readonly _tag: "Erc20"; readonly chainId: number; readonly token: string }

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const ASSET = /^eip155:([1-9][0-9]{0,15})\/(?:slip44:60|erc20:(0x[0-9a-fA-F]{40}))$/

export const isEvmAddress = (text: string): boolean => EVM_ADDRESS.test(text)

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
