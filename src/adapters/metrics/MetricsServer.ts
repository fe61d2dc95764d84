// GET /metrics (issue 13 item 7; docs/operations.md "Metrics"): Prometheus text on a
// listener of its own, apart from the public port, on loopback unless the operator says
// otherwise (AICS_METRICS_HOST), so the service's internals are not published with its
// log. Each scrape first samples the gauges of held state (Metrics.ts sampledOnScrape),
// then renders the registry (prometheusText.ts). Any other path answers 404 problem+json.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Metric, Runtime, SubscriptionRef } from "effect"
import { LogHealth } from "../../app/LogHealth.js"
import { LogStatus } from "../../app/LogStatus.js"
import * as Metrics from "../../app/Metrics.js"
import { NodeRole } from "../../app/NodeRole.js"
import { Sequencer } from "../../app/Sequencer.js"
import { Clock } from "../../ports/Clock.js"
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from "./prometheusText.js"
import { reportLine } from "../logging/logging.js"

export interface MetricsListen {
  readonly host: string
  readonly port: number
}

/** The log's and the sequencer's state, sampled on each scrape. */
const logSampler = Effect.gen(function*() {
  const sequencer = yield* Sequencer
  const status = yield* LogStatus
  const health = yield* LogHealth
  const clock = yield* Clock
  const { leading } = yield* NodeRole
  return Effect.gen(function*() {
    const state = yield* status.current
    const publish = yield* health.publish.get
    const now = yield* clock.nowMillis
    // A queue's size is negative while takers wait on it: an empty queue.
    yield* Metric.set(Metrics.queueDepth, Math.max(0, yield* sequencer.queued))
    yield* Metric.set(Metrics.leading, (yield* SubscriptionRef.get(leading)) ? 1 : 0)
    yield* Metric.set(Metrics.logSize, state.size)
    yield* Metric.set(Metrics.tilesLag, state.lagEntries)
    yield* Metric.set(Metrics.checkpointAge, publish.publishedAt === undefined ? 0 : Math.max(0, now - publish.publishedAt) / 1000)
  })
})

const problem = (response: ServerResponse, status: number, detail: string) => {
  response.writeHead(status, { "content-type": "application/problem+json" })
  response.end(JSON.stringify({ type: "about:blank", title: status === 404 ? "Not Found" : "Method Not Allowed", status, detail }))
}

/** Serves /metrics on host:port until the scope closes; logs where. */
export const MetricsServerLive = (listen: MetricsListen) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    yield* Metrics.sampledOnScrape(yield* logSampler)
    const runtime = yield* Effect.runtime<never>()
    const scrape = Effect.map(Metrics.sampleAll, () => prometheusText(Metric.unsafeSnapshot()))
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== "/metrics") return problem(response, 404, "this listener serves GET /metrics only")
      if (request.method !== "GET" && request.method !== "HEAD") return problem(response, 405, "GET /metrics only")
      Runtime.runPromise(runtime)(scrape).then(
        (text) => {
          response.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" })
          response.end(request.method === "HEAD" ? undefined : text)
        },
        () => problem(response, 500, "the metrics could not be rendered")
      )
    })
    const address = yield* Effect.acquireRelease(
      Effect.async<AddressInfo, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(listen.port, listen.host, () => resume(Effect.succeed(server.address() as AddressInfo)))
      }),
      () => Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    ).pipe(Effect.orDie)
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address
    // Where it listens is part of the start's report, whatever the log level (logging.ts).
    yield* reportLine("metrics listening", { url: `http://${host}:${address.port}/metrics` })
  }))
