// What the discovery handlers need to know, gathered once: the instance's facts (settings
// and leaf 0) and the endpoint list derived from the API's own OpenAPI document, the one
// /openapi.json serves (domain/discovery/endpoints.ts).

import * as OpenApi from "@effect/platform/OpenApi"
import { Effect } from "effect"
import { Charter } from "../../app/Charter.js"
import { gatePortsOf, ServiceConfig, tilePrefixes } from "../../app/ServiceConfig.js"
import { DEFAULT_LIMITS } from "../../domain/admission/budgets.js"
import { endpointsOf, type Endpoint } from "../../domain/discovery/endpoints.js"
import type { SiteFacts } from "../../domain/discovery/site.js"
import { AicsApi } from "./api.js"

let document: OpenApi.OpenAPISpec | undefined
let endpoints: ReadonlyArray<Endpoint> | undefined

/**
 * The OpenAPI document of the API, as /openapi.json serves it: computed once for the
 * process (OpenApi.fromApi also keeps it per API, so the middleware shares it).
 */
export const openApiDocument = (): OpenApi.OpenAPISpec => (document ??= OpenApi.fromApi(AicsApi))

/** Every endpoint of the API with its signature requirement, derived once. */
export const apiEndpoints = (): ReadonlyArray<Endpoint> => (endpoints ??= endpointsOf(openApiDocument()))

export const siteFacts = Effect.gen(function*() {
  const config = yield* ServiceConfig
  const { terms } = yield* Charter
  const facts: SiteFacts = {
    publicUrl: config.publicUrl,
    domain: terms.instanceDomain,
    origin: terms.origin,
    tilePrefixes: tilePrefixes(config),
    apiVersion: openApiDocument().info.version,
    gatePorts: gatePortsOf(config),
    limits: config.limits ?? DEFAULT_LIMITS,
    clientSource: config.clientSource
  }
  return facts
})
