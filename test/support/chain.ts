// A real local EVM chain for the contribution tests (docs/protocol.md 13.4): ganache 7 in a
// child process on a free loopback port, polled until it answers eth_chainId, with the
// minimal ERC-20 of test/fixtures/chain/token.json deployed from its bytecode. Ganache
// mines each transaction in a block of its own (instamine), so a test controls the
// confirmations by mining empty blocks (evm_mine), and reorganises the chain with
// evm_snapshot / evm_revert. `stop` kills the process; `restart` starts it again on the
// same port from the same database folder (the RPC going away and coming back).

import { spawn, type ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import {
  createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hash, type PublicClient, type WalletClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { freePort } from "./server.js"

export const CHAIN_ID = 1337
/** Ganache's deterministic first account (--wallet.deterministic). */
const FUNDED_KEY = "0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d" as const

// Paths from the repository root (the tests' and benchmarks' working folder), so the compiled
// copy under dist/ (bench/chainOracle.ts) finds them too.
const token = JSON.parse(readFileSync(resolve("test/fixtures/chain/token.json"), "utf8")) as { bytecode: `0x${string}` }

export interface LocalChain {
  readonly url: string
  readonly port: number
  readonly public: PublicClient
  readonly wallet: WalletClient
  readonly sender: Address
  /** The deployed token's address (lower case). */
  readonly token: Address
  readonly native: string
  readonly erc20: string
  /** Sends wei to `to`; the transaction hash once ganache mined it. */
  readonly sendNative: (to: Address, wei: bigint) => Promise<Hash>
  /** Transfers token units to `to` (a failing one when `units` exceeds the sender's balance). */
  readonly sendToken: (to: Address, units: bigint, from?: "funded" | "empty") => Promise<Hash>
  readonly mine: (blocks: number) => Promise<void>
  readonly snapshot: () => Promise<string>
  readonly revert: (id: string) => Promise<void>
  readonly stop: () => Promise<void>
  readonly restart: () => Promise<void>
  /** Kills the chain for good and removes its database folder. */
  readonly dispose: () => Promise<void>
}

const waitUntilAnswers = async (url: string, child: ChildProcess, output: () => string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`ganache exited: ${output()}`)
    const answered = await fetch(url, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] })
    }).then((r) => r.ok, () => false)
    if (answered) return
    if (Date.now() > deadline) throw new Error(`ganache did not answer within ${timeoutMs} ms: ${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const spawnGanache = async (port: number, dbPath: string) => {
  const child = spawn(process.execPath, [
    "node_modules/ganache/dist/node/cli.js", "--host", "127.0.0.1", "--port", String(port), "--chain.chainId", String(CHAIN_ID),
    "--wallet.deterministic", "--database.dbPath", dbPath, "--logging.quiet"
  ], { stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.on("data", (c: Buffer) => { output += c.toString() })
  child.stderr!.on("data", (c: Buffer) => { output += c.toString() })
  await waitUntilAnswers(`http://127.0.0.1:${port}`, child, () => output)
  return child
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

export const startChain = async (): Promise<LocalChain> => {
  const port = await freePort()
  const dbPath = await mkdtemp(join(tmpdir(), "aics-ganache-"))
  let child = await spawnGanache(port, dbPath)
  const url = `http://127.0.0.1:${port}`
  const account = privateKeyToAccount(FUNDED_KEY)
  const publicClient = createPublicClient({ transport: http(url, { retryCount: 0 }) })
  const chain = { id: CHAIN_ID, name: "ganache", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [url] } } }
  const wallet = createWalletClient({ account, chain, transport: http(url, { retryCount: 0 }) })
  const rpc = (method: string, params: Array<unknown> = []) =>
    publicClient.request({ method: method as never, params: params as never }) as Promise<unknown>

  const mined = async (hash: Hash) => {
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 })
    return hash
  }
  const deployed = await mined(await wallet.deployContract({ abi: erc20Abi, bytecode: token.bytecode, account, chain }))
  const tokenAddress = (await publicClient.getTransactionReceipt({ hash: deployed })).contractAddress!.toLowerCase() as Address
  // An account with no token units, for transfers that fail.
  const empty = privateKeyToAccount("0x0123456789012345678901234567890123456789012345678901234567890123")
  await mined(await wallet.sendTransaction({ account, chain, to: empty.address, value: 10n ** 18n }))

  return {
    url, port,
    public: publicClient as PublicClient,
    wallet,
    sender: account.address,
    token: tokenAddress,
    native: `eip155:${CHAIN_ID}/slip44:60`,
    erc20: `eip155:${CHAIN_ID}/erc20:${tokenAddress}`,
    sendNative: async (to, wei) => mined(await wallet.sendTransaction({ account, chain, to, value: wei })),
    sendToken: async (to, units, from = "funded") =>
      // An explicit gas limit: without one, viem estimates gas, and the estimate of a
      // transfer that reverts fails before anything is sent.
      mined(await wallet.writeContract({
        account: from === "funded" ? account : empty, chain, address: tokenAddress, abi: erc20Abi, functionName: "transfer", args: [to, units], gas: 100_000n
      })),
    mine: async (blocks) => {
      for (let i = 0; i < blocks; i++) await rpc("evm_mine")
    },
    snapshot: async () => String(await rpc("evm_snapshot")),
    revert: async (id) => {
      if (await rpc("evm_revert", [id]) !== true) throw new Error(`evm_revert ${id} failed`)
    },
    stop: async () => {
      await killed(child)
    },
    restart: async () => {
      await killed(child)
      child = await spawnGanache(port, dbPath)
    },
    dispose: async () => {
      await killed(child)
      await rm(dbPath, { recursive: true, force: true })
    }
  }
}

