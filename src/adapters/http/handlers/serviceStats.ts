// /v2/stats and /v2/online (service.md "Telemetry"; docs/protocol.md section 16): the
// statistics document of app/ServiceStats.ts, and the pure view of the agents online.

import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Sequencer } from "../../../app/Sequencer.js"
import { ServiceStats } from "../../../app/ServiceStats.js"
import { ONLINE_WINDOW } from "../../../domain/views/limits.js"
import { onlineView } from "../../../domain/views/online.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { orUnavailable } from "./common.js"

export const ServiceStatsHandlers = HttpApiBuilder.group(AicsApi, "serviceStats", (handlers) =>
  Effect.gen(function*() {
    const stats = yield* ServiceStats
    const sequencer = yield* Sequencer
    const clock = yield* Clock
    return handlers
      .handle("stats", () => orUnavailable(stats.document))
      .handle("online", ({ urlParams }) =>
        Effect.gen(function*() {
          return onlineView(yield* sequencer.state, urlParams.window ?? ONLINE_WINDOW.default, yield* clock.nowMillis)
        }))
  }))
