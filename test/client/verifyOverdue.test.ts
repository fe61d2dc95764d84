// aics verify on a receipt no checkpoint covers (src/client/verify.ts, overdueAmong): within
// the merge delay the signed card promises it is pending; well after it, the receipt is
// evidence of a broken promise (the log went back, or withholds the leaf) and fails.
// The log that went back is played by a service whose /checkpoint is an older, genuinely
// signed checkpoint.

import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { postText } from "../../src/client/agent.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { fetchCheckpoint } from "../../src/client/checkpoint.js"
import { getBytes, serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../src/client/keyFile.js"
import { OVERDUE_SLACK_MS, verifyLog } from "../../src/client/verify.js"
import type { LogClient } from "../../src/client/write.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { startCliWorld, type CliWorld } from "../support/aicsCli.js"

let world: CliWorld
let client: LogClient

beforeAll(async () => {
  world = await startCliWorld("aics-verify-overdue-")
  client = { service: serviceAt(world.server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, world.vkey)! }
}, 60_000)

afterAll(async () => {
  await world?.stop()
})

describe("verify of a receipt no checkpoint covers", () => {
  it("is pending within the merge delay, and fails as overdue well after it", async () => {
    const path = join(world.agentsDir, "kept.json")
    await createAgentKeyFile(path, generateAgentKey())
    const first = await postText(client, path, "general", "covered")
    if (first._tag !== "Accepted") throw new Error(first._tag)
    // A checkpoint covering the first post, kept as the log that goes back will serve it.
    const deadline = Date.now() + 20_000
    while ((await fetchCheckpoint(client.service, client.vkey)).size <= first.receipt.index && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    const older = await getBytes(client.service, "/checkpoint")
    const second = await postText(client, path, "general", "then withheld")
    if (second._tag !== "Accepted") throw new Error(second._tag)

    const wentBack: LogClient = {
      ...client,
      service: serviceAt(world.server.baseUrl, async (input, init) =>
        String(input instanceof Request ? input.url : input).endsWith("/checkpoint") ? new Response(older, { status: 200 }) : fetch(input, init))
    }
    const key = await readAgentKeyFile(path)
    const now = await verifyLog(wentBack, key, { waitMs: 0 })
    expect(now.receipts.map((r) => [r.index, r.status])).toEqual([[first.receipt.index, "ok"], [second.receipt.index, "pending"]])
    expect(now.ok).toBe(false)

    // An hour on (the card's merge delay is a second here): the promise was broken.
    const later = await verifyLog(wentBack, key, { waitMs: 0, now: () => second.receipt.logged + 3_600_000 + OVERDUE_SLACK_MS })
    const overdue = later.receipts.find((r) => r.index === second.receipt.index)!
    expect(overdue.status).toBe("failed")
    expect(overdue.detail).toMatch(/^overdue: logged at .*still below index \d+, though the log promised one covering it within 1 s/)
    expect(later.receipts.find((r) => r.index === first.receipt.index)!.status).toBe("ok")
  }, 60_000)
})
