// A request's head as the signature checks see it: method, Host, path and query apart, and
// the headers as Node gives them (names lower-cased, repeated fields joined with ", ").
// Every signed route (writes, owner writes, signed reads, the owner-first answers) reads
// its request through this, so they all judge the same head.

import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { AicsRequest } from "../../domain/http/aicsProfile.js"
import type { WriteRequest } from "../../ports/WriteChecks.js"
import type { ArrivingRequest } from "./arrivingRequest.js"

/** The request without its body, headers as received (from the platform's request or Node's, leanWriteRoute.ts). */
export const requestHead = (request: Pick<ArrivingRequest, "method" | "url" | "headers">): Omit<WriteRequest, "body"> => {
  const url = new URL(request.url, "http://x")
  return {
    method: request.method,
    authority: typeof request.headers["host"] === "string" ? request.headers["host"] : undefined,
    path: url.pathname,
    query: url.search.length > 1 ? url.search.slice(1) : "",
    headers: request.headers
  }
}

/** The same head with the header lookup the AICS profile's checks take. */
export const aicsHead = (request: HttpServerRequest.HttpServerRequest): Omit<AicsRequest, "body"> => {
  const head = requestHead(request)
  const headers = request.headers
  return { ...head, headers: (name) => headers[name.toLowerCase()] }
}
