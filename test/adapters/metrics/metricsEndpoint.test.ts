// GET /metrics end to end (issue 13 item 7; docs/operations.md "Metrics"): the service in a
// child process with AICS_METRICS_PORT and the plaintext gate on; each scrape is parsed as
// Prometheus text (test/support/prometheus.ts), and every series of the catalogue
// (src/app/Metrics.ts) is present and moves when its event happens: writes accepted and
// refused, sequencer batches and commit latency, write-check busy time, HTTP answers by
// route group and status with their latency histogram, gate sessions, connections per
// state, the log's size, checkpoint age and tiles lag, and the witnesses against their
// quorum (one witness configured, never answering). A live stream its client closes is
// counted with its 200, as the owner statistics count it (the same count), not a 5xx. The
// metrics listener serves nothing else, and the public port does not serve /metrics.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { formatCosignerKey, makeCosignerKey } from "../../../src/domain/note/cosignature.js"
import { makeAgent } from "../../support/agents.js"
import { GateConnection } from "../../support/gateClient.js"
import { presignPosts, sendInOrder } from "../../support/load.js"
import { parsePrometheus, total, type Scrape } from "../../support/prometheus.js"
import { freePort, removeDir, startServer, tempDataDir, untilWitnessesHeard, type RunningServer } from "../../support/server.js"

let server: RunningServer
let metricsUrl: string
let gatePort: number

