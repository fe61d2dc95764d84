// The series an operator scrapes from /metrics (issue 13 item 7; docs/operations.md
// "Metrics"): Effect Metrics in the global registry, updated where their events happen and
// rendered as Prometheus text by src/adapters/metrics. Labels are few and closed (outcome,
// refusal code, route group, status, budget, state, operation): never a key, name, address
// or path, so no series per client can be built from them, as the owner's statistics
// (domain/stats/requestStats.ts) promise too.
//
// Counters and histograms move as things happen. Gauges that describe a state (queue
// depth, checkpoint age, connections, sessions) are sampled when scraped: each part that
// holds such a state registers a sampler for as long as its scope is open (sampledOnScrape).

import { Effect, Metric, MetricBoundaries, MetricKey, type Scope } from "effect"
import { labelledMetric } from "../ports/labelledMetric.js"
export { countRateLimited, rateLimited } from "./RateLimitMetric.js"

/** Answers to writes, on every write route and the gate: outcome accepted|refused, code the refusal's. */
const writesSeries = labelledMetric(MetricKey.counter("aics_writes_total", {
  description: "Write answers by outcome (accepted, refused) and refusal code.",
  incremental: true
}))
export const writes = writesSeries.metric

/** One write answered: accepted (`code` undefined) or refused with `code`. */
export const countWrite = (code: string | undefined) =>
  Effect.sync(() => writesSeries.of(["outcome", code === undefined ? "accepted" : "refused"], ["code", code ?? ""]).unsafeUpdate(1, []))

/** Submissions in one batch the sequencer decided and committed. */
export const batchSize = Metric.histogram(
  "aics_sequencer_batch_size",
  MetricBoundaries.exponential({ start: 1, factor: 2, count: 11 }),
  "Submissions per sequencer batch."
)

/** Seconds from the start of a batch's durable write (bodies, then leaves) to its end. */
export const commitSeconds = Metric.histogram(
  "aics_sequencer_commit_seconds",
  MetricBoundaries.exponential({ start: 0.0005, factor: 2, count: 14 }),
  "Seconds to make one batch durable (bodies and leaves)."
)

/** One batch of `size` submissions, whose durable write took `seconds` (none when it wrote nothing). */
export const countBatch = (size: number, seconds: number | undefined) =>
  Effect.zipRight(Metric.update(batchSize, size), seconds === undefined ? Effect.void : Metric.update(commitSeconds, seconds))

export const queueDepth = Metric.gauge("aics_sequencer_queue_depth", { description: "Submissions waiting for the sequencer on this node." })
export const leading = Metric.gauge("aics_sequencer_leading", { description: "1 while this node holds the sequencing lease." })

/** Seconds the write-check threads spent checking (the event loop's own checks: thread=main). */
export const checkBusySeconds = labelledMetric(MetricKey.counter("aics_check_worker_busy_seconds_total", {
  description: "Seconds the write checks kept their threads busy.",
  incremental: true
}))

export const checkpointAge = Metric.gauge("aics_checkpoint_age_seconds", { description: "Seconds since this node last published or read a newer checkpoint." })
export const tilesLag = Metric.gauge("aics_tiles_lag_entries", { description: "Leaves in the log not yet under the published checkpoint." })
export const logSize = Metric.gauge("aics_log_size", { description: "Leaves in the log as this node knows it." })

// The witnesses (app/CosignatureCollector.ts), as /healthz `witnesses` counts them: no
// label per witness (/healthz names each, with its error).
export const witnessQuorum = Metric.gauge("aics_witness_quorum", { description: "Cosignatures a checkpoint needs (AICS_WITNESS_QUORUM; 0 when the log has no witnesses)." })
export const witnessCosigningLatest = Metric.gauge("aics_witness_cosigning_latest", { description: "Witnesses whose cosignature covers the latest checkpoint." })
export const witnessBelowQuorumSeconds = Metric.gauge("aics_witness_below_quorum_seconds", {
  description: "Seconds the log has gone without its quorum's cosignatures (0 while the quorum covers the latest checkpoint)."
})

const httpRequests = labelledMetric(MetricKey.counter("aics_http_requests_total", {
  description: "HTTP answers by route group and status.",
  incremental: true
}))

const httpSeconds = labelledMetric(MetricKey.histogram(
  "aics_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "Seconds from a request's arrival to its answer, by route group."
))

/** One HTTP answer of `group` with `status`, `seconds` after it arrived (called as it goes out). */
export const countHttpNow = (group: string, status: number, seconds: number) => {
  httpRequests.of(["group", group], ["status", String(status)]).unsafeUpdate(1, [])
  httpSeconds.of(["group", group]).unsafeUpdate(seconds, [])
}

export const gateSessions = labelledMetric(MetricKey.gauge("aics_gate_sessions", { description: "Open text-gate sessions by transport (http, tcp)." }))
const gateSessionsOpened = labelledMetric(MetricKey.counter("aics_gate_sessions_opened_total", {
  description: "Text-gate sessions opened, by transport.",
  incremental: true
}))

/** A gate session opened on `transport` (http_get, http_post, tcp_plain, tcp_tls). */
export const countGateSessionNow = (transport: string) => gateSessionsOpened.of(["transport", transport]).unsafeUpdate(1, [])

/** Connections the server closed to protect itself, by reason (pending_bytes: over the held-bytes bound). */
export const connectionsShed = labelledMetric(MetricKey.counter("aics_connections_shed_total", {
  description: "Connections closed by the server to bound what it holds, by reason.",
  incremental: true
}))

export const connections = labelledMetric(
  MetricKey.gauge("aics_connections", { description: "Open connections by listener (http, gate) and state (active, idle)." })
)

export { storeErrors } from "../ports/StorageError.js"

const samplers = new Set<Effect.Effect<void>>()

/** Runs `sample` before each scrape while the scope is open (gauges of a state held elsewhere). */
export const sampledOnScrape = (sample: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(() => void samplers.add(sample)), () => Effect.sync(() => void samplers.delete(sample)))

/** Every registered sampler, each failure logged and skipped: a scrape always answers. */
export const sampleAll: Effect.Effect<void> = Effect.suspend(() =>
  Effect.forEach([...samplers], (sample) => Effect.catchAllCause(sample, (cause) => Effect.logWarning("a metrics sampler failed", cause)), {
    discard: true
  }))
