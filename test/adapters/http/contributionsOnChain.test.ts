// Contributions checked on a real local chain (issue 15; docs/protocol.md 13.3, 13.4): the
// service (dist/, a child process) asks ganache over JSON-RPC about real transactions, a
// native transfer and an ERC-20 transfer of the fixture token. Each claim ends in one
// policy-signed leaf, or, when the chain has not given final evidence (too few
// confirmations, the RPC down), in no leaf at all. The `aics contribute` commands run as a
// user runs them.

import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Address } from "viem"
import { jcs } from "../../../src/domain/envelope/jcs.js"
import { makeAgent } from "../../support/agents.js"
import { ok, runAics } from "../../support/aicsCli.js"
import { CHAIN_ID, startChain, type LocalChain } from "../../support/chain.js"
import { sendEntry } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const CONFIRMATIONS = 3
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" // EIP-55 mixed case: the service keeps it in lower case
const LOWER = ADDRESS.toLowerCase() as Address
const OTHER = "0x000000000000000000000000000000000000beef" as Address

let chain: LocalChain
let server: RunningServer
let dataDir: string
let cliDir: string
let vkey: string

const now = () => Math.floor(Date.now() / 1000)

const post = async (path: string, body: string) => {
  const response = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body })
  return { status: response.status, json: await response.json() as any, retryAfter: response.headers.get("retry-after") }
}

const size = async () => ((await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json()) as { tiles: { size: number } }).tiles.size

const intent = async (network: string, amount: number, name?: string) => {
  const made = await post("/v2/sup/contributions/intents", JSON.stringify({ network, amount, ...(name === undefined ? {} : { name }) }))
  expect(made.status, JSON.stringify(made.json)).toBe(201)
  return made.json as { intent_id: string; units: string; asset: string; address: string }
}

let created = now()
/** A claim of `tx` for the intent, as JCS bytes; each call a new `created` (a new claim). */
const claimBody = (intentId: string, tx: string, name = "alice") => Either.getOrThrow(jcs({ intent_id: intentId, tx, created: ++created, name }))

const entry = async (index: number) =>
  ((await (await fetch(`${server.baseUrl}/v2/entries/${index}`)).json()) as { envelope: { type: string; payload: Record<string, unknown> } }).envelope

/** The leaf a 201 claim answer names. */
const leafOf = async (answer: { status: number; json: any }) => {
  expect(answer.status, JSON.stringify(answer.json)).toBe(201)
  return { code: answer.json.code as string | null, envelope: await entry(answer.json.entry.index) }
}

const balance = async (name: string, expected: number) => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const account = (await (await fetch(`${server.baseUrl}/v2/sup/accounts/${name}`)).json()) as { balance: number }
    if (account.balance === expected || Date.now() > deadline) return account.balance
    await new Promise((r) => setTimeout(r, 100))
  }
}

beforeAll(async () => {
  chain = await startChain()
  dataDir = await tempDataDir()
  const networks = [
    { network: "devnet-eth", asset: `eip155:${CHAIN_ID}/slip44:60`, address: ADDRESS, units_per_sup: "1000000000000", chain_id: CHAIN_ID, rpc: [chain.url], confirmations: CONFIRMATIONS, rpc_timeout_ms: 1000 },
    { network: "devnet-tok", asset: chain.erc20, address: ADDRESS, units_per_sup: "1000000", chain_id: CHAIN_ID, rpc: [chain.url], confirmations: CONFIRMATIONS, rpc_timeout_ms: 1000 }
  ]
  server = await startServer({ dataDir, env: { AICS_SUP_NETWORKS: JSON.stringify(networks), AICS_SUP_ALLOW_HTTP: "true" } })
  const alice = makeAgent(`chain alice ${Date.now()}`)
  expect((await sendEntry(server, ORIGIN, "/v2/entries", alice, "claim", { name: "alice", x25519: alice.x25519 })).status).toBe(202)
  cliDir = await mkdtemp(join(tmpdir(), "aics-cli-chain-"))
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  await writeFile(join(cliDir, "log.vkey"), vkey)
})

afterAll(async () => {
  await server?.stop()
  await chain?.dispose()
  if (dataDir !== undefined) await removeDir(dataDir)
  if (cliDir !== undefined) await removeDir(cliDir)
})

