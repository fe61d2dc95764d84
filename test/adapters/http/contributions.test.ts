// Contributions through the real server (docs/protocol.md section 13): intents (201, never
// a leaf; 422 unknown network, bad amount, unclaimed name; 403 closed or not HTTPS) and
// claims, checked against the chain ledger file a watcher appends to, each outcome one
// policy-signed leaf: sup.credit, or sup.refusal with every code of the closed list. An
// intent survives a restart.

import { appendFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { jcs } from "../../../src/domain/envelope/jcs.js"
import { makeAgent, type TestAgent } from "../../support/agents.js"
import { sendEntry } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const NETWORKS = JSON.stringify([{ network: "testnet", asset: "usdc", address: "addr-test", units_per_sup: "1000000" }])
const servers: Array<RunningServer> = []
const dirs: Array<string> = []

const start = async (env: Record<string, string>, dataDir?: string) => {
  const dir = dataDir ?? await tempDataDir()
  if (dataDir === undefined) dirs.push(dir)
  const server = await startServer({ dataDir: dir, env: { AICS_SUP_LEDGER: join(dir, "ledger.jsonl"), ...env } })
  servers.push(server)
  return server
}

afterAll(async () => {
  for (const s of servers) await s.stop()
  for (const d of dirs) await removeDir(d)
})

const now = () => Math.floor(Date.now() / 1000)

const postJson = async (server: RunningServer, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
  return { status: response.status, json: await response.json() as any, type: response.headers.get("content-type") }
}

const claimName = async (server: RunningServer, agent: TestAgent, name: string) => {
  const sent = await sendEntry(server, ORIGIN, "/v2/entries", agent, "claim", { name, x25519: agent.x25519 })
  expect(sent.status).toBe(202)
}

const claimBody = (claim: { intent_id: string; tx: string; created: number; name?: string }) => Either.getOrThrow(jcs(claim))

/** The watcher's report of a transfer, appended to the ledger file. */
const chainSays = (server: RunningServer, t: { tx: string; units: string; asset?: string; address?: string; confirmed?: boolean; time?: number }) =>
  appendFile(join(server.dataDir, "ledger.jsonl"), JSON.stringify({
    network: "testnet", tx: t.tx, address: t.address ?? "addr-test", asset: t.asset ?? "usdc", units: t.units,
    confirmed: t.confirmed ?? true, time: t.time ?? now()
  }) + "\n")

const entryPayload = async (server: RunningServer, index: number) => {
  const bundle = await (await fetch(`${server.baseUrl}/v2/entries/${index}`)).json() as { envelope: { type: string; kid: string; payload: Record<string, unknown> } }
  return bundle.envelope
}

const committed = async (server: RunningServer) =>
  (await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { tiles: { size: number }; policy_kid: string })

describe("contributions on an open service", () => {
  let server: RunningServer
  let policyKid: string
  const alice = makeAgent(`contrib alice ${Date.now()}`)

  beforeAll(async () => {
    server = await start({ AICS_SUP_NETWORKS: NETWORKS, AICS_SUP_ALLOW_HTTP: "true" })
    await claimName(server, alice, "alice")
    policyKid = (await committed(server)).policy_kid
  })

  const intent = async (amount = 5) => {
    const made = await postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount, name: "alice" }))
    expect(made.status).toBe(201)
    return made.json as { intent_id: string; units: string; expires: number; claim_until: number; asset: string; address: string; amount: number }
  }

  const claim = async (intentId: string, tx: string) => {
    const body = claimBody({ intent_id: intentId, tx, created: now() })
    const answer = await postJson(server, "/v2/sup/contributions", body)
    expect(answer.status).toBe(201)
    expect(answer.json.claim_hash).toBe(encodeU64(nodeCrypto.sha256(utf8(body))))
    const envelope = await entryPayload(server, answer.json.entry.index)
    expect(envelope.kid).toBe(policyKid)
    return { answer: answer.json, envelope }
  }

  it("answers an intent with exact units, writing no leaf", async () => {
    const before = (await committed(server)).tiles.size
    const made = await intent(5)
    expect(made).toMatchObject({ network: "testnet", asset: "usdc", address: "addr-test", amount: 5, name: "alice" })
    expect(BigInt(made.units) > 5_000_000n && BigInt(made.units) < 5_010_000n).toBe(true)
    expect(made.claim_until).toBeGreaterThan(made.expires)
    expect((await committed(server)).tiles.size).toBe(before)
    // Two intents of one amount never ask for the same units.
    expect((await intent(5)).units).not.toBe(made.units)
  })

  it("takes the intent as the description gives it, {network, amount}: the claim names the name", async () => {
    const made = await postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 3 }))
    expect(made.status).toBe(201)
    expect(made.json.name).toBeNull()
    await chainSays(server, { tx: "0xunnamed", units: made.json.units })
    const before = (await committed(server)).tiles.size
    // A claim of an unnamed intent without a name, or naming an unclaimed name: 422, no leaf.
    for (const [body, code] of [
      [{ intent_id: made.json.intent_id, tx: "0xunnamed", created: now() }, "claim_invalid"],
      [{ intent_id: made.json.intent_id, tx: "0xunnamed", created: now(), name: "nobody-here" }, "name_unclaimed"]
    ] as const) {
      const answer = await postJson(server, "/v2/sup/contributions", claimBody(body))
      expect(answer.status).toBe(422)
      expect(answer.json.code).toBe(code)
    }
    expect((await committed(server)).tiles.size).toBe(before)
    const answer = await postJson(server, "/v2/sup/contributions", claimBody({ intent_id: made.json.intent_id, tx: "0xunnamed", created: now(), name: "alice" }))
    expect(answer.status).toBe(201)
    expect(answer.json.code).toBeNull()
    expect((await entryPayload(server, answer.json.entry.index)).payload).toMatchObject({ name: "alice", amount: 3, tx: "0xunnamed" })
  })

  it("refuses bad intents with a 422 problem", async () => {
    for (const [body, code] of [
      [{ network: "mainnet", amount: 5, name: "alice" }, "network_unknown"],
      [{ network: "testnet", amount: 0, name: "alice" }, "intent_invalid"],
      [{ network: "testnet", amount: 1.5, name: "alice" }, "intent_invalid"],
      [{ network: "testnet", amount: "5", name: "alice" }, "intent_invalid"],
      [{ network: "testnet", amount: 5, name: "nobody-here" }, "name_unclaimed"],
      [{ network: "testnet", amount: 5, name: "alice", extra: 1 }, "intent_invalid"]
    ] as const) {
      const answer = await postJson(server, "/v2/sup/contributions/intents", JSON.stringify(body))
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(answer.json.code).toBe(code)
      expect(answer.type).toContain("application/problem+json")
      // Like every 422 (docs/spec/profile.md section 7): what is wrong, path by path.
      expect(answer.json.errors.length, JSON.stringify(answer.json)).toBeGreaterThan(0)
      for (const e of answer.json.errors) expect(e).toEqual({ path: expect.any(String), message: expect.any(String) })
    }
  })

  it("credits a confirmed transfer of exactly the units: a policy-signed sup.credit leaf", async () => {
    const made = await intent(7)
    await chainSays(server, { tx: "0xcredit1", units: made.units })
    const { answer, envelope } = await claim(made.intent_id, "0xcredit1")
    expect(answer.code).toBeNull()
    expect(envelope.type).toBe("sup.credit")
    expect(envelope.payload).toMatchObject({ name: "alice", amount: 7, network: "testnet", tx: "0xcredit1", claim_hash: answer.claim_hash })
    // The same transaction again, for another intent of the same amount: tx_used.
    const other = await intent(7)
    const again = await claim(other.intent_id, "0xcredit1")
    expect(again.answer.code).toBe("tx_used")
    // The same intent again with another transaction paying its units: tx_used.
    await chainSays(server, { tx: "0xcredit2", units: made.units })
    expect((await claim(made.intent_id, "0xcredit2")).answer.code).toBe("tx_used")
  })

  it("writes a sup.refusal leaf for each code a claim can meet", async () => {
    const cases: Array<[string, (m: Awaited<ReturnType<typeof intent>>) => Promise<string>]> = [
      ["tx_not_found", async () => "0xnever-sent"],
      ["asset_mismatch", async (m) => { await chainSays(server, { tx: "0xasset", units: m.units, asset: "dai" }); return "0xasset" }],
      ["amount_mismatch", async (m) => { await chainSays(server, { tx: "0xamount", units: String(BigInt(m.units) - 1n) }); return "0xamount" }],
      ["intent_expired", async (m) => { await chainSays(server, { tx: "0xlate", units: m.units, time: m.expires + 1 }); return "0xlate" }]
    ]
    for (const [code, prepare] of cases) {
      const made = await intent(3)
      const tx = await prepare(made)
      const { answer, envelope } = await claim(made.intent_id, tx)
      expect(answer.code, code).toBe(code)
      expect(envelope.type).toBe("sup.refusal")
      expect(envelope.payload).toEqual({ claim_hash: answer.claim_hash, code })
    }
  })

  it("answers an unconfirmed claim 409 tx_unconfirmed with no leaf, and credits it once confirmed", async () => {
    const made = await intent(2)
    await chainSays(server, { tx: "0xslow", units: made.units, confirmed: false })
    const early = await postJson(server, "/v2/sup/contributions", claimBody({ intent_id: made.intent_id, tx: "0xslow", created: now() }))
    expect(early.status).toBe(409)
    expect(early.json).toMatchObject({ code: "tx_unconfirmed", confirmations_missing: null })
    await chainSays(server, { tx: "0xslow", units: made.units, confirmed: true })
    // The very same bytes are a settled claim: 409, no leaf.
    const body = claimBody({ intent_id: made.intent_id, tx: "0xslow", created: now() + 1 })
    const before = (await committed(server)).tiles.size
    const second = await postJson(server, "/v2/sup/contributions", body)
    expect(second.status).toBe(201)
    expect(second.json.code).toBeNull()
    const replay = await postJson(server, "/v2/sup/contributions", body)
    expect(replay.status).toBe(409)
    expect(replay.json.code).toBe("claim_settled")
    expect((await committed(server)).tiles.size).toBe(before + 1)
  })

  it("credits once under concurrent claims: of one intent, and of one transaction for two intents", async () => {
    const made = await intent(6)
    await chainSays(server, { tx: "0xrace1", units: made.units })
    const created = now()
    const sameIntent = await Promise.all([created, created + 1, created + 2].map((c) =>
      postJson(server, "/v2/sup/contributions", claimBody({ intent_id: made.intent_id, tx: "0xrace1", created: c }))))
    expect(sameIntent.map((a) => a.status)).toEqual([201, 201, 201])
    expect(sameIntent.filter((a) => a.json.code === null)).toHaveLength(1)
    expect(sameIntent.filter((a) => a.json.code === "tx_used")).toHaveLength(2)

    const [first, second] = [await intent(6), await intent(6)]
    await chainSays(server, { tx: "0xrace2", units: first!.units })
    const sameTx = await Promise.all([first!, second!, first!].map((m, i) =>
      postJson(server, "/v2/sup/contributions", claimBody({ intent_id: m.intent_id, tx: "0xrace2", created: created + i }))))
    expect(sameTx.map((a) => a.status)).toEqual([201, 201, 201])
    const credits = sameTx.filter((a) => a.json.code === null)
    expect(credits).toHaveLength(1)
    expect((await entryPayload(server, credits[0]!.json.entry.index)).payload).toMatchObject({ tx: "0xrace2", amount: 6 })
  })

  it("gives concurrent intents of one amount distinct units", async () => {
    const dave = makeAgent(`contrib dave ${Date.now()}`)
    await claimName(server, dave, "dave")
    const made = await Promise.all(Array.from({ length: 12 }, () =>
      postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 9, name: "dave" }))))
    expect(made.map((m) => m.status)).toEqual(Array(12).fill(201))
    expect(new Set(made.map((m) => m.json.units)).size).toBe(12)
  })

  it("answers 429 intents_limit once a name has 16 intents on a network that can still receive a transfer", async () => {
    const carol = makeAgent(`contrib carol ${Date.now()}`)
    await claimName(server, carol, "carol")
    const ask = () => postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 1, name: "carol" }))
    const units = new Set<string>()
    for (let i = 0; i < 16; i++) {
      const made = await ask()
      expect(made.status).toBe(201)
      units.add(made.json.units)
    }
    expect(units.size).toBe(16)
    const refused = await ask()
    expect(refused.status).toBe(429)
    expect(refused.json.code).toBe("intents_limit")
    expect(refused.type).toContain("application/problem+json")
  })

  it("is described in /openapi.json", async () => {
    const spec = await (await fetch(`${server.baseUrl}/openapi.json`)).json() as { paths: Record<string, { post?: unknown }> }
    expect(spec.paths["/v2/sup/contributions/intents"]?.post).toBeDefined()
    expect(spec.paths["/v2/sup/contributions"]?.post).toBeDefined()
  })

  it("refuses malformed claims with a 422 problem and no leaf", async () => {
    const before = (await committed(server)).tiles.size
    for (const [body, code] of [
      ['{"tx":"0x1","intent_id":"i_x","created":1}', "claim_not_jcs"],
      [claimBody({ intent_id: "i_x", tx: "0x1", created: now() - 3600 }), "claim_stale"],
      ['{"created":1,"intent_id":"i_x"}', "claim_invalid"],
      ["not json", "claim_invalid"]
    ] as const) {
      const answer = await postJson(server, "/v2/sup/contributions", body)
      expect(answer.status, body).toBe(422)
      expect(answer.json.code).toBe(code)
      expect(answer.json.errors.length, JSON.stringify(answer.json)).toBeGreaterThan(0)
      for (const e of answer.json.errors) expect(e).toEqual({ path: expect.any(String), message: expect.any(String) })
    }
    const missing = await postJson(server, "/v2/sup/contributions", '{"created":1,"intent_id":"i_x"}')
    expect(missing.json.errors).toContainEqual({ path: "tx", message: expect.any(String) })
    const query = await postJson(server, "/v2/sup/contributions?x=1", claimBody({ intent_id: "i_x", tx: "0x1", created: now() }))
    expect(query.status).toBe(422)
    expect(query.json.errors).toHaveLength(1)
    expect((await committed(server)).tiles.size).toBe(before)
  })

  it("keeps intents across a restart", async () => {
    const made = await intent(4)
    await server.stop()
    server = await start({ AICS_SUP_NETWORKS: NETWORKS, AICS_SUP_ALLOW_HTTP: "true" }, server.dataDir)
    await chainSays(server, { tx: "0xafter-restart", units: made.units })
    const { answer, envelope } = await claim(made.intent_id, "0xafter-restart")
    expect(answer.code).toBeNull()
    expect(envelope.payload).toMatchObject({ name: "alice", amount: 4 })
  })
})

