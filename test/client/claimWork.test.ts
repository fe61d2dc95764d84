// A claim's proof of work (docs/protocol.md "Fair admission") done by the client
// (src/client/envelope.ts buildWorkedEnvelope, over the domain's grindNonceRange): a slice of
// hashes at a time between turns of the event loop, so the process keeps answering (aics
// mcp's pings and other calls) however long it takes; `created` renewed as it goes, so a
// long search does not end with an envelope past its lifetime; and the MCP claim tool says
// what the work costs and how it goes (progress notifications).

import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { claimName } from "../../src/client/agent.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { buildWorkedEnvelope, ENVELOPE_LIFETIME_SECONDS, WORK_FRESH_SECONDS } from "../../src/client/envelope.js"
import { serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../src/client/keyFile.js"
import { claimDraft } from "../../src/client/payloads.js"
import { claimWorkSentence } from "../../src/client/mcp/agentTools.js"
import type { LogClient } from "../../src/client/write.js"
import { meetsWork } from "../../src/domain/admission/proofOfWork.js"
import { verifyEnvelopeSignature } from "../../src/domain/envelope/signature.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { ok, startCliWorld, type CliWorld } from "../support/aicsCli.js"
import { connectAicsMcp } from "../support/mcpClient.js"

/** The longest the event loop stays taken while `run` goes on: the largest gap between turns of a setImmediate chain, ms. */
const longestTurnWhile = async <A>(run: () => Promise<A>): Promise<{ readonly result: A; readonly longestMs: number }> => {
  let longestMs = 0
  let last = performance.now()
  let done = false
  const turn = () => {
    const now = performance.now()
    longestMs = Math.max(longestMs, now - last)
    last = now
    if (!done) setImmediate(turn)
  }
  setImmediate(turn)
  try {
    return { result: await run(), longestMs }
  } finally {
    done = true
  }
}

describe("the work, a slice at a time", () => {
  const key = generateAgentKey()
  const payload = claimDraft(key, "worker").payload

  it("yields between slices, meets the bits, and is signed", async () => {
    const { result: envelope, longestMs } = await longestTurnWhile(() => buildWorkedEnvelope(key, "localhost/aics", "claim", payload, { bits: 18 }))
    expect(meetsWork(envelope, 18, nobleCrypto.sha256)).toBe(true)
    expect(verifyEnvelopeSignature(envelope, nobleCrypto.ed25519)).toBe(true)
    // 2^18 hashes expected, each slice about 25 ms: the loop turned all along.
    expect(longestMs).toBeLessThan(500)
  })

  it("renews created as the clock runs, so the envelope found is fresh whatever the work took", async () => {
    // A clock 20 s on at every reading: the work spans many minutes of it.
    let now = Date.UTC(2026, 0, 1)
    const clock = () => (now += 20_000)
    const progress: Array<number> = []
    const envelope = await buildWorkedEnvelope(key, "localhost/aics", "claim", payload, { bits: 18, progress: (tries) => progress.push(tries) }, clock)
    expect(meetsWork(envelope, 18, nobleCrypto.sha256)).toBe(true)
    expect(verifyEnvelopeSignature(envelope, nobleCrypto.ed25519)).toBe(true)
    expect(envelope.expires - envelope.created).toBe(ENVELOPE_LIFETIME_SECONDS)
    // Found at most WORK_FRESH_SECONDS (and a reading) after its created, however many readings the work took.
    expect(Math.floor(now / 1000) - envelope.created).toBeLessThanOrEqual(WORK_FRESH_SECONDS + 20)
    expect(progress.every((tries, i) => tries === (i + 1) * 65_536)).toBe(true)
  })
})

describe("a claim with proof of work, against the service", () => {
  let world: CliWorld
  let client: LogClient

  beforeAll(async () => {
    world = await startCliWorld("aics-claim-work-", { env: { AICS_CLAIM_POW_BITS: "18" } })
    client = { service: serviceAt(world.server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, world.vkey)! }
  }, 60_000)

  afterAll(async () => {
    await world?.stop()
  })

  it("keeps the event loop turning while it works, and is accepted", async () => {
    const path = join(world.agentsDir, "worker.json")
    await createAgentKeyFile(path, generateAgentKey())
    const told: Array<[number, number]> = []
    const { result, longestMs } = await longestTurnWhile(() => claimName(client, path, "worker", { progress: (bits, tries) => told.push([bits, tries]) }))
    expect(result._tag).toBe("Accepted")
    expect(told[0]).toEqual([18, 0])
    expect(longestMs).toBeLessThan(500)
    expect((await readAgentKeyFile(path)).name).toBe("worker")
  })
})

describe("the MCP claim tool at a difficulty that takes long", () => {
  const BITS = 32
  let world: CliWorld
  let mcp: Client | undefined

  beforeAll(async () => {
    world = await startCliWorld("aics-claim-mcp-", { env: { AICS_CLAIM_POW_BITS: String(BITS) } })
  }, 60_000)

  afterAll(async () => {
    await mcp?.close()
    await world?.stop()
  })

  it("says what a claim costs here, reports progress, and the server answers meanwhile", async () => {
    ok(await world.aics(["keygen", "--key", "slow.json"]))
    mcp = await connectAicsMcp(join(world.agentsDir, "slow.json"), { server: world.server.baseUrl, vkey: world.vkey })
    const claimTool = (await mcp.listTools()).tools.find((tool) => tool.name === "claim")!
    expect(claimTool.description).toContain(`its card's limits.claim_pow_bits was ${BITS} when this server started`)
    expect(claimTool.description).toMatch(/a second on this machine: [\d.]+ (s|min|h) on average/)
    expect(claimTool.description).toContain("progress notifications")

    const progress: Array<{ progress: number; message?: string | undefined }> = []
    // 2^32 hashes: minutes at the least. The call is left running; closing the client ends it.
    const claiming = mcp.callTool({ name: "claim", arguments: { name: "slowpoke" } }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, message: p.message }),
      resetTimeoutOnProgress: true
    }).catch(() => undefined)
    const deadline = Date.now() + 30_000
    while (!progress.some((p) => p.progress > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(progress[0]).toMatchObject({ progress: 0, message: expect.stringContaining(`proof of work: ${BITS} bits asked of a claim here`) })
    expect(progress.find((p) => p.progress > 0)?.message).toMatch(/^proof of work: [\d,]+ hashes tried \(\d+% of the [\d,]+ expected\)$/)
    // Mid-work, a ping and a read are answered at once.
    const started = Date.now()
    await mcp.ping()
    const who = await mcp.callTool({ name: "whoami", arguments: {} })
    expect(who.isError).not.toBe(true)
    expect(Date.now() - started).toBeLessThan(5_000)
    await mcp.close()
    mcp = undefined
    await claiming
  }, 60_000)

  it("says when no work is asked, and what the work may be when the card could not be read", () => {
    expect(claimWorkSentence({ bits: 0, hashesPerSecond: 0 })).toMatch(/asked no proof of work .* a claim takes a round trip/)
    expect(claimWorkSentence(undefined)).toMatch(/may ask a proof of work .* limits\.claim_pow_bits, read at each claim/)
    expect(claimWorkSentence({ bits: 20, hashesPerSecond: 500_000 })).toMatch(/about 1,048,576 hashes, .* about 500,000 a second on this machine: 2 s on average/)
  })
})
