// The HTTP middleware that feeds the owner's statistics (app/RequestStats.ts): as each
// answer goes out it reads the path, whether the request is signed, the user agent and
// Accept (to tell a program, a browser and a crawler apart; Accept is read with its weights
// by the pages' own prefersHtml, so a request is counted as what a page serves it: HTML or
// text), the status and the latency, and bumps one counter. Nothing read here is stored.
// A request that ends in an error the server answers itself (no route: 404) is counted with
// the status it is answered with, and so is a 429 of the `requests` budget (admission.ts),
// which this middleware wraps: a flood refused before any route shows in the statistics and
// in aics_http_requests_total. A client that leaves before its answer is counted 499, as
// @effect/platform answers it, unless the answer's head had gone out already: a live stream
// served through HttpApi (handlers/stream.ts; its head is written by streamHub.ts) that its
// client ends is counted with the 200 it was sent, as a proxy's access log has it, not as
// an error. (The lean stream route, leanStreamRoute.ts, is counted once its head is written.)

import type { ServerResponse } from "node:http"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Exit } from "effect"
import { RequestStats } from "../../app/RequestStats.js"
import { arrivingFromPlatform, type ArrivingRequest, headerValue, pathOf } from "./arrivingRequest.js"
import { prefersHtml } from "./pageResponse.js"

/** The status @effect/platform gives a request whose client left before its answer. */
const CLIENT_LEFT = 499

export const countRequests = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | RequestStats> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => counted(arrivingFromPlatform(request), app, () => statusOfSentHead(request)))

/** The status of the head Node sent for the request, if it sent one. */
const statusOfSentHead = (request: HttpServerRequest.HttpServerRequest): number | undefined => {
  const res: ServerResponse | undefined = NodeHttpServerRequest.toServerResponse(request)
  return res?.headersSent === true ? res.statusCode : undefined
}

/**
 * What countRequests does, for a request however it arrived: `serve`'s answer is counted as
 * it goes out. `sentHead` says the status of a head already sent, for a client that leaves
 * after it.
 */
export const counted = <E, R>(
  request: ArrivingRequest,
  serve: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  sentHead: () => number | undefined = () => undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | RequestStats> =>
  Effect.flatMap(RequestStats, (stats) => {
    const started = performance.now()
    const count = (status: number) =>
      stats.count({
        path: pathOf(request),
        signed: request.headers["signature-input"] !== undefined,
        userAgent: headerValue(request, "user-agent"),
        acceptsHtml: prefersHtml(headerValue(request, "accept")),
        status,
        latencyMs: performance.now() - started
      })
    return Effect.onExit(serve, (exit) =>
      Exit.isSuccess(exit)
        ? count(exit.value.status)
        : Effect.flatMap(HttpServerError.causeResponse(exit.cause), ([response]) =>
          count(response.status === CLIENT_LEFT ? sentHead() ?? CLIENT_LEFT : response.status)))
  })
