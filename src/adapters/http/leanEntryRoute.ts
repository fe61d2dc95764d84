// GET /v2/entries/{index}, the log's hottest read, answered beside HttpApi rather than
// through it: the design's "a hot route may be served by a lean handler inside the HTTP
// adapter when a benchmark shows the gain, with the same schemas and the same bytes".
// HttpApi's machinery around each request (the platform's request object, the router, the
// path schema, the API's middlewares) cost about 0.2 ms of CPU a request on bench/
// scaleTraffic's machine, as much as building the bundle itself; a lean answer costs a
// fraction of it (bench/README.md "Session 13").
//
// What does not change, so no client can tell the two paths apart:
//   - which requests: GET of `/v2/entries/` and an index the path schema accepts
//     (params.ts decimalInt), whatever the query (HttpApi ignores it on this route); any
//     other request (HEAD, "007", "%31", a longer path) goes on to HttpApi unchanged;
//   - admission and counting: the serve middlewares' own functions (admission.ts
//     `admitted`: the `requests` budget, the address's turn, the RateLimit fields;
//     countRequests.ts `counted`);
//   - the answer: the same bundle (entryBundle.ts) and response (entries.ts entryResponse);
//     the route's declared errors (404 entry_not_found, 503 not_yet_published or
//     storage_unavailable) as the same problem documents; a defect logged as
//     problemForEveryError.ts logs it and answered as the platform answers it; written to
//     Node as @effect/platform-node writes a response (its status, headers and bytes).
// test/adapters/http/leanEntryRoute.test.ts holds the answers byte for byte to HttpApi's.

import type { IncomingMessage, ServerResponse } from "node:http"
import { HttpServerError, type HttpServerResponse } from "@effect/platform"
import { clientAbortFiberId } from "@effect/platform/HttpServerError"
import { Cause, Effect, Runtime } from "effect"
import type { Admission } from "../../app/Admission.js"
import type { RequestStats } from "../../app/RequestStats.js"
import type { ServiceConfig } from "../../app/ServiceConfig.js"
import { arrivingFromNode, pathOfUrl } from "./arrivingRequest.js"
import { admitted } from "./admission.js"
import { counted } from "./countRequests.js"
import { entryBundles } from "./handlers/entryBundle.js"
import { entryResponse } from "./handlers/entries.js"
import { orUnavailable } from "./handlers/common.js"
import type { LeanHandler } from "./leanFirst.js"
import { decimalInt } from "./params.js"
import { problemResponse } from "./problem.js"

const PREFIX = "/v2/entries/"

/** The index of a request this route answers, or undefined (the request is HttpApi's). */
export const leanEntryIndex = (method: string | undefined, url: string | undefined): number | undefined =>
  method === "GET" && url?.startsWith(PREFIX) === true ? decimalInt(pathOfUrl(url).slice(PREFIX.length)) : undefined

/** Writes a response as @effect/platform-node's handleResponse does (this route makes only byte bodies or none). */
const send = (res: ServerResponse, response: HttpServerResponse.HttpServerResponse) => {
  if (res.writableEnded) return
  res.writeHead(response.status, response.headers)
  if (response.body._tag === "Uint8Array") res.end(response.body.body)
  else res.end()
}

export const leanEntryRoute = Effect.gen(function*() {
  const bundleOf = yield* entryBundles
  const runFork = Runtime.runFork(yield* Effect.runtime<Admission | RequestStats | ServiceConfig>())

  const answerOf = (req: IncomingMessage, res: ServerResponse, index: number) => {
    const request = arrivingFromNode(req)
    const answer = Effect.flatMap(bundleOf(index), entryResponse).pipe(
      orUnavailable,
      Effect.catchAll((problem) => problemResponse(problem))
    )
    return Effect.matchCauseEffect(counted(request, admitted(request, answer)), {
      onSuccess: (response) => Effect.sync(() => send(res, response)),
      onFailure: (cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.void : Effect.zipRight(
          Effect.logError("a request failed", cause),
          Effect.flatMap(HttpServerError.causeResponse(cause), ([response]) => Effect.sync(() => send(res, response)))
        )
    })
  }

  return ((req, res) => {
    const index = leanEntryIndex(req.method, req.url)
    if (index === undefined) return false
    const fiber = runFork(answerOf(req, res, index))
    // A client gone before its answer stops the work, as the platform's handler does.
    res.on("close", () => {
      if (!res.writableEnded) fiber.unsafeInterruptAsFork(clientAbortFiberId)
    })
    return true
  }) satisfies LeanHandler
})
