// Fair admission on the HTTP side (docs/protocol.md "Fair admission"): who the client is (the
// peer, or what trusted proxies say, domain/admission/clientAddress.ts), the per-address
// `requests` budget on every route, and the RateLimit-Policy / RateLimit headers (IETF
// httpapi ratelimit-headers draft) on every answer. A request over budget answers 429
// problem+json with Retry-After and does not reach its handler; write routes answer their
// own signed `rate_limited` refusal for the write budgets (app/EntryWrites.ts), reading the
// client from `currentClient`, which this middleware sets for the request's fiber. Every
// 429 is held AICS_LIMIT_REFUSAL_DELAY_MS (1 s) before it is sent: without it, a flood that
// ignores Retry-After keeps the service busy answering refusals and everyone waits
// (bench/admission.ts measured the polite client's p99 at 6-14x quiet).

import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, FiberRef } from "effect"
import { Admission, type RateLimitFields } from "../../app/Admission.js"
import { ServiceConfig } from "../../app/ServiceConfig.js"
import type { BudgetName } from "../../domain/admission/budgets.js"
import { addressGroup, clientAddressOf, isTrusted, LOOPBACK_PROXIES } from "../../domain/admission/clientAddress.js"
import { arrivingFromPlatform, type ArrivingRequest, headerValue, pathOf } from "./arrivingRequest.js"
import { problemResponse } from "./problem.js"

/**
 * What admission settled for the request being served; undefined outside a request. One
 * FiberRef rather than one a fact: setting a FiberRef copies the fiber's map of every
 * FiberRef set (some 80 in the server's fibers), and Effect.locally sets twice, so three
 * refs cost six copies a request on the write path.
 */
interface AdmittedRequest {
  /** The address group of the request: the subject of its address budgets. */
  readonly client: string
  /** How long this request's 429 is held before it is sent (ms). */
  readonly refusalDelayMs: number
  /**
   * The `requests` budget's RateLimit fields: for a handler that writes its head itself (the
   * live stream), which no pre-response handler reaches.
   */
  readonly rateLimit: RateLimitFields | undefined
}

const CurrentAdmission = FiberRef.unsafeMake<AdmittedRequest | undefined>(undefined)

/** The address group of the request being served; undefined outside a request. */
export const currentClient: Effect.Effect<string | undefined> = Effect.map(FiberRef.get(CurrentAdmission), (admitted) => admitted?.client)

/** The request's client address, trusting the forwarding headers only from AICS_TRUSTED_PROXIES. */
const clientAddressOfRequest = (request: ArrivingRequest, config: typeof ServiceConfig.Service): string =>
  clientAddressOf(
    request.remoteAddress,
    { forwardedFor: headerValue(request, "x-forwarded-for"), forwarded: headerValue(request, "forwarded") },
    config.trustedProxies ?? LOOPBACK_PROXIES
  )

/** The request's client address group (IPv6 by /64): the subject of its address budgets. */
export const clientOfRequest = (request: HttpServerRequest.HttpServerRequest, config: typeof ServiceConfig.Service): string =>
  addressGroup(clientAddressOfRequest(arrivingFromPlatform(request), config))

/** Adds RateLimit fields to a response, after any a handler set (a write's budget comes first). */
export const withRateLimit = (response: HttpServerResponse.HttpServerResponse, fields: RateLimitFields | undefined) => {
  if (fields === undefined) return response
  const policy = response.headers["ratelimit-policy"]
  const limit = response.headers["ratelimit"]
  return HttpServerResponse.setHeaders(response, {
    "ratelimit-policy": policy === undefined ? fields.policy : `${policy}, ${fields.policy}`,
    "ratelimit": limit === undefined ? fields.limit : `${limit}, ${fields.limit}`
  })
}

/**
 * The `requests` budget's RateLimit fields for this request, set by the middleware: for a
 * handler that writes its head itself (the live stream), which no pre-response handler reaches.
 */
export const currentRateLimit: Effect.Effect<RateLimitFields | undefined> = Effect.map(FiberRef.get(CurrentAdmission), (admitted) => admitted?.rateLimit)

/** The RateLimit header fields of `fields` (none when undefined). */
export const rateLimitHeaders = (fields: RateLimitFields | undefined): Record<string, string> =>
  fields === undefined ? {} : { "ratelimit-policy": fields.policy, "ratelimit": fields.limit }

