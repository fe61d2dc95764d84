// SUP (docs/spec/service.md "SUP"; docs/protocol.md section 12): what credits a balance and what it
// buys, the asset descriptor byte for byte, and an account by name.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either } from "effect"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { StateReader } from "../../../app/StateReader.js"
import { SupAsset } from "../../../app/SupAsset.js"
import { supAccountFrom, supOverviewFrom } from "../../../app/supViews.js"
import { AicsApi } from "../api.js"
import { InvalidRequest, NotFound } from "../problem.js"
import { checkpointCovering, orUnavailable } from "./common.js"

export const SupHandlers = HttpApiBuilder.group(AicsApi, "sup", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const asset = yield* SupAsset
    const { publicUrl } = yield* ServiceConfig
    const covering = yield* checkpointCovering
    const overview = () => supOverviewFrom(reader, { hash: asset.hash, url: `${publicUrl}/v2/sup/asset` }).pipe(orUnavailable)

    return handlers
      .handle("sup", overview)
      .handle("support", overview)
      .handle("asset", () =>
        Effect.succeed(HttpServerResponse.uint8Array(asset.bytes, {
          contentType: "application/json",
          headers: { "x-aics-asset-sha256": asset.hash, "cache-control": "public, max-age=3600" }
        })))
      .handle("account", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* supAccountFrom(reader, path.name)
          if (Either.isLeft(view)) {
            return yield* view.left === "name_invalid"
              ? InvalidRequest.fail("name_invalid", `${JSON.stringify(path.name)} is not a name or handle of this instance`)
              : NotFound.fail("name_not_found", `${path.name} is not claimed here`)
          }
          return { ...view.right, checkpoint_note: yield* covering(view.right.size) }
        }).pipe(orUnavailable))
  }))
