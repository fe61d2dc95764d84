// How a lean route (leanEntryRoute.ts, leanWriteRoute.ts) runs its answer beside HttpApi, so
// that no client, metric or operator can tell it from the same route served by HttpApi
// (@effect/platform's HttpApp.toHandled and its router):
//   - the serve middlewares' own functions (admission.ts `admitted`, countRequests.ts
//     `counted`) around it, in a fiber of the server's runtime, uninterruptible as HttpApi
//     runs its middlewares: a client that leaves while its 429 is held is still counted 429;
//   - only the route's own answer is interrupted when the client goes before it, and counted
//     499, as the platform's router makes a handler interruptible;
//   - a defect is logged as problemForEveryError.ts logs it and answered as the platform
//     answers it, inside admission, so its 500 carries the RateLimit fields too;
//   - the answer is written to Node, as @effect/platform-node writes it, within the
//     address's turn and the request's counted latency, which end once Node has taken it.

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

/**
 * Writes a response as @effect/platform-node's handleResponse does (lean routes make only
 * byte bodies or none; the stream writes its own head, and then nothing is written here), and resumes once the kernel has taken all of it: at once when the
 * end call itself wrote it all (most answers), else on `finish`, or on `close` when the
 * connection goes first (Node never calls end's callback on a closed connection, so the
 * platform's wait for it would never end).
 */
const send = (res: ServerResponse, response: HttpServerResponse.HttpServerResponse) =>
  Effect.async<void>((resume) => {
    // A route that wrote its own head (the live stream, leanStreamRoute.ts) has answered.
    if (res.writableEnded || res.destroyed || res.headersSent) return resume(Effect.void)
    res.writeHead(response.status, response.headers)
    if (response.body._tag === "Uint8Array") res.end(response.body.body)
    else res.end()
    // The response's writableLength counts its socket's unsent bytes as well (node:http).
    if (res.socket !== null && res.writableLength === 0) return resume(Effect.void)
    const done = () => {
      res.off("finish", done)
      res.off("close", done)
      resume(Effect.void)
    }
    res.once("finish", done)
    res.once("close", done)
  })

/** The route's answer, the only part a client's leaving interrupts; a defect becomes its answer. */
const interruptibleAnswer = (answer: Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
  Effect.catchAllCause(Effect.interruptible(answer), (cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.zipRight(
      Effect.logError("a request failed", cause),
      Effect.map(HttpServerError.causeResponse(cause), ([response]) => response)
    ))

/** Serves one request with `answer`, admitted and counted as HttpApi's requests are. */
export type LeanServe = (req: IncomingMessage, res: ServerResponse, answer: Effect.Effect<HttpServerResponse.HttpServerResponse>) => void

export const leanServing: Effect.Effect<LeanServe, never, Admission | RequestStats | ServiceConfig> = Effect.map(
  Effect.runtime<Admission | RequestStats | ServiceConfig>(),
  (runtime) => {
    const runFork = Runtime.runFork(runtime)
    return (req, res, answer) => {
      const request = arrivingFromNode(req)
      const fiber = runFork(Effect.uninterruptible(counted(request, admitted(request, interruptibleAnswer(answer), (response) => send(res, response)))))
      const onClose = () => {
        if (!res.writableEnded) fiber.unsafeInterruptAsFork(clientAbortFiberId)
      }
      res.on("close", onClose)
      // Answered, the fiber is let go: a stream's connection lasts long after (leanStreamRoute.ts).
      fiber.addObserver(() => res.off("close", onClose))
    }
  }
)
