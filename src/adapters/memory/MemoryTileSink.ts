// TileSink in memory, for fast tests of the application layer: the same contract and the
// same path rules as FsTileSink (tilePath.ts), without durability.

import { Effect, Layer, Option } from "effect"
import { equal } from "../../domain/bytes.js"
import { StorageError } from "../../ports/StorageError.js"
import { TileSink, type Tile } from "../../ports/TileSink.js"
import { checkTilePath, isFullTilePath, uniqueTiles } from "../fs/tilePath.js"

export const MemoryTileSinkLive: Layer.Layer<TileSink> = Layer.sync(TileSink, () => {
  const tiles = new Map<string, Uint8Array>()
  let checkpoint: Uint8Array | undefined

  const writeTiles = (batch: ReadonlyArray<Tile>) =>
    Effect.suspend(() => {
      const unique = uniqueTiles(batch)
      if (unique instanceof StorageError) return Effect.fail(unique)
      // Check the whole batch first, so a refused batch writes nothing, like FsTileSink.
      for (const tile of unique) {
        const existing = tiles.get(tile.path)
        if (isFullTilePath(tile.path) && existing !== undefined && !equal(existing, tile.bytes)) {
          return Effect.fail(new StorageError({
            operation: "writeTiles",
            detail: `full tile ${tile.path} exists with different bytes: refusing to fork the published log`
          }))
        }
      }
      for (const tile of unique) {
        if (!(isFullTilePath(tile.path) && tiles.has(tile.path))) tiles.set(tile.path, tile.bytes.slice())
      }
      return Effect.void
    })

  return TileSink.of({
    writeTiles,
    writeCheckpoint: (note) => Effect.sync(() => {
      checkpoint = note.slice()
    }),
    readTile: (path) =>
      Effect.suspend(() => {
        const problem = checkTilePath("readTile", path)
        if (problem !== undefined) return Effect.fail(problem)
        return Effect.succeed(Option.map(Option.fromNullable(tiles.get(path)), (bytes) => bytes.slice()))
      }),
    readCheckpoint: Effect.sync(() => Option.map(Option.fromNullable(checkpoint), (bytes) => bytes.slice()))
  })
})
