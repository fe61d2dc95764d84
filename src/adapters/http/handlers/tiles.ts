// C2SP tlog-tiles under /tiles/ and the checkpoint at /checkpoint and /tiles/checkpoint
// (the same bytes). Tiles are served exactly as written. A tile's content never changes
// under its path (a partial tile has its width in the path), so every tile and bundle is
// immutable for caches; the checkpoint moves and is never cached.
//
// The checkpoint is the publisher's latest, as app/servedCheckpoint.ts says (and `/` shows).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { ServiceConfig, TILE_PREFIX, tilePrefixes } from "../../../app/ServiceConfig.js"
import { parseTilePath } from "../../../domain/tlog/tile.js"
import { TileSink } from "../../../ports/TileSink.js"
import { Publisher } from "../../../app/Publisher.js"
import { publishedCheckpoint } from "../../../app/servedCheckpoint.js"
import { CosignatureCollector } from "../../../app/CosignatureCollector.js"
import { AicsApi } from "../api.js"
import { NotFound } from "../problem.js"
import { orUnavailable } from "./common.js"

const IMMUTABLE = "public, max-age=31536000, immutable"

export const TilesHandlers = HttpApiBuilder.group(AicsApi, "tiles", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const sink = yield* TileSink
    const publisher = yield* Publisher
    const collector = yield* CosignatureCollector

    const checkpoint = publishedCheckpoint.pipe(
      Effect.provideService(Publisher, publisher),
      Effect.provideService(TileSink, sink),
      Effect.provideService(CosignatureCollector, collector),
      Effect.flatMap(Option.match({
        onNone: () => NotFound.fail("no_checkpoint", "no checkpoint has been published yet"),
        onSome: (note) =>
          Effect.succeed(HttpServerResponse.uint8Array(note, {
            contentType: "text/plain; charset=utf-8",
            headers: { "cache-control": "no-store" }
          }))
      })),
      orUnavailable
    )

    const prefixes = tilePrefixes(config).join("\n") + "\n"

    return handlers
      .handle("checkpoint", () => checkpoint)
      .handle("tilesCheckpoint", () => checkpoint)
      .handle("prefixes", () => Effect.succeed(prefixes))
      .handle("tile", ({ request }) =>
        Effect.gen(function*() {
          const pathname = new URL(request.url, "http://x").pathname
          const path = pathname.slice(TILE_PREFIX.length)
          // Only canonical tile paths reach the sink: one name per tile, nothing else served.
          if (parseTilePath(path) === undefined) return yield* NotFound.fail("tile_not_found", `${path} is not a tile path`)
          const bytes = yield* sink.readTile(path)
          if (Option.isNone(bytes)) return yield* NotFound.fail("tile_not_found", `${path} is not published`)
          return HttpServerResponse.uint8Array(bytes.value, {
            contentType: "application/octet-stream",
            headers: { "cache-control": IMMUTABLE }
          })
        }).pipe(orUnavailable))
  }))
