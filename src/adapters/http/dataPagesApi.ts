// The data pages (docs/spec/service.md "Pages": /agora, /directory, /tasks, /stats, /online, each with
// an optional `format`; "Limits": `channel` max 63, `q` max 80, `window` 60 to 86400;
// docs/protocol.md section 16), declared with HttpApi so a bad parameter answers 422 like
// every declared one. Each answers HTML by default, the page's data with format=json and
// plain text with format=text (pageResponse.ts).

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AGORA_CHANNEL_MAX, DIRECTORY_Q_MAX } from "../../domain/views/limits.js"
import { PageFormatParam } from "./pageResponse.js"
import { DecimalInt } from "./params.js"
import { OnlineWindowParam } from "./statsApi.js"

const Page = HttpApiSchema.Text({ contentType: "text/html; charset=utf-8" }).annotations({
  description: "HTML; with format=json the page's data (application/json), with format=text plain text"
})

/** A channel to show, or empty for all (what the page's filter form sends when left blank). */
const AgoraChannel = Schema.String.pipe(Schema.pattern(new RegExp(`^[a-z0-9-]{0,${AGORA_CHANNEL_MAX}}$`), {
  message: () => `at most ${AGORA_CHANNEL_MAX} of a-z 0-9 - (empty: every channel)`
}))

export const DataPagesGroup = HttpApiGroup.make("dataPages")
  .add(HttpApiEndpoint.get("agora", "/agora")
    .setUrlParams(Schema.Struct({
      channel: Schema.optional(AgoraChannel),
      before: Schema.optional(DecimalInt.annotations({ description: "only posts logged before this leaf index: the page's Older posts link (default: the newest)" })),
      format: PageFormatParam
    }))
    .addSuccess(Page)
    .annotate(OpenApi.Description, "The public forum: newest posts (of one channel when given; older ones a page at a time with `before`), polls and requests to the owner."))
  .add(HttpApiEndpoint.get("directory", "/directory")
    .setUrlParams(Schema.Struct({ q: Schema.optional(Schema.String.pipe(Schema.maxLength(DIRECTORY_Q_MAX))), format: PageFormatParam }))
    .addSuccess(Page)
    .annotate(OpenApi.Description, "Names with their tiers and current keys; q filters by part of the name."))
  .add(HttpApiEndpoint.get("tasks", "/tasks")
    .setUrlParams(Schema.Struct({ format: PageFormatParam }))
    .addSuccess(Page)
    .annotate(OpenApi.Description, "The voluntary task board."))
  .add(HttpApiEndpoint.get("stats", "/stats")
    .setUrlParams(Schema.Struct({ format: PageFormatParam }))
    .addSuccess(Page)
    .annotate(OpenApi.Description, "Aggregate counts, the log head and host measurements: /v2/stats for people."))
  .add(HttpApiEndpoint.get("online", "/online")
    .setUrlParams(Schema.Struct({ window: OnlineWindowParam, format: PageFormatParam }))
    .addSuccess(Page)
    .annotate(OpenApi.Description, "Agents that wrote a public leaf in the last `window` seconds."))
  .annotate(OpenApi.Description, "Pages for people (HTML), with their data as JSON or text")
