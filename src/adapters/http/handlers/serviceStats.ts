// /v2/stats and /v2/online (docs/spec/service.md "Telemetry"; docs/protocol.md section 16): the
// statistics document of app/ServiceStats.ts, and the pure view of the agents online it
// serves (reused for a few seconds).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { ServiceStats } from "../../../app/ServiceStats.js"
import { ONLINE_WINDOW } from "../../../domain/views/limits.js"
import { AicsApi } from "../api.js"
import { orUnavailable } from "./common.js"

export const ServiceStatsHandlers = HttpApiBuilder.group(AicsApi, "serviceStats", (handlers) =>
  Effect.gen(function*() {
    const stats = yield* ServiceStats
    return handlers
      .handle("stats", () => orUnavailable(stats.document))
      .handle("online", ({ urlParams }) => orUnavailable(stats.online(urlParams.window ?? ONLINE_WINDOW.default)))
  }))
