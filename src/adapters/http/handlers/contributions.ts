// The contribution routes (app/Contributions.ts): raw, so the claim is read as the exact
// bytes that were sent (its SHA-256 is the claim_hash), within a small limit.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Contributions, MAX_CONTRIBUTION_BYTES } from "../../../app/Contributions.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { tarpit } from "../admission.js"
import { AicsApi } from "../api.js"
import { reachedOverHttps } from "../https.js"
import { readLimitedBody } from "../limitedBody.js"
import { problemResponse, storageProblem } from "../problem.js"

export const ContributionsHandlers = HttpApiBuilder.group(AicsApi, "contributions", (handlers) =>
  Effect.gen(function*() {
    const contributions = yield* Contributions
    const config = yield* ServiceConfig
    const https = { publicUrl: config.publicUrl, allowHttp: config.contributions.allowHttp }

    /** The body within the limit, no query string, and whether it came over HTTPS. */
    const read = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const body = yield* readLimitedBody(request, MAX_CONTRIBUTION_BYTES)
        if (body._tag === "Failed") return yield* Effect.fail({ status: 400, code: "malformed_request", detail: "the body could not be read" })
        if (body._tag === "TooLarge") return yield* Effect.fail({ status: 413, code: "body_too_large", detail: `at most ${MAX_CONTRIBUTION_BYTES} bytes` })
        if (new URL(request.url, "http://x").search.length > 1) return yield* Effect.fail({ status: 422, code: "query_not_allowed", detail: "this route takes no query string", errors: [{ path: "query", message: "no query string" }] })
        return { bytes: body.bytes, secure: reachedOverHttps(request.headers, https) }
      })

    // A 429 of these routes is held like every other (admission.ts tarpit): the name's
    // intents budget, a name's open intents, a claim's write refused rate_limited.
    const heldIfLimited = (response: HttpServerResponse.HttpServerResponse) =>
      response.status === 429 ? Effect.as(tarpit, response) : Effect.succeed(response)

    return handlers
      .handleRaw("intent", ({ request }) =>
        Effect.gen(function*() {
          const { bytes, secure } = yield* read(request)
          const answer = yield* contributions.intent(bytes, secure)
          if (answer._tag === "Problem") return yield* problemResponse(answer)
          return yield* HttpServerResponse.json(answer.view, { status: 201 }).pipe(Effect.orDie)
        }).pipe(Effect.catchTag("StorageError", storageProblem), Effect.catchAll(problemResponse), Effect.flatMap(heldIfLimited)))
      .handleRaw("claim", ({ request }) =>
        Effect.gen(function*() {
          const { bytes, secure } = yield* read(request)
          const claimed = yield* contributions.claim(bytes, secure)
          if (claimed._tag === "Problem") return yield* problemResponse(claimed)
          const { answer } = claimed
          return yield* HttpServerResponse.json(answer.body, {
            status: answer.status,
            headers: {
              ...(answer.location === undefined ? {} : { location: answer.location }),
              ...(answer.retryAfter === undefined ? {} : { "retry-after": String(answer.retryAfter) })
            }
          }).pipe(Effect.orDie)
        }).pipe(Effect.catchTag("StorageError", storageProblem), Effect.catchAll(problemResponse), Effect.flatMap(heldIfLimited)))
  }))
