// The charter document that leaf 0 names, byte for byte, at /charter and /v2/charter.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Charter } from "../../../app/Charter.js"
import { AicsApi } from "../api.js"

export const DiscoveryHandlers = HttpApiBuilder.group(AicsApi, "discovery", (handlers) =>
  Effect.gen(function*() {
    const charter = yield* Charter
    const response = () =>
      Effect.succeed(HttpServerResponse.uint8Array(charter.document, {
        contentType: "text/markdown; charset=utf-8",
        headers: { "cache-control": "public, max-age=3600" }
      }))
    return handlers.handle("charter", response).handle("charterV2", response)
  }))