describe("claims after claim_until", () => {
  it("writes a claim_late refusal", async () => {
    const server = await start({ AICS_SUP_NETWORKS: NETWORKS, AICS_SUP_ALLOW_HTTP: "true", AICS_SUP_INTENT_SECONDS: "1", AICS_SUP_CLAIM_SECONDS: "0" })
    const bob = makeAgent(`contrib bob ${Date.now()}`)
    await claimName(server, bob, "bob")
    const made = (await postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 1, name: "bob" }))).json
    await chainSays(server, { tx: "0xontime", units: made.units })
    await new Promise((resolve) => setTimeout(resolve, (made.claim_until + 1 - Date.now() / 1000) * 1000 + 50))
    const answer = await postJson(server, "/v2/sup/contributions", claimBody({ intent_id: made.intent_id, tx: "0xontime", created: now() }))
    expect(answer.status).toBe(201)
    expect(answer.json.code).toBe("claim_late")
    expect((await entryPayload(server, answer.json.entry.index)).type).toBe("sup.refusal")
  })
})

describe("closed contributions and HTTPS", () => {
  it("answers intents and claims contributions_closed without networks, writing nothing", async () => {
    const server = await start({ AICS_PUBLIC_URL: "https://aics.example" })
    const before = (await committed(server)).tiles.size
    const closed = await postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 5, name: "alice" }), { "x-forwarded-proto": "https" })
    expect(closed.status).toBe(403)
    expect(closed.json.code).toBe("contributions_closed")
    const body = claimBody({ intent_id: "i_x", tx: "0x1", created: now() })
    const claimed = await postJson(server, "/v2/sup/contributions", body, { "x-forwarded-proto": "https" })
    expect(claimed.status).toBe(403)
    expect(claimed.json.code).toBe("contributions_closed")
    expect((await committed(server)).tiles.size).toBe(before)
  })

  it("refuses plain HTTP behind a proxy, and takes a claim through TLS", async () => {
    const server = await start({ AICS_PUBLIC_URL: "https://aics.example", AICS_SUP_NETWORKS: NETWORKS })
    const body = claimBody({ intent_id: "i_x", tx: "0x1", created: now() })
    const plain = await postJson(server, "/v2/sup/contributions", body, { "x-forwarded-proto": "http" })
    expect(plain.status).toBe(403)
    expect(plain.json.code).toBe("https_required")
    const forwarded = await postJson(server, "/v2/sup/contributions", body, { forwarded: "for=1.2.3.4;proto=http" })
    expect(forwarded.json.code).toBe("https_required")
    // Through TLS (the proxy says https): the claim is taken, and an unknown intent writes no leaf.
    const before = (await committed(server)).tiles.size
    const tls = await postJson(server, "/v2/sup/contributions", body, { "x-forwarded-proto": "https" })
    expect(tls.status).toBe(404)
    expect(tls.json.code).toBe("intent_unknown")
    expect((await committed(server)).tiles.size).toBe(before)
  })

  it("refuses intents over plain HTTP when the public URL is http and AICS_SUP_ALLOW_HTTP is off", async () => {
    const server = await start({ AICS_SUP_NETWORKS: NETWORKS })
    const answer = await postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 5, name: "alice" }))
    expect(answer.status).toBe(403)
    expect(answer.json.code).toBe("https_required")
  })
})


