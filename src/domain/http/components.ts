// RFC 9421 section 2: the values of the message components a signature can cover.
//   2.1  HTTP fields: the lower-cased field name; the value is each field line's value with
//        leading and trailing whitespace removed and obs-fold replaced by one space, the
//        lines joined with ", ".
//   2.2  Derived components of a request: @method, @target-uri, @authority, @scheme,
//        @request-target, @path, @query. (@query-param, @status and the response-bound
//        `req` forms are not implemented and are refused as unsupported.)
//
// Component identifiers with parameters (sf, key, bs, req, tr, name) are refused: RFC 9421
// section 2.5 requires an error for a parameter the implementation does not apply, and
// AICS signs none. A component value that cannot be written on one line of the signature
// base (CR, LF, non-ASCII) is refused too, so no value can forge an extra line.

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type { Item } from "./structuredFields.js"

/** A header lookup: the caller's lookup must be case-insensitive; names are passed lower case. */
export type HeaderLookup = (name: string) => string | ReadonlyArray<string> | undefined

/** A request as the signature base sees it; values as received. */
export interface HttpRequest {
  readonly method: string
  /** "http" or "https"; needed by @scheme and @target-uri, and to drop a default port. */
  readonly scheme?: string
  /** The Host (HTTP/1.1) or :authority (HTTP/2) as received. */
  readonly authority: string
  /** The path of the request target, without the query. */
  readonly path: string
  /** The query without its "?"; undefined or "" when there is none. */
  readonly query?: string
  readonly headers: HeaderLookup
}

export class ComponentError extends Data.TaggedError("ComponentError")<{
  /** missing: the message has no such component; unsupported: not implemented here; malformed: no valid value or identifier. */
  readonly reason: "missing" | "unsupported" | "malformed"
  readonly detail: string
}> {}

/**
 * A case-insensitive HeaderLookup over a plain record (Node's IncomingHttpHeaders and
 * fetch-style objects alike) or a list of field lines (repeated names are kept in order).
 */
export const headerLookup = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>> | ReadonlyArray<readonly [string, string]>
): HeaderLookup => {
  const byName = new Map<string, Array<string>>()
  const add = (name: string, value: string) => {
    const key = name.toLowerCase()
    const values = byName.get(key) ?? []
    values.push(value)
    byName.set(key, values)
  }
  if (Array.isArray(headers)) {
    for (const [name, value] of headers as ReadonlyArray<readonly [string, string]>) add(name, value)
  } else {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === "string") add(name, value)
      else if (value !== undefined) for (const v of value) add(name, v)
    }
  }
  return (name) => byName.get(name.toLowerCase())
}

const DEFAULT_PORT: Readonly<Record<string, string>> = { http: "80", https: "443" }
// RFC 3986 section 3.2.2: IP-literal or IPv4address/reg-name, then an optional port.
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9\-._~!$&'()*+,;=%]+)(?::([0-9]*))?$/

/**
 * RFC 9421 section 2.2.3 (via RFC 9110 section 4.2.3): the authority in lower case, with
 * an empty port or the scheme's default port left out. Without a scheme the default port
 * is unknown and any non-empty port is kept. Undefined for anything that is not an
 * authority (userinfo, spaces, a path...).
 */
export const normalizeAuthority = (authority: string, scheme?: string): string | undefined => {
  const lower = authority.toLowerCase()
  const match = AUTHORITY.exec(lower)
  if (match === null) return undefined
  const host = match[1]!
  const port = match[2]
  if (port === undefined || port === "") return host
  if (scheme !== undefined && DEFAULT_PORT[scheme.toLowerCase()] === port) return host
  return `${host}:${port}`
}

/** RFC 9421 section 2.1: trim each field line's value, replace obs-fold, join with ", ". */
export const canonicalFieldValue = (value: string | ReadonlyArray<string>): string =>
  (typeof value === "string" ? [value] : value)
    .map((line) => line.replace(/\r\n[ \t]+/g, " ").replace(/^[ \t]+|[ \t]+$/g, ""))
    .join(", ")

// A value on one line of the signature base: printable ASCII and HTAB, no CR or LF.
const ONE_LINE = /^[\x20-\x7e\t]*$/
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PATH = /^[\x21-\x7e]*$/

