// GET /v2/stream through HttpApi (streamApi.ts): what the lean route (leanStreamRoute.ts)
// declines (a query or Last-Event-ID the schemas refuse, answered 422 here; HEAD) and every
// request when the lean routes are off. The stream itself is the hub's (streamHub.ts); this
// fiber waits for it to end, because HttpApi writes an answer when its handler returns and
// the stream's head is already written: so this route holds its request's fiber for the
// stream's life, which the lean route does not.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type { EventEmitter } from "node:events"
import { Deferred, Effect, Option } from "effect"
import { AicsApi } from "../api.js"
import { markGone, StreamHub } from "../streamHub.js"

export const StreamHandlers = HttpApiBuilder.group(AicsApi, "stream", (handlers) =>
  Effect.gen(function*() {
    const hub = yield* StreamHub
    return handlers.handle("stream", ({ headers, request, urlParams }) =>
      Effect.gen(function*() {
        const opened = yield* hub.open({
          method: request.method,
          acceptEncoding: request.headers["accept-encoding"],
          remoteAddress: Option.getOrUndefined(request.remoteAddress),
          forwardedFor: request.headers["x-forwarded-for"],
          params: urlParams,
          lastEventId: headers["last-event-id"],
          res: NodeHttpServerRequest.toServerResponse(request),
          server: (NodeHttpServerRequest.toIncomingMessage(request).socket as { server?: EventEmitter }).server
        })
        if (opened.answer !== undefined) return opened.answer
        const res = NodeHttpServerRequest.toServerResponse(request)
        // The client's leaving interrupts this fiber (the HTTP server does it) before the
        // stream's own fiber has seen it: the response is marked here too.
        yield* Deferred.await(opened.ended).pipe(Effect.ensuring(Effect.sync(() => markGone(res))))
        // Written and ended by the stream: the server sends nothing more (its response is ignored).
        return HttpServerResponse.empty({ status: 200 })
      }))
  }))
