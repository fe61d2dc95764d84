// The list of endpoints the discovery documents publish (docs/spec/service.md "Discovery":
// /llms-full.txt "every endpoint with its signature requirement", /manifest.json "exactly
// which endpoints verify RFC 9421"). It is derived, never typed: the paths come from the
// API's OpenAPI document (the one /openapi.json serves, generated from the schemas that
// validate), and the signature of each from the declaration in domain/http/signedRoutes.ts.

import { signatureRequirement, type SignatureRequirement } from "../http/signedRoutes.js"

export interface Endpoint {
  /** Upper-case HTTP method. */
  readonly method: string
  /** OpenAPI path template, e.g. `/v2/entries/{index}`. */
  readonly path: string
  readonly signature: SignatureRequirement
  /** The operation's description in the OpenAPI document, if any (one line). */
  readonly description: string | undefined
}

/** The part of an OpenAPI document this reads: `paths` with their operations. */
export interface OpenApiPaths {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

const oneLine = (text: unknown): string | undefined =>
  typeof text === "string" && text.trim() !== "" ? text.replace(/\s+/g, " ").trim() : undefined

/** Every operation of the document, in its order, with its signature requirement. */
export const endpointsOf = (spec: OpenApiPaths): ReadonlyArray<Endpoint> =>
  Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): Endpoint => {
        const upper = method.toUpperCase()
        const op = operation as { readonly description?: unknown; readonly summary?: unknown } | undefined
        return { method: upper, path, signature: signatureRequirement(upper, path), description: oneLine(op?.description ?? op?.summary) }
      }))

/** The endpoints that verify an RFC 9421 signature. */
export const signedEndpoints = (endpoints: ReadonlyArray<Endpoint>): ReadonlyArray<Endpoint & { readonly signature: "key" | "owner" }> =>
  endpoints.filter((endpoint): endpoint is Endpoint & { readonly signature: "key" | "owner" } => endpoint.signature !== "none")

/** Whether a GET route with this template is a plain document (no path parameter). */
export const isFixedPath = (path: string): boolean => !/[{*]/.test(path)
