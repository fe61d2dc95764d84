// The chain oracle of EVM chains over JSON-RPC (docs/protocol.md 13.4), with viem: for a
// claim's transaction, where it stands and what it paid the contribution address, native
// coin and ERC-20 alike, read from the chain at claim time.
//
// One claim's evidence comes from one RPC node, so its parts agree with each other: the
// chain id, the receipt, the head, the receipt's block (still the canonical block at that
// height: else a reorganisation is under way) and the transaction. The configured URLs are
// tried in order (viem's `fallback` transport would switch nodes between these requests,
// mixing two nodes' views of the head); a URL that fails, times out or answers
// inconsistently passes the claim to the next. A node that does not know the transaction
// passes it on too, so "absent" is the word of every node that answered. When no node
// gives an answer: ChainUnavailable, never "absent" or "failed" on missing evidence.
//
// What counts (docs/protocol.md 13.3): a transaction in a block with at least
// `confirmations` blocks counting its own (head - block + 1) up to the current head; before
// that it is pending, with the confirmations still missing. A final transaction that
// reverted is failed. Its transfers to the address: the transaction's own value when it is
// sent to the address (eip155:<chain>/slip44:60; value moved by a contract's internal call
// is not seen), and every ERC-20 Transfer log of the receipt whose `to` is the address
// (eip155:<chain>/erc20:<the log's contract>), summed per asset, in bigint smallest units.
//
// At start, every URL is asked its chain id: one that answers another id than the
// configuration stops the service (a one-line error); one that does not answer is logged
// and asked again with each claim. URLs may hold API keys, so errors and logs name a URL by
// its position only.

import { ConfigError, Effect, Layer } from "effect"
import {
  createPublicClient, erc20Abi, http, parseEventLogs, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hash, type PublicClient
} from "viem"
import type { EvmNetworkSettings } from "../../app/supNetworks.js"
import { erc20Asset, nativeAsset } from "../../domain/sup/caip19.js"
import type { ChainReport } from "../../domain/sup/chainReport.js"
import type { ChainTransfer } from "../../domain/sup/contributions.js"
import { ChainOracle, ChainUnavailable } from "../../ports/ChainOracle.js"

/** How long a client is told to wait after every node failed. */
export const CHAIN_RETRY_AFTER_SECONDS = 30

/** A transaction hash as JSON-RPC writes it; another spelling would be another `network:tx` key. */
const TX_HASH = /^0x[0-9a-f]{64}$/

/** A node's answer that contradicts itself or the configuration. */
class Inconsistent extends Error {}

const notFound = (e: unknown): boolean => e instanceof TransactionReceiptNotFoundError || e instanceof TransactionNotFoundError

const orNull = <A>(p: Promise<A>): Promise<A | null> => p.catch((e: unknown) => (notFound(e) ? null : Promise.reject(e)))

/** Why a node gave no answer, without its URL. */
const reason = (e: unknown): string =>
  e instanceof Inconsistent ? e.message : e instanceof Error ? (e.name === "TimeoutError" ? "timed out" : e.name) : "failed"

interface Node {
  readonly position: number
  readonly client: PublicClient
}

