// A node with witnesses (AICS_WITNESSES) takes no write until each has answered the first
// checkpoint it submits since it began sequencing, or failed to within its bound
// (app/CosignatureCollector.ts, "the first round"; docs/operations.md "Backups and
// restores"): meanwhile writes are refused with the signed 503 log_unavailable and /healthz
// says awaiting_witnesses. A slow witness holds writes until it answers; one that never
// answers, only until the transport gives up on it (10 s), which is logged; a reverse proxy
// in front of the witness answering 502 for it is no answer: writes wait for the witness's
// cosignature behind it, or for the same 10 s from the first submission, said; and a node
// restored from an older copy, its last-checkpoint lost too, whose witness cosigned more
// leaves than it holds, is DIVERGED before it takes any write. The witness is a fake over
// HTTP that decides as the real one does and holds its answers when told.

import type { Server } from "node:http"
import { cp, readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeAgent } from "../../support/agents.js"
import { closeWitness, holdAnswers, serveWitness, witnessIdentity, type FakeWitness } from "../../support/fakeWitness.js"
import { pollUntil } from "../../support/poll.js"
import { freePort, removeDir, startServer, tempDataDir, untilWitnessesHeard, type RunningServer } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"

const identity = witnessIdentity("first-round.test/witness")
const witness: FakeWitness = { logKey: undefined, state: undefined, down: false }
let witnessServer: Server | undefined
let witnessUrl = ""
let dataDir = ""
let origin = ""
const dirs: Array<string> = []
const running: Array<RunningServer> = []

beforeAll(async () => {
  dataDir = await tempDataDir()
  dirs.push(dataDir)
  // A first start makes the log's keys; the witness then knows the log.
  const first = await startServer({ dataDir })
  await first.stop()
  const logKey = parseVerifierKey(nodeCrypto.sha256, (await readFile(join(dataDir, "log.vkey"), "utf8")).trim())!
  witness.logKey = logKey
  origin = logKey.name
  const port = await freePort()
  witnessUrl = `http://127.0.0.1:${port}`
  witnessServer = await serveWitness(witness, identity, port)
}, 60_000)

afterAll(async () => {
  for (const s of running) await s.stop()
  await closeWitness(witnessServer)
  for (const d of dirs) await removeDir(d)
})

const start = async () => {
  const server = await startServer({ dataDir, env: { AICS_WITNESSES: `${witnessUrl} ${identity.vkey}`, AICS_WITNESS_QUORUM: "1" } })
  running.push(server)
  return server
}

/** Until the witness has received `count` requests in all: the node asked it. */
const requested = (count: number) =>
  pollUntil(`the witness asked ${count} times`, async () => ((witness.requests ?? 0) >= count ? true : undefined))

let writes = 0
const write = async (server: RunningServer) => {
  const agent = makeAgent(`first round writer ${writes}`)
  const sent = await sendEntry(server, origin, "/v2/entries", agent, "claim", { name: `first-round-${writes++}`, x25519: agent.x25519 })
  return { status: sent.status, entry: sent.json.entry as Record<string, unknown>, receipt: sent.json.receipt_note as unknown }
}

const health = async (server: RunningServer) => {
  const response = await fetch(`${server.baseUrl}/healthz`)
  return { code: response.status, ...(await response.json() as { status: string; reasons: ReadonlyArray<string>; tree_size: number }) }
}

const AWAITING = `writes are taken once every witness of AICS_WITNESSES has answered this node's first checkpoint submission, or failed to within its bound; waiting for ${identity.name} (`

/** The write is refused, signed, while the node waits for its witness (`why` its last try did not count, if any). */
const expectHeld = async (server: RunningServer, why?: string) => {
  const held = await write(server)
  expect(held.status).toBe(503)
  expect(held.entry["refused"]).toBe("log_unavailable")
  expect(held.entry["detail"]).toBe(`${AWAITING}${witnessUrl})${why === undefined ? "" : `: ${why}`}`)
  expect(typeof held.receipt).toBe("string")
}

/** Why a proxy's answer did not count. */
const proxied = (status: number) =>
  `${status}: ${status} from the proxy (no judgment of the checkpoint: asked again every second, for 10s from the first submission at most)`