describe("intents cannot be hoarded (issue 13 item 12)", () => {
  it("budgets intents per name and per address, so a few names cannot hold every slot of an amount", async () => {
    const server = await start({
      AICS_SUP_NETWORKS: NETWORKS, AICS_SUP_ALLOW_HTTP: "true", AICS_RATE_LIMITS: "on", AICS_LIMIT_REFUSAL_DELAY_MS: "0",
      AICS_LIMIT_NAME_INTENTS_PER_HOUR: "3", AICS_LIMIT_INTENTS_PER_HOUR: "5"
    })
    await claimName(server, makeAgent(`hoard bob ${Date.now()}`), "bob")
    await claimName(server, makeAgent(`hoard carol ${Date.now()}`), "carol")
    const intentFor = (name: string) => postJson(server, "/v2/sup/contributions/intents", JSON.stringify({ network: "testnet", amount: 5, name }))
    const bob = [await intentFor("bob"), await intentFor("bob"), await intentFor("bob"), await intentFor("bob")]
    expect(bob.map((a) => a.status)).toEqual([201, 201, 201, 429])
    expect(bob[3]!.json.code).toBe("rate_limited")
    expect(bob[3]!.json.detail).toContain("name_intents")
    // The address spent 4 of its 5 (the refused one too): one more, then 429 for any name.
    const carol = [await intentFor("carol"), await intentFor("carol")]
    expect(carol.map((a) => a.status)).toEqual([201, 429])
    expect(carol[1]!.json.detail).toContain("the intents budget")
  })

  it("holds the route's own 429 as long as every other (the tarpit), with Retry-After", async () => {
    const delay = 1500
    const server = await start({
      AICS_SUP_NETWORKS: NETWORKS, AICS_SUP_ALLOW_HTTP: "true", AICS_RATE_LIMITS: "on", AICS_LIMIT_REFUSAL_DELAY_MS: String(delay),
      AICS_LIMIT_NAME_INTENTS_PER_HOUR: "1", AICS_LIMIT_INTENTS_PER_HOUR: "10"
    })
    await claimName(server, makeAgent(`tarpit erin ${Date.now()}`), "erin")
    const intent = async () => {
      const started = performance.now()
      const response = await fetch(`${server.baseUrl}/v2/sup/contributions/intents`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ network: "testnet", amount: 5, name: "erin" })
      })
      return { status: response.status, retryAfter: response.headers.get("retry-after"), json: await response.json() as any, ms: performance.now() - started }
    }
    expect((await intent()).status).toBe(201)
    // The name's budget is spent, the address's is not: the handler's own 429, held.
    const refused = await intent()
    expect([refused.status, refused.json.code]).toEqual([429, "rate_limited"])
    expect(refused.json.detail).toContain("name_intents")
    expect(Number(refused.retryAfter)).toBeGreaterThan(0)
    expect(refused.ms).toBeGreaterThanOrEqual(delay)
  })
})