/** What one node says about `tx` to `address`. */
const askNode = async (client: PublicClient, terms: EvmNetworkSettings, tx: Hash, address: string): Promise<ChainReport> => {
  const chainId = await client.getChainId()
  if (chainId !== terms.chainId) throw new Inconsistent(`answers chain id ${chainId}, not ${terms.chainId}`)
  const receipt = await orNull(client.getTransactionReceipt({ hash: tx }))
  if (receipt === null) {
    // Known to the node but in no block yet (the mempool): pending, every confirmation to come.
    const pending = await orNull(client.getTransaction({ hash: tx }))
    return pending === null ? { _tag: "Absent" } : { _tag: "Pending", missing: terms.confirmations }
  }
  const head = await client.getBlockNumber({ cacheTime: 0 })
  if (head < receipt.blockNumber) throw new Inconsistent(`its head ${head} is below the transaction's block ${receipt.blockNumber}`)
  const block = await client.getBlock({ blockNumber: receipt.blockNumber })
  if (block.hash !== receipt.blockHash) throw new Inconsistent(`block ${receipt.blockNumber} is not the receipt's block: a reorganisation is under way`)
  const have = head - receipt.blockNumber + 1n
  if (have < BigInt(terms.confirmations)) return { _tag: "Pending", missing: Number(BigInt(terms.confirmations) - have) }
  if (receipt.status !== "success") return { _tag: "Failed" }

  const paid = new Map<string, bigint>()
  const add = (asset: string, units: bigint) => paid.set(asset, (paid.get(asset) ?? 0n) + units)
  const transaction = await client.getTransaction({ hash: tx })
  if (transaction.to?.toLowerCase() === address && transaction.value > 0n) add(nativeAsset(terms.chainId), transaction.value)
  const logs = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs.filter((l) => !l.removed) })
  for (const log of logs) {
    if (log.args.to.toLowerCase() === address && log.args.value > 0n) add(erc20Asset(terms.chainId, log.address), log.args.value)
  }
  const time = Number(block.timestamp)
  const transfers = [...paid].map(([asset, units]): ChainTransfer => ({
    network: terms.network, tx, address, asset, units: units.toString(), confirmed: true, time
  }))
  return { _tag: "Final", transfers }
}

const nodesOf = (terms: EvmNetworkSettings): ReadonlyArray<Node> =>
  terms.rpcUrls.map((url, i) => ({
    position: i + 1,
    client: createPublicClient({ transport: http(url, { timeout: terms.timeoutMs, retryCount: 0 }) }) as PublicClient
  }))

/** The oracle of `networks`, after checking each URL's chain id (a mismatch fails the start). */
export const makeEvmChainOracle = (networks: ReadonlyArray<EvmNetworkSettings>) =>
  Effect.gen(function*() {
    const byNetwork = new Map(networks.map((terms) => [terms.network, { terms, nodes: nodesOf(terms) }] as const))
    for (const { terms, nodes } of byNetwork.values()) {
      for (const node of nodes) {
        const answer = yield* Effect.promise(() => node.client.getChainId().then((id) => ({ id }), (e: unknown) => ({ error: reason(e) })))
        if ("error" in answer) {
          yield* Effect.logWarning(`AICS_SUP_NETWORKS ${terms.network}: rpc ${node.position} did not answer its chain id at start (${answer.error}); it is asked again with each claim`)
        } else if (answer.id !== terms.chainId) {
          return yield* Effect.fail(ConfigError.InvalidData(["AICS_SUP_NETWORKS"],
            `AICS_SUP_NETWORKS ${terms.network}: rpc ${node.position} is chain ${answer.id}, chain_id is ${terms.chainId}`))
        }
      }
    }

    const report = (network: string, tx: string, address: string) =>
      Effect.gen(function*() {
        const known = byNetwork.get(network)
        if (known === undefined) return yield* Effect.fail(new ChainUnavailable({ network, detail: "not a network of this oracle", retryAfter: CHAIN_RETRY_AFTER_SECONDS }))
        if (!TX_HASH.test(tx)) return { _tag: "Absent" } as ChainReport
        const failures: Array<string> = []
        let absent = false
        for (const node of known.nodes) {
          const answer = yield* Effect.promise(() =>
            askNode(node.client, known.terms, tx as Hash, address.toLowerCase()).then((r) => ({ report: r }), (e: unknown) => ({ error: reason(e) })))
          if ("report" in answer && answer.report._tag !== "Absent") return answer.report
          if ("report" in answer) absent = true
          else {
            failures.push(`rpc ${node.position}: ${answer.error}`)
            yield* Effect.logWarning(`${network}: rpc ${node.position} gave no answer about ${tx}: ${answer.error}`)
          }
        }
        if (absent) return { _tag: "Absent" } as ChainReport
        return yield* Effect.fail(new ChainUnavailable({ network, detail: `no RPC node answered (${failures.join("; ")})`, retryAfter: CHAIN_RETRY_AFTER_SECONDS }))
      })

    return ChainOracle.of({ report })
  })

export const EvmChainOracleLive = (networks: ReadonlyArray<EvmNetworkSettings>) => Layer.effect(ChainOracle, makeEvmChainOracle(networks))
