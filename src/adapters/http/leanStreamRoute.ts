// GET /v2/stream answered beside HttpApi (the design's "a hot route may be served by a lean
// handler inside the HTTP adapter when a benchmark shows the gain, with the same schemas and
// the same bytes"). Not for its CPU: for what a stream holds while it lasts. Through
// HttpApi, a stream's request fiber waits for the stream's end with the router's and the
// middlewares' frames on its stack, about 40 KB of heap a subscriber; here the request is
// answered once the stream's head is written, and the stream runs in a fiber of the hub's
// own (streamHub.ts; bench/README.md "Session 30").
//
// What does not change, so no client can tell the two paths apart:
//   - which requests: GET of exactly `/v2/stream` whose query and Last-Event-ID the route's
//     own schemas (streamApi.ts StreamUrlParams, StreamHeaders) decode, each parameter once;
//     anything else (HEAD, a refused or repeated parameter, a longer path) goes on to
//     HttpApi, which answers it as before (a 422 problem, HEAD's head);
//   - admission and counting: the serve middlewares' own functions, run by leanServing.ts,
//     so the `requests` budget and its RateLimit fields (on the stream's head too) hold;
//     the request is counted 200 when its head is written (through HttpApi, when the
//     stream ends: its latency there is the stream's life);
//   - the answer: the same hub's `open`, HEAD aside: a 429 too_many_streams as the same
//     problem document after the same tarpit, or the stream.
// test/adapters/http/leanStreamRoute.test.ts holds the answers to HttpApi's.

import type { EventEmitter } from "node:events"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Schema } from "effect"
import { arrivingFromNode, headerValue, pathOfUrl } from "./arrivingRequest.js"
import type { LeanHandler } from "./leanFirst.js"
import { leanServing } from "./leanServing.js"
import { StreamHeaders, StreamUrlParams } from "./streamApi.js"
import { StreamHub } from "./streamHub.js"

const PATH = "/v2/stream"

const decodeParams = Schema.decodeUnknownEither(StreamUrlParams)
const decodeHeaders = Schema.decodeUnknownEither(StreamHeaders)

/** The query's parameters, or undefined when one is repeated (HttpApi then refuses it). */
const singleParams = (url: string): Record<string, string> | undefined => {
  const query = url.indexOf("?")
  if (query < 0) return {}
  const params: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(url.slice(query + 1))) {
    if (Object.hasOwn(params, name)) return undefined
    params[name] = value
  }
  return params
}

/** The stream's query and Last-Event-ID as HttpApi decodes them, or undefined (the request is HttpApi's). */
export const leanStreamRequest = (method: string | undefined, url: string | undefined, lastEventId: string | Array<string> | undefined) => {
  if (method !== "GET" || url === undefined || pathOfUrl(url) !== PATH) return undefined
  const query = singleParams(url)
  if (query === undefined) return undefined
  const params = decodeParams(query)
  const headers = decodeHeaders(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
  return Either.isRight(params) && Either.isRight(headers) ? { params: params.right, lastEventId: headers.right["last-event-id"] } : undefined
}

export const leanStreamRoute = Effect.gen(function*() {
  const hub = yield* StreamHub
  const serve = yield* leanServing
  return ((req, res) => {
    const request = leanStreamRequest(req.method, req.url, req.headers["last-event-id"])
    if (request === undefined) return false
    serve(req, res, Effect.map(hub.open({
      method: "GET",
      acceptEncoding: req.headers["accept-encoding"],
      remoteAddress: req.socket.remoteAddress,
      forwardedFor: headerValue(arrivingFromNode(req), "x-forwarded-for"),
      params: request.params,
      lastEventId: request.lastEventId,
      res,
      server: (req.socket as { server?: EventEmitter }).server
    }), (opened) => opened.answer ?? HttpServerResponse.empty({ status: 200 })))
    return true
  }) satisfies LeanHandler
})
