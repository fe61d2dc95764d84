// The HTTP side of signed reads: the request as the AICS profile sees it (method, Host,
// path, query, headers, empty body) and the refusal as problem+json with the code's status.

import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { SignedReads } from "../../app/SignedReads.js"
import { Conflict, Unauthorized, Unavailable } from "./problem.js"
import { aicsHead } from "./requestHead.js"

/** The key that signed this GET, or the 401 (409 for a replayed nonce) problem. */
export const signedBy = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(SignedReads, (reads) =>
    reads.authenticate({ ...aicsHead(request), body: new Uint8Array(0) }).pipe(Effect.mapError((refusal) =>
      refusal.status === 409 ? Conflict.of(refusal.code, refusal.detail)
        : refusal.status === 503 ? Unavailable.of(refusal.code, refusal.detail)
        : Unauthorized.of(refusal.code, refusal.detail))))
