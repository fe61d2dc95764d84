// POST /add-checkpoint (C2SP tlog-witness): the body read within its limit, the Witness's
// answer written as the spec says. Nothing is cached: a cosignature is a statement of now.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Witness } from "../../../app/Witness.js"
import { MAX_ADD_CHECKPOINT_BYTES, TLOG_SIZE_CONTENT_TYPE } from "../../../domain/witness/addCheckpoint.js"
import { AicsApi } from "../api.js"
import { readLimitedBody } from "../limitedBody.js"
import { problemResponse, storageProblem } from "../problem.js"

const CODES = { 400: "malformed_request", 403: "log_signature_invalid", 404: "unknown_log", 409: "old_size_mismatch", 422: "consistency_proof_invalid" } as const

export const WitnessHandlers = HttpApiBuilder.group(AicsApi, "witness", (handlers) =>
  Effect.gen(function*() {
    const witness = yield* Witness
    return handlers.handleRaw("addCheckpoint", ({ request }) =>
      Effect.gen(function*() {
        const body = yield* readLimitedBody(request, MAX_ADD_CHECKPOINT_BYTES)
        if (body._tag === "Failed") return yield* problemResponse({ status: 400, code: CODES[400], detail: "the body could not be read" })
        if (body._tag === "TooLarge") return yield* problemResponse({ status: 413, code: "body_too_large", detail: `an add-checkpoint body is at most ${MAX_ADD_CHECKPOINT_BYTES} bytes` })
        const answer = yield* witness.addCheckpoint(body.bytes)
        const headers = { "cache-control": "no-store" }
        if (answer.status === 200) return HttpServerResponse.text(answer.lines, { contentType: "text/plain; charset=utf-8", headers })
        if (answer.status === 409 && answer.knownSize !== undefined) {
          return HttpServerResponse.text(`${answer.knownSize}\n`, { status: 409, contentType: TLOG_SIZE_CONTENT_TYPE, headers })
        }
        return yield* problemResponse({ status: answer.status, code: CODES[answer.status], detail: answer.reason })
      }).pipe(Effect.catchTag("StorageError", storageProblem)))
  }))
