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
//     countRequests.ts `counted`), run by leanServing.ts;
//   - the answer: the same bundle (entryBundle.ts) and response (entries.ts entryResponse);
//     the route's declared errors (404 entry_not_found, 503 not_yet_published or
//     storage_unavailable) as the same problem documents; a defect, and the writing to
//     Node, as leanServing.ts says.
// test/adapters/http/leanEntryRoute.test.ts holds the answers byte for byte to HttpApi's.

import { Effect } from "effect"
import { pathOfUrl } from "./arrivingRequest.js"
import { entryBundles } from "./handlers/entryBundle.js"
import { entryResponse } from "./handlers/entries.js"
import { orUnavailable } from "./handlers/common.js"
import type { LeanHandler } from "./leanFirst.js"
import { leanServing } from "./leanServing.js"
import { decimalInt } from "./params.js"
import { problemResponse } from "./problem.js"

const PREFIX = "/v2/entries/"

/** The index of a request this route answers, or undefined (the request is HttpApi's). */
export const leanEntryIndex = (method: string | undefined, url: string | undefined): number | undefined =>
  method === "GET" && url?.startsWith(PREFIX) === true ? decimalInt(pathOfUrl(url).slice(PREFIX.length)) : undefined

export const leanEntryRoute = Effect.gen(function*() {
  const bundleOf = yield* entryBundles
  const serve = yield* leanServing
  return ((req, res) => {
    const index = leanEntryIndex(req.method, req.url)
    if (index === undefined) return false
    serve(req, res, Effect.flatMap(bundleOf(index), entryResponse).pipe(
      orUnavailable,
      Effect.catchAll((problem) => problemResponse(problem))
    ))
    return true
  }) satisfies LeanHandler
})
