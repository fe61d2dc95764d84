// The HTTP side shared by every write route (POST /v2/entries, answered beside HttpApi by
// leanWriteRoute.ts or through it, and /v2/admin/*): read the body within the limit,
// describe the request as the write checks see it, and send the answer with its status,
// Location and Retry-After.

import type { IncomingMessage } from "node:http"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { MAX_WRITE_REQUEST_BYTES } from "../../app/EntryWrites.js"
import type { WriteTracing } from "../../app/Tracing.js"
import type { WriteAnswer } from "../../app/WriteAnswers.js"
import type { WriteRequest } from "../../ports/WriteChecks.js"
import { currentClient, tarpit } from "./admission.js"
import { type ArrivingRequest, pathOfUrl } from "./arrivingRequest.js"
import { readLimitedIncoming } from "./limitedBody.js"
import { requestHead } from "./requestHead.js"

/** A write as it arrived: Node's request, whose body is read here, and its head as the checks see it. */
export interface WriteArrival {
  readonly incoming: IncomingMessage
  readonly head: Pick<ArrivingRequest, "method" | "url" | "headers">
}

/** A write that HttpApi routed. */
export const arrivalOf = (request: HttpServerRequest.HttpServerRequest): WriteArrival => ({
  incoming: NodeHttpServerRequest.toIncomingMessage(request),
  head: request
})

/** What a write came to, for its span: the refusal code, or accepted. */
const outcomeOf = (answer: WriteAnswer): string => {
  const refused = answer.body.entry["refused"]
  return typeof refused === "string" ? refused : "accepted"
}

/**
 * Answers a write: `write` gets the request as received, `tooLarge` answers a body over
 * `limit` (refused from its Content-Length, or as soon as reading passes the limit, so no
 * client can make the service buffer more than that). With traces on (app/Tracing.ts) the
 * whole request is the write's root span.
 */
export const answerWrite = (
  tracing: WriteTracing,
  { incoming, head }: WriteArrival,
  write: (request: WriteRequest) => Effect.Effect<WriteAnswer>,
  tooLarge: (limit: number) => Effect.Effect<WriteAnswer>,
  limit: number = MAX_WRITE_REQUEST_BYTES
) => {
  const answered = Effect.gen(function*() {
    const read = yield* readLimitedIncoming(incoming, limit)
    if (read._tag === "Failed") return HttpServerResponse.empty({ status: 400 })
    const client = yield* currentClient
    const answer = read._tag === "TooLarge"
      ? yield* tooLarge(limit)
      : yield* write({ ...requestHead(head), body: read.bytes, ...(client === undefined ? {} : { client }) })
    if (tracing.on) yield* tracing.annotate(() => ({ "http.response.status_code": answer.status, "aics.outcome": outcomeOf(answer) }))
    if (answer.status === 429) yield* tarpit
    return yield* HttpServerResponse.json(answer.body, {
      status: answer.status,
      headers: {
        ...(answer.location !== undefined ? { location: answer.location } : {}),
        ...(answer.retryAfter !== undefined ? { "retry-after": String(answer.retryAfter) } : {}),
        ...(answer.rateLimit !== undefined ? { "ratelimit-policy": answer.rateLimit.policy, "ratelimit": answer.rateLimit.limit } : {})
      }
    }).pipe(Effect.orDie)
  })
  if (!tracing.on) return answered
  const path = pathOfUrl(head.url)
  return answered.pipe(tracing.span(`POST ${path}`, () => ({
    kind: "server",
    attributes: { "http.request.method": "POST", "http.route": path, "http.request.body.size": Number(incoming.headers["content-length"] ?? 0) }
  })))
}

