// /healthz: liveness in constant time, from memory only. 503 when the log diverged from
// its tiles (it then refuses new leaves); otherwise 200, DEGRADED when the tiles are not
// being written, the ciphertext budget is exhausted or the owner froze agent writes
// (app/ServiceHealth.ts).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { serviceHealth } from "../../../app/ServiceHealth.js"
import { ServiceConfig, TILE_PREFIX } from "../../../app/ServiceConfig.js"
import { AicsApi } from "../api.js"
import { tilesState } from "./common.js"
import { CosignatureCollector } from "../../../app/CosignatureCollector.js"

export const TelemetryHandlers = HttpApiBuilder.group(AicsApi, "telemetry", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const currentHealth = yield* serviceHealth
    const collector = yield* CosignatureCollector
    const prefix = `${config.publicUrl}${TILE_PREFIX}`
    return handlers.handle("healthz", () =>
      Effect.gen(function*() {
        const report = yield* currentHealth
        const health = {
          status: report.status,
          tree_size: report.log.size,
          tiles: tilesState(report.log, prefix),
          reasons: report.reasons,
          agent_writes_held: report.agentWritesHeld,
          witnesses: yield* collector.report
        }
        return yield* HttpServerResponse.json(health, {
          status: report.status === "DIVERGED" ? 503 : 200,
          headers: { "cache-control": "no-store" }
        }).pipe(Effect.orDie)
      }))
  }))