beforeAll(async () => {
  const metricsPort = await freePort()
  gatePort = await freePort()
  // A witness at a port nobody listens on: the log's checkpoints go uncosigned.
  const witnessVkey = formatCosignerKey(makeCosignerKey(nodeCrypto.sha256, "away.test/witness", nodeCrypto.ed25519.publicKey(nodeCrypto.sha256(utf8("away witness")))))
  server = await startServer({
    dataDir: await tempDataDir(),
    env: {
      AICS_METRICS_PORT: String(metricsPort), AICS_GATE_PORT: String(gatePort),
      AICS_WITNESSES: `http://127.0.0.1:${await freePort()} ${witnessVkey}`, AICS_WITNESS_QUORUM: "1"
    }
  })
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  // Writes are taken once the witness, away, failed to answer (at once: nothing listens there).
  await untilWitnessesHeard(server)
  // The metrics listener opens right after the service's.
  const deadline = Date.now() + 10_000
  while (!server.output().includes("metrics listening")) {
    if (Date.now() > deadline) throw new Error(`no metrics listener:\n${server.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

const scrape = async (): Promise<Scrape> => {
  const res = await fetch(metricsUrl)
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4")
  return parsePrometheus(await res.text())
}

describe("GET /metrics", () => {
  it("parses as Prometheus text, and every series moves with its event", async () => {
    const before = await scrape()
    const types = (name: string) => before.types.get(name)
    expect(types("aics_sequencer_queue_depth")).toBe("gauge")
    expect(types("aics_checkpoint_age_seconds")).toBe("gauge")
    expect(types("aics_tiles_lag_entries")).toBe("gauge")
    expect(types("aics_log_size")).toBe("gauge")
    expect(types("aics_connections")).toBe("gauge")
    expect(types("aics_gate_sessions")).toBe("gauge")
    expect(total(before, "aics_sequencer_leading")).toBe(1)

    // Writes: 2 keys x 5 posts accepted, then one replayed (refused).
    const posts = presignPosts({ keys: 2, perKey: 5, origin: "localhost/aics", authority: `127.0.0.1:${server.port}`, label: "metrics" })
    const results = await sendInOrder(server.baseUrl, posts)
    expect(results.filter((r) => r.status === 202)).toHaveLength(10)
    const [replayed] = await sendInOrder(server.baseUrl, [[posts[0]![0]!]])
    expect(replayed!.status).toBeGreaterThanOrEqual(400)
    const refusedCode = JSON.parse(JSON.stringify(replayed!.json)).entry.refused as string

    // The gate: a session over TCP holding a challenge (held open), and one over GET /t.
    const gate = await GateConnection.open(gatePort, false)
    await gate.send(`identify ${makeAgent("metrics-gate").kid}`)
    await fetch(`${server.baseUrl}/t?l=help`).then((r) => r.text())
    // A keep-alive connection left idle.
    const idle = await fetch(`${server.baseUrl}/healthz`, { keepalive: true })
    await idle.text()
    // An unknown route: a 404 in another group.
    await fetch(`${server.baseUrl}/v2/no-such-route`).then((r) => r.text())

    const after = await scrape()
    const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels)
    expect(moved("aics_writes_total", { outcome: "accepted", code: "" })).toBe(10)
    expect(moved("aics_writes_total", { outcome: "refused", code: refusedCode })).toBe(1)
    expect(moved("aics_sequencer_batch_size_count")).toBeGreaterThanOrEqual(1)
    expect(moved("aics_sequencer_batch_size_sum")).toBeGreaterThanOrEqual(10)
    expect(moved("aics_sequencer_commit_seconds_count")).toBeGreaterThanOrEqual(1)
    expect(moved("aics_sequencer_commit_seconds_sum")).toBeGreaterThan(0)
    expect(moved("aics_check_worker_busy_seconds_total")).toBeGreaterThan(0)
    expect(moved("aics_http_requests_total", { group: "entries", status: "202" })).toBe(10)
    expect(moved("aics_http_requests_total", { group: "other", status: "404" })).toBe(1)
    expect(moved("aics_http_request_duration_seconds_count", { group: "entries" })).toBe(11)
    expect(total(after, "aics_http_request_duration_seconds_bucket", { group: "entries", le: "+Inf" }))
      .toBe(total(after, "aics_http_request_duration_seconds_count", { group: "entries" }))
    expect(moved("aics_gate_sessions_opened_total", { transport: "tcp_plain" })).toBe(1)
    expect(moved("aics_gate_sessions_opened_total", { transport: "http_get" })).toBe(1)
    expect(total(after, "aics_gate_sessions", { transport: "tcp" })).toBe(1)
    expect(total(after, "aics_connections", { listener: "gate", state: "open" })).toBe(1)
    expect(total(after, "aics_connections", { listener: "http", state: "idle" })).toBeGreaterThanOrEqual(1)
    expect(moved("aics_log_size")).toBe(10)

    // The checkpoint catches up (tiles lag back to 0) and its age is counted from then.
    const deadline = Date.now() + 10_000
    let settled = after
    while (total(settled, "aics_tiles_lag_entries") !== 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
      settled = await scrape()
    }
    expect(total(settled, "aics_tiles_lag_entries")).toBe(0)
    expect(total(settled, "aics_checkpoint_age_seconds")).toBeLessThan(10)

    // The witness never answers: none of one cosigned the latest checkpoint, for a while now.
    expect(types("aics_witness_quorum")).toBe("gauge")
    expect(total(settled, "aics_witness_quorum")).toBe(1)
    expect(total(settled, "aics_witness_cosigning_latest")).toBe(0)
    expect(total(settled, "aics_witness_below_quorum_seconds")).toBeGreaterThan(0)

    gate.close()
    const closed = Date.now() + 10_000
    let end = await scrape()
    while (total(end, "aics_connections", { listener: "gate", state: "open" }) !== 0 && Date.now() < closed) {
      await new Promise((r) => setTimeout(r, 50))
      end = await scrape()
    }
    expect(total(end, "aics_connections", { listener: "gate", state: "open" })).toBe(0)
  })

  it("counts a live stream its client closes with the 200 it was sent, not as a server error", async () => {
    const before = await scrape()
    // Plain and gzip: each stream is read until its first bytes (its head went out), then closed by the client.
    for (const coding of ["identity", "gzip"]) {
      const client = new AbortController()
      const stream = await fetch(`${server.baseUrl}/v2/stream`, { headers: { "accept-encoding": coding }, signal: client.signal })
      expect(stream.status).toBe(200)
      const reader = stream.body!.getReader()
      expect((await reader.read()).done).toBe(false)
      client.abort()
      await reader.read().catch(() => undefined)
    }
    // A stream is counted when its handler ends, soon after the socket closes.
    const deadline = Date.now() + 10_000
    let after = await scrape()
    const moved = (labels: Record<string, string>) => total(after, "aics_http_requests_total", labels) - total(before, "aics_http_requests_total", labels)
    while (moved({ group: "other" }) < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
      after = await scrape()
    }
    expect(moved({ group: "other" })).toBe(2)
    expect(moved({ group: "other", status: "200" })).toBe(2)
  })

  it("serves /metrics only on its own listener", async () => {
    const other = await fetch(metricsUrl.replace("/metrics", "/healthz"))
    expect(other.status).toBe(404)
    expect(other.headers.get("content-type")).toContain("application/problem+json")
    const publicPort = await fetch(`${server.baseUrl}/metrics`)
    expect(publicPort.status).toBe(404)
  })
})
