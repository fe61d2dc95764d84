// How the answers of the page routes travel (docs/protocol.md 15.4, 18), in one place
// around the whole app (server.ts): HttpApi encodes a handler's declared error (a 404
// post_not_found, a 422 of a bad parameter) only after every API middleware, and the app a
// serve middleware wraps has sent its answer by the time it returns, so this changes the
// answer as a pre-response handler (as admission.ts adds its RateLimit fields):
//
// - an error answer of a page (admission's 429 too) goes to a browser as a small HTML page
//   (problemAsPage) with the same status and headers; any other client (an Accept of `*/*`, application/json,
//   application/problem+json, none at all) keeps the problem document byte for byte. Both
//   say `Vary: Accept`;
// - a 200 carries a strong ETag, a hash of its bytes, and answers a matching
//   If-None-Match with 304 and no body;
// - a client that takes gzip gets the bytes gzipped (sharedGzip.ts), under an ETag of its
//   own (a strong validator names one sequence of bytes), with `Vary: Accept-Encoding`.
//
// A page route is a GET route that takes `format` (/openapi.json says which); a path that no
// route serves, outside the machine prefixes (/v2/, /tiles/, /.well-known/), counts as a
// page a person mistyped. Everything else passes untouched.

import { createHash } from "node:crypto"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { errorAsPage } from "./pageResponse.js"
import { problemAsPage } from "./problemForEveryError.js"
import { gzipWhole } from "./sharedGzip.js"
import { acceptsGzip } from "./sseWire.js"
import { openApiDocument } from "./siteFacts.js"

/** Below this many bytes gzip saves less than its own header and trailer cost to read. */
const GZIP_MIN_BYTES = 256

const MACHINE_PREFIXES = ["/v2/", "/tiles/", "/.well-known/"]

const templateRegExp = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.+?^$()|[\]\\*]/g, "\\$&").replace(/\{[^}]*\}/g, "[^/]+")}$`)

/** Which paths are pages: from the API's own description, once. */
export const pagePaths = (paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>) => {
  const pages: Array<RegExp> = []
  const routes: Array<RegExp> = []
  for (const [template, operations] of Object.entries(paths)) {
    const pattern = templateRegExp(template)
    routes.push(pattern)
    const get = operations["get"] as { readonly parameters?: ReadonlyArray<{ readonly name?: string; readonly in?: string }> } | undefined
    if (get?.parameters?.some((p) => p.name === "format" && p.in === "query") === true) pages.push(pattern)
  }
  // A tile path has slashes of its own: /tiles/tile/{tile_path} is all of /tiles/ anyway.
  return (path: string): boolean =>
    pages.some((p) => p.test(path)) ||
    (!MACHINE_PREFIXES.some((prefix) => path.startsWith(prefix)) && path !== "/openapi.json" && !routes.some((p) => p.test(path)))
}

/** A strong entity tag of these bytes: 128 bits of their SHA-256, base64url. */
export const entityTag = (bytes: Uint8Array, coding?: "gzip"): string =>
  `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}${coding === undefined ? "" : `-${coding}`}"`