describe("contributions on a real chain", () => {
  it("credits a native transfer once it has its confirmations: no leaf before, one sup.credit after", async () => {
    const made = await intent("devnet-eth", 2, "alice")
    expect(made).toMatchObject({ asset: `eip155:${CHAIN_ID}/slip44:60`, address: ADDRESS.toLowerCase() })
    const tx = await chain.sendNative(made.address as Address, BigInt(made.units))
    const before = await size()
    const early = await post("/v2/sup/contributions", claimBody(made.intent_id, tx))
    expect(early.status).toBe(409)
    expect(early.json).toMatchObject({ code: "tx_unconfirmed", confirmations_missing: CONFIRMATIONS - 1 })
    await chain.mine(1)
    expect((await post("/v2/sup/contributions", claimBody(made.intent_id, tx))).json.confirmations_missing).toBe(1)
    expect(await size()).toBe(before)
    await chain.mine(1)
    const body = claimBody(made.intent_id, tx)
    const { code, envelope } = await leafOf(await post("/v2/sup/contributions", body))
    expect(code).toBeNull()
    expect(envelope).toMatchObject({ type: "sup.credit", payload: { name: "alice", amount: 2, network: "devnet-eth", tx } })
    expect(await balance("alice", 2)).toBe(2)
    // The same claim again: settled, no leaf. The same transaction in a new claim: tx_used.
    const replay = await post("/v2/sup/contributions", body)
    expect(replay.status).toBe(409)
    expect(replay.json.code).toBe("claim_settled")
    expect((await leafOf(await post("/v2/sup/contributions", claimBody(made.intent_id, tx)))).code).toBe("tx_used")
    expect(await balance("alice", 2)).toBe(2)
  })

  it("aics contribute: opens an intent checked against the signed card, then claims an ERC-20 transfer and verifies the sup.credit leaf", async () => {
    const opened = ok(await runAics(["contribute", "devnet-tok", "3", "--json", "--server", server.baseUrl, "--vkey-file", "log.vkey"], { cwd: cliDir }))
    const made = JSON.parse(opened.out) as { intent_id: string; units: string; asset: string; address: string; name: string | null; card_checked: boolean }
    expect(made).toMatchObject({ asset: chain.erc20, address: ADDRESS.toLowerCase(), name: null, card_checked: true })
    const human = ok(await runAics(["contribute", "devnet-tok", "1", "--server", server.baseUrl, "--vkey-file", "log.vkey"], { cwd: cliDir }))
    expect(human.out).toMatch(/send exactly \d+ units of eip155:1337\/erc20:0x[0-9a-f]{40}\nto 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed\n/)
    const tx = await chain.sendToken(made.address as Address, BigInt(made.units))
    const early = await runAics(["contribute", "claim", made.intent_id, tx, "--name", "alice", "--server", server.baseUrl, "--vkey-file", "log.vkey"], { cwd: cliDir })
    expect(early.code).toBe(1)
    expect(early.err).toMatch(/not yet \(tx_unconfirmed, no leaf written\).*\[2 confirmations missing\]/)
    await chain.mine(CONFIRMATIONS - 1)
    const claimed = ok(await runAics(["contribute", "claim", made.intent_id, tx, "--name", "alice", "--server", server.baseUrl, "--vkey-file", "log.vkey"], { cwd: cliDir }))
    expect(claimed.out).toMatch(/^credited 3 SUP to alice: sup\.credit at entry \d+ \(receipt and leaf verified\)/)
    expect(await balance("alice", 5)).toBe(5)
  })

  it("refuses with a leaf each: wrong address, wrong asset, too little, a failed transaction", async () => {
    const plans: Record<string, (m: { units: string }) => Promise<string>> = {
      tx_not_found: (m) => chain.sendNative(OTHER, BigInt(m.units)),
      asset_mismatch: (m) => chain.sendNative(LOWER, BigInt(m.units)),
      amount_mismatch: (m) => chain.sendToken(LOWER, BigInt(m.units) - 1n),
      tx_failed: (m) => chain.sendToken(LOWER, BigInt(m.units), "empty")
    }
    for (const code of Object.keys(plans)) {
      const made = await intent(code === "tx_not_found" ? "devnet-eth" : "devnet-tok", 1, "alice")
      const tx = await plans[code]!(made)
      await chain.mine(CONFIRMATIONS - 1)
      const { code: got, envelope } = await leafOf(await post("/v2/sup/contributions", claimBody(made.intent_id, tx)))
      expect(got, code).toBe(code)
      expect(envelope.type).toBe("sup.refusal")
      expect(envelope.payload["code"]).toBe(code)
    }
    expect(await balance("alice", 5)).toBe(5)
  })

  it("a reorganisation before the confirmations: no credit", async () => {
    const made = await intent("devnet-eth", 4, "alice")
    const snapshot = await chain.snapshot()
    const tx = await chain.sendNative(made.address as Address, BigInt(made.units))
    expect((await post("/v2/sup/contributions", claimBody(made.intent_id, tx))).status).toBe(409)
    await chain.revert(snapshot)
    await chain.mine(CONFIRMATIONS)
    const { code } = await leafOf(await post("/v2/sup/contributions", claimBody(made.intent_id, tx)))
    expect(code).toBe("tx_not_found")
    expect(await balance("alice", 5)).toBe(5)
  })

  it("the RPC stopped: 503 with Retry-After and no leaf; restarted: the claim goes through", async () => {
    const done = await intent("devnet-eth", 1, "alice")
    const doneTx = await chain.sendNative(done.address as Address, BigInt(done.units))
    await chain.mine(CONFIRMATIONS - 1)
    expect((await leafOf(await post("/v2/sup/contributions", claimBody(done.intent_id, doneTx)))).code).toBeNull()
    const made = await intent("devnet-eth", 6, "alice")
    const tx = await chain.sendNative(made.address as Address, BigInt(made.units))
    await chain.mine(CONFIRMATIONS - 1)
    await chain.stop()
    // A claim the log decides without the chain (its transaction credited already) still gets its leaf.
    expect((await leafOf(await post("/v2/sup/contributions", claimBody(done.intent_id, doneTx)))).code).toBe("tx_used")
    const before = await size()
    const down = await post("/v2/sup/contributions", claimBody(made.intent_id, tx))
    expect(down.status).toBe(503)
    expect(down.json.code).toBe("chain_unavailable")
    expect(Number(down.retryAfter)).toBeGreaterThan(0)
    expect(JSON.stringify(down.json)).not.toContain(String(chain.port))
    expect(await size()).toBe(before)
    await chain.restart()
    const { code, envelope } = await leafOf(await post("/v2/sup/contributions", claimBody(made.intent_id, tx)))
    expect(code).toBeNull()
    expect(envelope.payload).toMatchObject({ amount: 6, tx })
    expect(await balance("alice", 12)).toBe(12)
  })
})
