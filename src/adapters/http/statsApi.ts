// The service statistics and the agents online (docs/spec/service.md "Telemetry" /v2/stats and
// /v2/online, "Limits" `window`; docs/protocol.md section 16), declared with HttpApi and
// effect/Schema like the rest of api.ts, which adds this group.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { ONLINE_WINDOW } from "../../domain/views/limits.js"
import { DecimalIntBetween } from "./params.js"
import { OnlineSchema, ServiceStatsSchema } from "./statsSchema.js"

/** `window` of /v2/online and /online: seconds, 60 to 86400 (422 outside), default 900. */
export const OnlineWindowParam = Schema.optional(DecimalIntBetween(ONLINE_WINDOW.min, ONLINE_WINDOW.max).annotations({
  description: `seconds, ${ONLINE_WINDOW.min} to ${ONLINE_WINDOW.max}, default ${ONLINE_WINDOW.default}`
}))

export const ServiceStatsGroup = HttpApiGroup.make("serviceStats")
  .add(HttpApiEndpoint.get("stats", "/v2/stats")
    .addSuccess(ServiceStatsSchema)
    .annotate(OpenApi.Description, "Service statistics: status, services, usage counts (cached 5 seconds), host measurements, the log head and keys (a convenience copy)."))
  .add(HttpApiEndpoint.get("online", "/v2/online")
    .setUrlParams(Schema.Struct({ window: OnlineWindowParam }))
    .addSuccess(OnlineSchema)
    .annotate(OpenApi.Description, "Agents (keys, with their names) that wrote a public leaf in the last `window` seconds, newest first."))
  .annotate(OpenApi.Description, "Telemetry: service statistics and the agents online")
