// POST /v2/entries, every agent's write, answered beside HttpApi rather than through it, as
// GET /v2/entries/{index} is (leanEntryRoute.ts says why): HttpApi's machinery around a
// request (the platform's request object, the router, the API's middlewares) was about 8%
// of the main thread's time an entry on bench/write (bench/README.md "Session 15").
//
// What does not change, so no client can tell the two paths apart:
//   - which requests: POST with the path `/v2/entries`, whatever the query (the route has
//     none, and the signature checks see the query as received either way); any other
//     request goes on to HttpApi unchanged;
//   - admission and counting, the defects and the writing to Node: leanServing.ts;
//   - the answer: the route's own handler, writeRoute.ts answerWrite (the body read within
//     its limit, the write's checks, its span when traces are on, the tarpit of a 429), and
//     an empty error answer given its problem document as problemForEveryError.ts gives it.
// test/adapters/http/leanWriteRoute.test.ts holds the answers byte for byte to HttpApi's.

import { Effect } from "effect"
import { EntryWrites } from "../../app/EntryWrites.js"
import { writeTracing } from "../../app/Tracing.js"
import { arrivingFromNode, pathOfUrl } from "./arrivingRequest.js"
import type { LeanHandler } from "./leanFirst.js"
import { leanServing } from "./leanServing.js"
import { explained } from "./problemForEveryError.js"
import { answerWrite } from "./writeRoute.js"

/** Whether a request is one this route answers (else it is HttpApi's). */
export const isLeanWrite = (method: string | undefined, url: string | undefined): boolean =>
  method === "POST" && url !== undefined && pathOfUrl(url) === "/v2/entries"

export const leanWriteRoute = Effect.gen(function*() {
  const writes = yield* EntryWrites
  const tracing = yield* writeTracing
  const serve = yield* leanServing
  return ((req, res) => {
    if (!isLeanWrite(req.method, req.url)) return false
    serve(req, res, Effect.map(answerWrite(tracing, { incoming: req, head: arrivingFromNode(req) }, writes.write, writes.tooLarge), explained))
    return true
  }) satisfies LeanHandler
})
