// SUP (docs/spec/service.md "SUP"; docs/protocol.md section 12): what credits a balance and what it
// buys, the asset descriptor byte for byte, and an account by name.

import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { Sequencer } from "../../../app/Sequencer.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { SupAsset } from "../../../app/SupAsset.js"
import { supAccountOf, supOverview } from "../../../domain/views/supOverview.js"
import { AicsApi } from "../api.js"
import { InvalidRequest, NotFound } from "../problem.js"
import { checkpointCovering } from "./common.js"

export const SupHandlers = HttpApiBuilder.group(AicsApi, "sup", (handlers) =>
  Effect.gen(function*() {
    const sequencer = yield* Sequencer
    const asset = yield* SupAsset
    const { publicUrl } = yield* ServiceConfig
    const covering = yield* checkpointCovering
    const overview = () =>
      Effect.map(sequencer.state, (state) => supOverview(state, { hash: asset.hash, url: `${publicUrl}/v2/sup/asset` }))

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
          const view = supAccountOf(yield* sequencer.state, path.name)
          if (Either.isLeft(view)) {
            return yield* view.left === "name_invalid"
              ? InvalidRequest.fail("name_invalid", `${JSON.stringify(path.name)} is not a name or handle of this instance`)
              : NotFound.fail("name_not_found", `${path.name} is not claimed here`)
          }
          return { ...view.right, checkpoint_note: yield* covering(view.right.size) }
        }))
  }))