/** Whether If-None-Match names `tag` (weak comparison, RFC 9110 13.1.2) or is `*`. */
export const noneMatch = (ifNoneMatch: string | undefined, tag: string): boolean => {
  if (ifNoneMatch === undefined) return false
  const opaque = tag.replace(/^W\//, "")
  return ifNoneMatch.split(",").some((item) => {
    const candidate = item.trim()
    return candidate === "*" || candidate.replace(/^W\//, "") === opaque
  })
}

/** The Vary header with `names` added, each once. */
const varyWith = (vary: string | undefined, ...names: ReadonlyArray<string>): string => {
  const present = (vary ?? "").split(",").map((v) => v.trim()).filter((v) => v !== "")
  for (const name of names) if (!present.some((v) => v.toLowerCase() === name.toLowerCase() || v === "*")) present.push(name)
  return present.join(", ")
}

/** A page's 200 with its validator, as a 304 when the client holds it, gzipped when it takes gzip. */
const validated = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag !== "Uint8Array" || response.headers["etag"] !== undefined || response.headers["content-encoding"] !== undefined) return response
  const gzip = body.body.length >= GZIP_MIN_BYTES && acceptsGzip(request.headers["accept-encoding"])
  const tag = entityTag(body.body, gzip ? "gzip" : undefined)
  const headers = { etag: tag, vary: varyWith(response.headers["vary"], "Accept-Encoding") }
  if (noneMatch(request.headers["if-none-match"], tag)) {
    const { "content-type": _type, "content-length": _length, ...kept } = response.headers
    return HttpServerResponse.empty({ status: 304, headers: { ...kept, ...headers } })
  }
  if (!gzip) return HttpServerResponse.setHeaders(response, headers)
  return HttpServerResponse.setBody(
    HttpServerResponse.setHeaders(response, { ...headers, "content-encoding": "gzip" }),
    HttpBody.uint8Array(gzipWhole(body.body), body.contentType)
  )
}

/** The answer of a page's request, as the comment at the top says. */
const delivered = (request: HttpServerRequest.HttpServerRequest, path: string, format: string | null, response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  if (response.status === 200) return validated(request, response)
  if (response.status < 400) return response
  const varied = HttpServerResponse.setHeader(response, "vary", varyWith(response.headers["vary"], "Accept"))
  if (!errorAsPage(format ?? undefined, request.headers["accept"])) return varied
  return problemAsPage(varied, path) ?? varied
}

/**
 * The path of a request target as the router matches it: origin form (`/agora?x`) or absolute
 * form, percent-decoded, since the router decodes before it matches (`/%762/agora/posts` is
 * the API's `/v2/agora/posts`, and must pass as untouched as the plain form).
 */
export const pathOf = (target: string): string | undefined => {
  let path: string
  if (target.startsWith("/")) {
    const end = target.search(/[?#]/)
    path = end < 0 ? target : target.slice(0, end)
  } else {
    try {
      path = new URL(target).pathname
    } catch {
      return undefined
    }
  }
  if (!path.includes("%")) return path
  try {
    return decodeURIComponent(path)
  } catch {
    // Not decodable: the router refuses it too; nothing here to deliver.
    return undefined
  }
}

/**
 * The app with its page routes answered as above. A serve middleware (server.ts), around
 * admission too, so that a page's 429 (Retry-After kept) reaches a browser as a page as well.
 */
export const deliverPages = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> => {
  let isPage: ((path: string) => boolean) | undefined
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return app
    const path = pathOf(request.url)
    // The API's reads are most of the traffic: no page is under these.
    if (path === undefined || MACHINE_PREFIXES.some((prefix) => path.startsWith(prefix))) return app
    isPage ??= pagePaths(openApiDocument().paths as unknown as Readonly<Record<string, Readonly<Record<string, unknown>>>>)
    if (!isPage(path)) return app
    const format = formatOf(request.url)
    // The routes' answers (and a failure's) are sent by the app itself, through its
    // pre-response handlers; an answer given without the app (admission's 429) is sent from
    // what this returns, so it is changed here, once, whichever way it goes.
    let changed = false
    const deliver = (response: HttpServerResponse.HttpServerResponse) => {
      changed = true
      return delivered(request, path, format, response)
    }
    return Effect.zipRight(
      HttpApp.appendPreResponseHandler((_, response) => Effect.sync(() => deliver(response))),
      Effect.map(app, (response) => (changed ? response : deliver(response)))
    )
  })
}

/** The `format` query parameter, if given. */
const formatOf = (target: string): string | null => {
  const query = target.indexOf("?")
  return query < 0 ? null : new URLSearchParams(target.slice(query + 1).split("#")[0]).get("format")
}