describe("a node with witnesses, before each has answered", { timeout: 150_000 }, () => {
  it("refuses writes until a slow witness answers, and /healthz says why; then takes them", async () => {
    const release = holdAnswers(witness)
    const server = await start()
    await requested(1)
    await expectHeld(server)
    const waiting = await health(server)
    expect(waiting.status).toBe("DEGRADED")
    expect(waiting.reasons).toContain(`awaiting_witnesses: ${AWAITING}${witnessUrl})`)

    release()
    await untilWitnessesHeard(server)
    expect((await write(server)).status).toBe(202)
    expect((await health(server)).reasons.filter((r) => r.startsWith("awaiting_witnesses"))).toEqual([])
    expect(witness.state?.size).toBeGreaterThan(0)
    await server.stop()
  })

  it("takes writes once a witness that never answers has had its bound, and says so", async () => {
    const release = holdAnswers(witness)
    try {
      const asked = witness.requests ?? 0
      const server = await start()
      await requested(asked + 1)
      const askedAt = Date.now()
      await expectHeld(server)
      // The transport gives a witness 10 s (adapters/http/fetchWitnessTransport.ts).
      await untilWitnessesHeard(server, 60_000)
      expect(Date.now() - askedAt).toBeGreaterThan(5_000)
      expect(server.output()).toContain(`witness ${identity.name} (${witnessUrl}) did not judge this node's first checkpoint submission within its bound, 10s from the first submission (unreachable: `)
      expect((await write(server)).status).toBe(202)
      expect((await health(server)).reasons.filter((r) => r.startsWith("awaiting_witnesses"))).toEqual([])
      await server.stop()
    } finally {
      release()
    }
  })

  it("holds writes while a proxy in front of the witness answers 502, asking again every second, until the witness behind it cosigns", async () => {
    witness.proxyAnswers = 502
    try {
      const asked = witness.requests ?? 0
      const server = await start()
      // Asked again every second (with a growing wait, the third request comes 3 s after the first).
      await requested(asked + 3)
      await expectHeld(server, proxied(502))
      const waiting = await health(server)
      expect(waiting.status).toBe("DEGRADED")
      expect(waiting.reasons).toContain(`awaiting_witnesses: ${AWAITING}${witnessUrl}): ${proxied(502)}`)

      const cosignedBefore = witness.state?.size ?? 0
      witness.proxyAnswers = undefined
      await untilWitnessesHeard(server)
      // Heard on the witness's own cosignature, not let go.
      expect(witness.state?.size).toBeGreaterThan(cosignedBefore)
      expect(server.output()).not.toContain("writes are not held for it")
      expect((await write(server)).status).toBe(202)
      await server.stop()
    } finally {
      witness.proxyAnswers = undefined
    }
  })

  it("takes writes once a witness behind a proxy answering 503 for good has had its bound from the first submission, and says why", async () => {
    witness.proxyAnswers = 503
    try {
      const asked = witness.requests ?? 0
      const server = await start()
      await requested(asked + 1)
      const askedAt = Date.now()
      await requested(asked + 2)
      await expectHeld(server, proxied(503))
      expect((await health(server)).reasons).toContain(`awaiting_witnesses: ${AWAITING}${witnessUrl}): ${proxied(503)}`)
      await untilWitnessesHeard(server, 60_000)
      // The bound (WITNESS_ANSWER_BOUND, 10 s), well short of the round's 30 s.
      expect(Date.now() - askedAt).toBeGreaterThan(5_000)
      expect(server.output()).toContain(
        `witness ${identity.name} (${witnessUrl}) did not judge this node's first checkpoint submission within its bound, 10s from the first submission (503: 503 from the proxy): writes are not held for it`)
      expect(server.output()).not.toContain("of this node's first leadership")
      expect((await write(server)).status).toBe(202)
      expect((await health(server)).reasons.filter((r) => r.startsWith("awaiting_witnesses"))).toEqual([])
      await server.stop()
    } finally {
      witness.proxyAnswers = undefined
    }
  })

  // Last: it leaves the node diverged.
  it("makes a node restored from an older copy, its last-checkpoint lost, DIVERGED before it takes any write", async () => {
    // A copy of the data folder, taken stopped; the node then goes on, and the witness cosigns more.
    const backup = await tempDataDir()
    dirs.push(backup)
    await cp(dataDir, backup, { recursive: true })
    const older = await start()
    await untilWitnessesHeard(older)
    const olderSize = (await health(older)).tree_size
    for (let i = 0; i < 2; i++) expect((await write(older)).status).toBe(202)
    const cosigned = await pollUntil("the witness cosigning the newer leaves", async () =>
      (witness.state?.size ?? 0) >= olderSize + 2 ? witness.state!.size : undefined)
    await older.stop()

    // The copy restored in place, and the checkpoint the node kept lost with the folder.
    await rm(dataDir, { recursive: true, force: true })
    await cp(backup, dataDir, { recursive: true })
    await rm(join(dataDir, "last-checkpoint"), { force: true })
    const release = holdAnswers(witness)
    const asked = witness.requests ?? 0
    const restored = await start()
    await requested(asked + 1)
    // Before the witness's answer: refused, not taken on a log about to be found diverged.
    await expectHeld(restored)

    release()
    const diverged = await pollUntil("the restored node DIVERGED", async () => {
      const h = await health(restored)
      return h.status === "DIVERGED" ? h : undefined
    })
    expect(diverged.code).toBe(503)
    expect(diverged.reasons).toContain(
      `log_diverged: witness ${identity.name} (${witnessUrl}) cosigned size ${cosigned} of this origin, above this log's ${olderSize}: the log went back (restored from a copy older than what was published); restore the database or data folder that holds those leaves`)
    const refused = await write(restored)
    expect(refused.status).toBe(503)
    expect(refused.entry["refused"]).toBe("log_unavailable")
    expect(refused.entry["detail"]).toContain(`cosigned size ${cosigned} of this origin, above this log's ${olderSize}`)
    // No write was taken: the log holds what the copy held.
    expect((await health(restored)).tree_size).toBe(olderSize)
  })
})
