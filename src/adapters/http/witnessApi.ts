// C2SP tlog-witness over HTTP (docs/protocol.md "Witnessing"): POST /add-checkpoint, declared
// for /openapi.json; handled raw (handlers/witness.ts), since its body and answers are the
// spec's text formats: the request `old <size>`, proof lines, an empty line and the note;
// 200 with cosignature lines; 409 with the known size as text/x.tlog.size.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { TLOG_SIZE_CONTENT_TYPE } from "../../domain/witness/addCheckpoint.js"
import { textAnswerAt } from "./errorResponsesOpenApi.js"
import { BadRequest, ContentTooLarge, problemEncoding, RouteConflict, RouteRefused } from "./problem.js"

export const WitnessGroup = HttpApiGroup.make("witness")
  .add(HttpApiEndpoint.post("addCheckpoint", "/add-checkpoint")
    .setPayload(HttpApiSchema.Text({ contentType: "text/plain" }).annotations({ description: "old <size>\\n, consistency proof lines (base64), an empty line, the checkpoint note" }))
    .addSuccess(HttpApiSchema.Text({ contentType: "text/plain; charset=utf-8" }).annotations({ description: "cosignature/v1 note signature lines" }))
    // HttpApi lists every error of a status under application/json: textAnswerAt moves this one.
    .addError(HttpApiSchema.Text({ contentType: TLOG_SIZE_CONTENT_TYPE })
      .annotations({ [HttpApiSchema.AnnotationStatus]: 409, description: "the size this witness last cosigned, a decimal line" }))
    .addError(BadRequest.pipe(problemEncoding))
    .addError(RouteRefused.pipe(problemEncoding))
    .addError(RouteConflict.pipe(problemEncoding))
    .addError(ContentTooLarge.pipe(problemEncoding))
    .annotate(OpenApi.Description,
      "C2SP tlog-witness add-checkpoint for the logs this service witnesses: 200 cosignature lines; 400 malformed or old size above the checkpoint's; " +
        "403 no valid log signature; 404 unknown origin; 409 old size is not the last cosigned one (body: that size, text/x.tlog.size) or another root at that size; " +
        "422 the consistency proof does not verify")
    .annotate(OpenApi.Transform, textAnswerAt("409", TLOG_SIZE_CONTENT_TYPE)))
  .annotate(OpenApi.Description, "This service as a witness of other logs (C2SP tlog-witness, tlog-cosignature)")

/** This log's witnesses as /healthz and /v2/stats report them (app/CosignatureCollector.ts). */
export const WitnessingHealth = Schema.Struct({
  quorum: Schema.Int.annotations({ description: "cosignatures a checkpoint needs to count as witnessed (AICS_WITNESS_QUORUM)" }),
  cosigning_latest: Schema.Int.annotations({ description: "witnesses whose cosignature covers the latest checkpoint" }),
  witnesses: Schema.Array(Schema.Struct({
    name: Schema.String,
    url: Schema.String,
    vkey: Schema.String,
    cosigned_size: Schema.NullOr(Schema.Int).annotations({ description: "the largest size of this log the witness cosigned" }),
    cosigned_at: Schema.NullOr(Schema.Int).annotations({ description: "that cosignature's timestamp, Unix seconds" }),
    cosigned_age_seconds: Schema.NullOr(Schema.Int),
    error: Schema.NullOr(Schema.String).annotations({ description: "why the last attempt failed, if it did" })
  }))
}).annotations({ identifier: "WitnessingHealth" })

