// What the serve middlewares (admission.ts, countRequests.ts) read of a request before it
// is answered: method, URL, headers and the peer's address. One shape for a request that
// @effect/platform hands them and for one the lean route takes from Node itself
// (leanEntryRoute.ts), so both are admitted and counted by the same code.

import type { IncomingMessage } from "node:http"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Option } from "effect"

export interface ArrivingRequest {
  readonly method: string
  /** The request target: path and query, as received. */
  readonly url: string
  /** Names lower-cased, as Node gives them. */
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The TCP peer, undefined when the socket is gone. */
  readonly remoteAddress: string | undefined
}

export const arrivingFromPlatform = (request: HttpServerRequest.HttpServerRequest): ArrivingRequest => ({
  method: request.method,
  url: request.url,
  headers: request.headers,
  remoteAddress: Option.getOrUndefined(request.remoteAddress)
})

export const arrivingFromNode = (request: IncomingMessage): ArrivingRequest => ({
  method: request.method ?? "GET",
  url: request.url ?? "/",
  headers: request.headers,
  remoteAddress: request.socket.remoteAddress
})

/** One header's value, repeated fields joined with ", " (as Node joins most of them). */
export const headerValue = (request: ArrivingRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === "string" ? value : value?.join(", ")
}

/** A request target's path, without the query. */
export const pathOfUrl = (url: string): string => {
  const query = url.indexOf("?")
  return query < 0 ? url : url.slice(0, query)
}

/** The request's path, without the query. */
export const pathOf = (request: ArrivingRequest): string => pathOfUrl(request.url)