const malformed = (detail: string) => Either.left(new ComponentError({ reason: "malformed", detail }))
const missing = (detail: string) => Either.left(new ComponentError({ reason: "missing", detail }))

const checkedPath = (request: HttpRequest): Either.Either<string, ComponentError> => {
  if (!PATH.test(request.path) || /[?#]/.test(request.path)) return malformed("the path is not a URI path")
  // 2.2.6: an empty path is the single slash.
  return Either.right(request.path === "" ? "/" : request.path)
}

const checkedQuery = (request: HttpRequest): Either.Either<string, ComponentError> => {
  const query = request.query ?? ""
  if (!PATH.test(query) || query.includes("#")) return malformed("the query is not a URI query")
  return Either.right(query)
}

const authorityOf = (request: HttpRequest): Either.Either<string, ComponentError> => {
  const authority = normalizeAuthority(request.authority, request.scheme)
  return authority === undefined ? malformed("the authority is not host[:port]") : Either.right(authority)
}

const schemeOf = (request: HttpRequest): Either.Either<string, ComponentError> => {
  if (request.scheme === undefined) return missing("the scheme of the request is not known")
  const scheme = request.scheme.toLowerCase()
  return /^[a-z][a-z0-9+\-.]*$/.test(scheme) ? Either.right(scheme) : malformed("not a URI scheme")
}

// 2.2.5 and 2.2.2: the origin-form request target, with "?" only when there is a query.
const requestTarget = (request: HttpRequest): Either.Either<string, ComponentError> =>
  Either.flatMap(checkedPath(request), (path) =>
    Either.map(checkedQuery(request), (query) => (query === "" ? path : `${path}?${query}`))
  )

const derivedValue = (request: HttpRequest, name: string): Either.Either<string, ComponentError> => {
  switch (name) {
    case "@method":
      // 2.2.1: the method as received, case-sensitive, not normalized.
      return TOKEN.test(request.method) ? Either.right(request.method) : malformed("the method is not a token")
    case "@target-uri":
      return Either.flatMap(schemeOf(request), (scheme) =>
        Either.flatMap(authorityOf(request), (authority) =>
          Either.map(requestTarget(request), (target) => `${scheme}://${authority}${target}`)
        )
      )
    case "@authority":
      return authorityOf(request)
    case "@scheme":
      return schemeOf(request)
    case "@request-target":
      return requestTarget(request)
    case "@path":
      return checkedPath(request)
    case "@query":
      // 2.2.7: the query with its leading "?"; a request without one gives "?" alone.
      return Either.map(checkedQuery(request), (query) => `?${query}`)
    default:
      return Either.left(new ComponentError({ reason: "unsupported", detail: `derived component ${name} is not supported` }))
  }
}

/** The name a component identifier names, checked to be a String item without parameters. */
export const componentName = (component: Item): Either.Either<string, ComponentError> => {
  if (component.value._tag !== "String") return malformed("a component identifier is a string")
  const name = component.value.value
  if (component.params.length > 0) {
    return Either.left(
      new ComponentError({ reason: "unsupported", detail: `component parameters are not supported (${name})` })
    )
  }
  if (name === "@signature-params") return malformed("@signature-params cannot be a covered component")
  if (name.startsWith("@")) return Either.right(name)
  // 2.1: a field's component name is its lower-cased field name.
  if (!TOKEN.test(name) || name !== name.toLowerCase()) return malformed(`${JSON.stringify(name)} is not a lower-case field name`)
  return Either.right(name)
}

/** RFC 9421 section 2: the value of one covered component in a request. */
export const componentValue = (request: HttpRequest, component: Item): Either.Either<string, ComponentError> =>
  Either.flatMap(componentName(component), (name) => {
    if (name.startsWith("@")) return derivedValue(request, name)
    const raw = request.headers(name)
    if (raw === undefined || (typeof raw !== "string" && raw.length === 0)) return missing(`no ${name} field`)
    const value = canonicalFieldValue(raw)
    return ONE_LINE.test(value) ? Either.right(value) : malformed(`the ${name} field is not printable ASCII on one line`)
  })
