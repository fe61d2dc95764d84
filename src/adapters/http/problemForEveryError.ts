// Every error answer carries a problem document (issue 13 item 10; docs/spec/profile.md
// section 7): the router's own answers (no route matches: 404; a route without this
// method: 404 as well, since the router does not tell them apart) and any 4xx or 5xx a
// layer below answered with an empty body get an application/problem+json body with a
// code, so a client always learns what went wrong. Answers that already carry a body
// (the handlers' problems, signed refusals, the gate's text) pass through untouched.
//
// A person's browser asking for a page gets the same problem as a small HTML page
// (problemAsPage, applied by pageDelivery.ts to the error answers of the page routes only).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect } from "effect"
import { errorPageDocument, type ShownProblem } from "../../domain/pages/errorPage.js"
import { PAGE_SECURITY_HEADERS } from "./pageResponse.js"
import { PROBLEM_CONTENT_TYPE } from "./problem.js"
import { HTML } from "./textDocument.js"

const TITLES: Record<number, readonly [string, string]> = {
  400: ["Bad request", "bad_request"],
  401: ["Unauthorized", "unauthorized"],
  403: ["Forbidden", "forbidden"],
  404: ["Not found", "not_found"],
  405: ["Method not allowed", "method_not_allowed"],
  408: ["Request timeout", "request_timeout"],
  413: ["Content too large", "body_too_large"],
  415: ["Unsupported media type", "unsupported_media_type"],
  429: ["Too many requests", "rate_limited"],
  500: ["Internal error", "internal"],
  503: ["Service unavailable", "unavailable"]
}

/** The problem document of `status` when nothing more is known than the status. */
export const bareProblem = (status: number, detail: string) => {
  const [title, code] = TITLES[status] ?? (status >= 500 ? ["Server error", "internal"] : ["Client error", "client_error"])
  return HttpServerResponse.unsafeJson({ type: `urn:aics:error:${code}`, title, status, code, detail }, {
    status,
    contentType: PROBLEM_CONTENT_TYPE
  })
}

const isEmpty = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Empty" || (response.body._tag === "Uint8Array" && response.body.body.length === 0)

/** An error answer with an empty body, given its problem document (the router's 404s included). */
export const explained = (response: HttpServerResponse.HttpServerResponse) =>
  response.status >= 400 && isEmpty(response)
    ? bareProblem(response.status, response.status === 404 ? "no route answers this method and path" : "the request was not answered")
    : response

/** The server's own failures (no route, an unreadable request), which it would answer with an empty body. */
const isServerOwn = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  const tag = failure._tag === "Some" ? (failure.value as { readonly _tag?: unknown } | undefined)?._tag : undefined
  return tag === "RouteNotFound" || tag === "RequestError"
}

/**
 * The app with its empty error answers explained. The handlers' declared errors pass on to
 * HttpApi, which encodes them as their schemas say; a defect is logged with its cause on
 * its way to the 500 (it must never pass unseen).
 */
export const problemForEveryError = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  app.pipe(
    Effect.map(explained),
    Effect.catchAllCause((cause) =>
      isServerOwn(cause)
        ? Effect.map(HttpServerError.causeResponse(cause), ([response]) => explained(response))
        : Cause.isDie(cause)
        ? Effect.zipRight(Effect.logError("a request failed", cause), Effect.failCause(cause))
        : Effect.failCause(cause))
  )

/**
 * As an HttpApi middleware, around the router: the server's own error handling answers
 * (and sends) a failure before any serve middleware could change it.
 */
export const ProblemForEveryError = HttpApiBuilder.middleware((app) => problemForEveryError(app) as typeof app)

/** The members of a problem document a page shows, when `json` is one. */
const shownProblem = (json: unknown): ShownProblem | undefined => {
  if (typeof json !== "object" || json === null) return undefined
  const { status, title, code, detail, errors } = json as Record<string, unknown>
  if (typeof status !== "number" || typeof title !== "string" || typeof code !== "string" || typeof detail !== "string") return undefined
  const issues = Array.isArray(errors)
    ? errors.flatMap((e) => (typeof e?.path === "string" && typeof e?.message === "string" ? [{ path: e.path as string, message: e.message as string }] : []))
    : undefined
  return { status, title, code, detail, ...(issues === undefined ? {} : { errors: issues }) }
}

/**
 * A problem answer as the HTML page a person reads (domain/pages/errorPage.ts), for the page
 * at `path`: the same status and headers (Retry-After, Vary), the page's security headers,
 * never stored. Undefined when the answer carries no problem document.
 */
export const problemAsPage = (response: HttpServerResponse.HttpServerResponse, path: string): HttpServerResponse.HttpServerResponse | undefined => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.startsWith(PROBLEM_CONTENT_TYPE)) return undefined
  let problem: ShownProblem | undefined
  try {
    problem = shownProblem(JSON.parse(new TextDecoder().decode(body.body)))
  } catch {
    return undefined
  }
  if (problem === undefined) return undefined
  const { "content-type": _type, "content-length": _length, ...kept } = response.headers
  return HttpServerResponse.text(errorPageDocument(path, problem), {
    status: response.status,
    contentType: HTML,
    headers: { ...kept, "cache-control": "no-store", ...PAGE_SECURITY_HEADERS }
  })
}
