// GET /v2/stream, the live stream of the log (docs/protocol.md "Live stream of the log"),
// declared for /openapi.json and the discovery documents. The events are written straight
// to the socket (streamHub.ts), so it can watch the socket's backpressure and drop a
// consumer that stops reading; a request is opened by the lean route (leanStreamRoute.ts)
// or, when that declines it, by HttpApi's handler (handlers/stream.ts).

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { ENTRY_RULES } from "../../domain/entries/registry.js"
import { ChannelParam, DecimalInt, DidKeyParam } from "./params.js"

/** A type list's length. */
const STREAM_TYPES_MAX = 512

/** A comma list of the entry types the log has (a misspelt one would match nothing, silently). */
const TypeList = Schema.String.pipe(
  Schema.maxLength(STREAM_TYPES_MAX),
  Schema.filter((list) => list.split(",").every((type) => ENTRY_RULES.has(type.trim())) ||
    `a comma list of entry types (${[...ENTRY_RULES.keys()].join(", ")})`)
)

/** The stream's query: also decoded by the lean route (leanStreamRoute.ts), with this very schema. */
export const StreamUrlParams = Schema.Struct({
  type: Schema.optional(TypeList)
    .annotations({ description: "comma list of entry types: only leaves of these types" }),
  channel: Schema.optional(ChannelParam)
    .annotations({ description: "only posts and polls of this channel" }),
  to: Schema.optional(DidKeyParam)
    .annotations({ description: "only leaves addressed to this did:key (DM notifications)" }),
  from: Schema.optional(DecimalInt)
    .annotations({ description: "first leaf index to send (default: the log's size, new leaves only); Last-Event-ID wins over it" })
})

export const StreamHeaders = Schema.Struct({
  "last-event-id": Schema.optional(DecimalInt)
    .annotations({ description: "the last leaf index received: the stream resumes at the next one, with no gap and no duplicate" })
})

export const StreamGroup = HttpApiGroup.make("stream")
  .add(HttpApiEndpoint.get("stream", "/v2/stream")
    .setUrlParams(StreamUrlParams)
    .setHeaders(StreamHeaders)
    .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
      description: "Server-Sent Events: `leaf` (id = leaf index; index, type, kid, seq, logged, payload; never a body), " +
        "`checkpoint` (size, root_hash, note) once its leaves were sent, `dropped` (resume_from) before a too-slow consumer is closed"
    }))
    .annotate(OpenApi.Description,
      "Live stream of the log as Server-Sent Events, filterable by type, channel and recipient, resumable with Last-Event-ID. " +
        "Sent as one gzip stream when Accept-Encoding takes gzip. " +
        "A consumer that leaves its socket full is sent `dropped` and closed; a caller address may hold a few streams at once (429 too_many_streams beyond, with Retry-After)."))
  .annotate(OpenApi.Description, "The live stream of the log")
