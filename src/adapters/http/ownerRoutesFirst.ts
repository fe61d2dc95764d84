// The owner's routes answer a stranger 401 or 403 before anything else (docs/spec/service.md
// "Authentication" 5; docs/protocol.md 12.5). HttpApi decodes a route's path and query
// parameters before its handler runs, and the router answers an unknown path or method
// itself, so a parameter fault (422) or a missing route (404) would otherwise reach an
// unsigned client first and tell it what the owner's routes take. Under /v2/admin/, such an
// answer is given only to a request whose head carries the owner's valid signature (the
// body unread, no nonce spent: the handler's whole check comes later when there is a
// handler); anyone else gets the 401 or 403 problem of the signature. A route whose
// handler runs checks the signature first itself.

import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpApp from "@effect/platform/HttpApp"
import { Effect } from "effect"
import { Charter } from "../../app/Charter.js"
import { ownerHeadRefusal } from "../../app/ownerSignature.js"
import { ServiceConfig } from "../../app/ServiceConfig.js"
import { OWNER_ROUTE_PREFIX } from "../../domain/http/signedRoutes.js"
import { refusalStatus } from "../../domain/write/refusal.js"
import { Clock } from "../../ports/Clock.js"
import { Crypto } from "../../ports/Crypto.js"
import { problemResponse } from "./problem.js"
import { aicsHead } from "./requestHead.js"

/** Failures answered before a handler runs: the schemas' decode error and the router's no-route. */
const BEFORE_HANDLER: ReadonlySet<unknown> = new Set(["HttpApiDecodeError", "RouteNotFound"])
const beforeHandler = (error: unknown): boolean => BEFORE_HANDLER.has((error as { _tag?: unknown } | undefined)?._tag)

/** Wraps the API: on an owner route, a failure from before the handler is first an owner check. */
export const ownerRoutesFirst = Effect.gen(function*() {
  const config = yield* ServiceConfig
  const crypto = yield* Crypto
  const clock = yield* Clock
  const owner = { ownerKid: (yield* Charter).terms.ownerKid, authorities: config.authorities, ed25519: crypto.ed25519, sha256: crypto.sha256 }
  return <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.catchIf(app, beforeHandler, (error) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const head = aicsHead(request)
        if (!head.path.startsWith(OWNER_ROUTE_PREFIX)) return yield* Effect.fail(error)
        const refusal = ownerHeadRefusal(owner, head, Math.floor((yield* clock.nowMillis) / 1000))
        if (refusal === undefined) return yield* Effect.fail(error)
        return yield* problemResponse({ status: refusalStatus(refusal.code), code: refusal.code, detail: refusal.detail })
      })) as HttpApp.Default<E, R>
})
