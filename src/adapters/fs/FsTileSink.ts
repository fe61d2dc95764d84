// TileSink on a local folder: each tile is the file <directory>/<path>, the checkpoint is
// <directory>/checkpoint, so any static file server can publish the folder as it is.
//
// Durability and atomicity come from durableWrite.ts: temporary file, fsync, rename, fsync
// of the folder (and of new parent folders), on the writer's own thread. A reader therefore
// sees a whole tile or none, and the old checkpoint or the new one.
//
// Full tiles (paths without ".p/") never change once written: a full tile that exists is
// compared with the new bytes instead of being rewritten. Equal bytes are skipped; different
// bytes mean the log would fork, so the batch fails and nothing of it is written. Partial
// tiles are written the same atomic way and never deleted, so the tiles of every published
// size stay readable. Writes are serialized so that the check and the write of a full tile
// cannot interleave with another batch's.

import { join } from "node:path"
import { Effect, Layer } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { TileSink, type Tile } from "../../ports/TileSink.js"
import { makeDurableWriter } from "./durableWrite.js"
import { readOptionalFile } from "./readOptional.js"
import { checkTilePath, isFullTilePath, uniqueTiles } from "./tilePath.js"

const CHECKPOINT = "checkpoint"

export const FsTileSinkLive = (directory: string): Layer.Layer<TileSink, StorageError> =>
  Layer.scoped(
    TileSink,
    Effect.gen(function*() {
      const writer = yield* makeDurableWriter(directory)
      const fileOf = (path: string) => join(writer.root, ...path.split("/"))
      const writes = yield* Effect.makeSemaphore(1)

      const writeTiles = (tiles: ReadonlyArray<Tile>) =>
        writes.withPermits(1)(Effect.gen(function*() {
          const unique = uniqueTiles(tiles)
          if (unique instanceof StorageError) return yield* unique
          // A full tile that exists is compared, not rewritten (see the header).
          yield* writer.write(unique.map((tile) => ({ path: fileOf(tile.path), bytes: tile.bytes, immutable: isFullTilePath(tile.path) })))
        }))

      return {
        writeTiles,
        writeCheckpoint: (note: Uint8Array) =>
          writes.withPermits(1)(writer.write([{ path: fileOf(CHECKPOINT), bytes: note }])),
        readTile: (path: string) => {
          const problem = checkTilePath("readTile", path)
          return problem === undefined ? readOptionalFile("readTile", fileOf(path)) : Effect.fail(problem)
        },
        readCheckpoint: readOptionalFile("readCheckpoint", fileOf(CHECKPOINT))
      }
    })
  )
