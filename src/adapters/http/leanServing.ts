// How a lean route (leanEntryRoute.ts, leanWriteRoute.ts) runs its answer beside HttpApi:
// in a fiber of the server's runtime, through the serve middlewares' own functions
// (admission.ts `admitted`, countRequests.ts `counted`), sent to Node as
// @effect/platform-node sends a response, and interrupted when the client goes before its
// answer, as the platform's handler does. A defect is logged as problemForEveryError.ts logs
// it and answered as the platform answers it.

import type { IncomingMessage, ServerResponse } from "node:http"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { clientAbortFiberId } from "@effect/platform/HttpServerError"
import { Cause, Effect, Runtime } from "effect"
import type { Admission } from "../../app/Admission.js"
import type { RequestStats } from "../../app/RequestStats.js"
import type { ServiceConfig } from "../../app/ServiceConfig.js"
import { admitted } from "./admission.js"
import { arrivingFromNode } from "./arrivingRequest.js"
import { counted } from "./countRequests.js"

/** Writes a response as @effect/platform-node's handleResponse does (lean routes make only byte bodies or none). */
const send = (res: ServerResponse, response: HttpServerResponse.HttpServerResponse) => {
  if (res.writableEnded) return
  res.writeHead(response.status, response.headers)
  if (response.body._tag === "Uint8Array") res.end(response.body.body)
  else res.end()
}

/** Serves one request with `answer`, admitted and counted as HttpApi's requests are. */
export type LeanServe = (req: IncomingMessage, res: ServerResponse, answer: Effect.Effect<HttpServerResponse.HttpServerResponse>) => void

export const leanServing: Effect.Effect<LeanServe, never, Admission | RequestStats | ServiceConfig> = Effect.map(
  Effect.runtime<Admission | RequestStats | ServiceConfig>(),
  (runtime) => {
    const runFork = Runtime.runFork(runtime)
    return (req, res, answer) => {
      const request = arrivingFromNode(req)
      const fiber = runFork(Effect.matchCauseEffect(counted(request, admitted(request, answer)), {
        onSuccess: (response) => Effect.sync(() => send(res, response)),
        onFailure: (cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.void : Effect.zipRight(
            Effect.logError("a request failed", cause),
            Effect.flatMap(HttpServerError.causeResponse(cause), ([response]) => Effect.sync(() => send(res, response)))
          )
      }))
      res.on("close", () => {
        if (!res.writableEnded) fiber.unsafeInterruptAsFork(clientAbortFiberId)
      })
    }
  }
)