/** Holds a 429 for the request's refusal delay (none outside a request): the tarpit (budgets.ts refusalDelayMs). */
export const tarpit = Effect.flatMap(FiberRef.get(CurrentAdmission), (admitted) =>
  admitted !== undefined && admitted.refusalDelayMs > 0 ? Effect.sleep(admitted.refusalDelayMs) : Effect.void)

/** The 429 problem of a route other than a write, with Retry-After and the RateLimit fields, after the tarpit. */
export const tooManyRequests = (verdict: { readonly retryAfter: number; readonly detail: string; readonly fields: RateLimitFields }) =>
  Effect.zipRight(tarpit, Effect.map(problemResponse({ status: 429, code: "rate_limited", detail: verdict.detail }), (response) =>
    withRateLimit(HttpServerResponse.setHeader(response, "retry-after", String(verdict.retryAfter)), verdict.fields)))

/**
 * Routes that spend a budget of their own besides `requests`, by method and path: keyless
 * routes whose every request holds something (a notice in the register, an intent's slot).
 * The text gate spends its budgets in app/Gate.ts, writes in app/EntryWrites.ts.
 */
const ROUTE_BUDGETS: ReadonlyMap<string, BudgetName> = new Map([
  ["POST /notice", "notices"],
  ["POST /v2/sup/contributions/intents", "intents"]
])

const routeBudget = (method: string, path: string): BudgetName | undefined => ROUTE_BUDGETS.get(`${method} ${path}`)

/**
 * Requests that wait for a turn among their address's (Admission.inTurn): every one but a
 * trusted proxy's own (it carries many clients) and a live stream's, which lasts as long
 * as its client reads and is capped by AICS_STREAMS_PER_ADDRESS instead.
 */
const takesTurns = (path: string, address: string, config: typeof ServiceConfig.Service): boolean =>
  path !== "/v2/stream" && !isTrusted(address, config.trustedProxies ?? LOOPBACK_PROXIES)

/** The middleware: the `requests` budget of the client's address, then the app with what it settled set (CurrentAdmission). */
export const admitRequests = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | Admission | ServiceConfig> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => admitted(arrivingFromPlatform(request), app))

/**
 * What admitRequests does, for a request however it arrived: `serve` runs only if admitted,
 * and in its turn. `deliver` sends the answer, RateLimit fields and all, before the turn
 * ends: the lean routes send it themselves (leanServing.ts), where HttpApi's `serve` has
 * sent it already.
 */
export const admitted = <E, R>(
  request: ArrivingRequest,
  serve: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  deliver: (response: HttpServerResponse.HttpServerResponse) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | Admission | ServiceConfig> =>
  Effect.gen(function*() {
    const admission = yield* Admission
    const config = yield* ServiceConfig
    // A client over budget waits for its answer (budgets.ts refusalDelayMs says why).
    const delay = admission.limits.enabled ? admission.limits.refusalDelayMs : 0
    const address = clientAddressOfRequest(request, config)
    const client = addressGroup(address)
    const path = pathOf(request)
    const route = routeBudget(request.method, path)
    const verdict = yield* (route === undefined ? admission.take("requests", client) : admission.takeAll([[route, client], ["requests", client]]))
    if (!verdict.admitted) {
      const refused = Effect.locally(tooManyRequests(verdict), CurrentAdmission, { client, refusalDelayMs: delay, rateLimit: undefined })
      return yield* Effect.tap(refused, (response) => deliver(response))
    }
    // The app sends its answer itself, so a handler's 429 is held where it is made
    // (tooManyRequests, writeRoute.ts) for as long as the refusal delay says; it keeps its turn
    // meanwhile, so a flood's refusals, too, come a few at a time.
    const fields = verdict.fields
    const served = Effect.locally(serve, CurrentAdmission, { client, refusalDelayMs: delay, rateLimit: fields })
    // HttpApi's app sends its answer before this sees it (@effect/platform's toHandled), so
    // the fields reach that answer as a pre-response handler; a lean route's is delivered
    // with them below.
    if (fields !== undefined) yield* HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(withRateLimit(response, fields)))
    const answered = Effect.flatMap(served, (response) => {
      const fielded = withRateLimit(response, fields)
      return Effect.as(deliver(fielded), fielded)
    })
    return yield* (takesTurns(path, address, config) ? admission.inTurn(client)(answered) : answered)
  })
