// /healthz: liveness in constant time, from memory only. 503 when the log diverged from
// its tiles (it then refuses new leaves); otherwise 200, DEGRADED when the tiles are not
// being written, the ciphertext budget is exhausted or the owner froze agent writes.

import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { BodyLedger } from "../../../app/BodyLedger.js"
import { LogStatus } from "../../../app/LogStatus.js"
import { Sequencer } from "../../../app/Sequencer.js"
import { agentWritesHeld } from "../../../domain/governance/freeze.js"
import { ServiceConfig, TILE_PREFIX } from "../../../app/ServiceConfig.js"
import { AicsApi } from "../api.js"
import { tilesState } from "./common.js"

export const TelemetryHandlers = HttpApiBuilder.group(AicsApi, "telemetry", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const status = yield* LogStatus
    const ledger = yield* BodyLedger
    const sequencer = yield* Sequencer
    const prefix = `${config.publicUrl}${TILE_PREFIX}`
    return handlers.handle("healthz", () =>
      Effect.gen(function*() {
        const state = yield* status.current
        const reasons: Array<string> = []
        if (state.diverged !== undefined) reasons.push(`log_diverged: ${state.diverged}`)
        if (state.tilesStalled) reasons.push(state.publishError !== undefined ? `tiles_not_written: ${state.publishError}` : "tiles_lagging")
        if (yield* ledger.exhausted) reasons.push("ciphertext_budget_exhausted")
        const held = agentWritesHeld(yield* sequencer.state)
        if (held) reasons.push("agent_writes_held")
        const health = {
          status: state.diverged !== undefined ? "DIVERGED" as const : reasons.length > 0 ? "DEGRADED" as const : "OK" as const,
          tree_size: state.size,
          tiles: tilesState(state, prefix),
          reasons,
          agent_writes_held: held
        }
        return yield* HttpServerResponse.json(health, {
          status: state.diverged !== undefined ? 503 : 200,
          headers: { "cache-control": "no-store" }
        }).pipe(Effect.orDie)
      }))
  }))
