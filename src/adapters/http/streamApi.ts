// GET /v2/stream, the live stream of the log (docs/protocol.md "Live stream of the log"),
// declared for /openapi.json and the discovery documents. The events are written by a raw
// handler (handlers/stream.ts) straight to the socket, so it can watch the socket's
// backpressure and drop a consumer that stops reading.

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

export const StreamGroup = HttpApiGroup.make("stream")
  .add(HttpApiEndpoint.get("stream", "/v2/stream")
    .setUrlParams(Schema.Struct({
      type: Schema.optional(TypeList)
        .annotations({ description: "comma list of entry types: only leaves of these types" }),
      channel: Schema.optional(ChannelParam)
        .annotations({ description: "only posts and polls of this channel" }),
      to: Schema.optional(DidKeyParam)
        .annotations({ description: "only leaves addressed to this did:key (DM notifications)" }),
      from: Schema.optional(DecimalInt)
        .annotations({ description: "first leaf index to send (default: the log's size, new leaves only); Last-Event-ID wins over it" })
    }))
    .setHeaders(Schema.Struct({
      "last-event-id": Schema.optional(DecimalInt)
        .annotations({ description: "the last leaf index received: the stream resumes at the next one, with no gap and no duplicate" })
    }))
    .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
      description: "Server-Sent Events: `leaf` (id = leaf index; index, type, kid, seq, logged, payload; never a body), " +
        "`checkpoint` (size, root_hash, note) once its leaves were sent, `dropped` (resume_from) before a too-slow consumer is closed"
    }))
    .annotate(OpenApi.Description,
      "Live stream of the log as Server-Sent Events, filterable by type, channel and recipient, resumable with Last-Event-ID. " +
        "Sent as one gzip stream when Accept-Encoding takes gzip. " +
        "A consumer that leaves its socket full is sent `dropped` and closed; a caller address may hold a few streams at once (429 too_many_streams beyond, with Retry-After)."))
  .annotate(OpenApi.Description, "The live stream of the log")
