// Where the log is published for verifiers: C2SP tlog-tiles (hash tiles and entry
// bundles) and the signed checkpoint, under one prefix. Paths are relative to the prefix,
// for example "tile/0/x001/234.p/5", "tile/entries/000" and "checkpoint".
//
// Contract (test/ports/TileSink.contract.ts):
// - writeTiles is durable when it succeeds; a full tile that exists is never rewritten;
//   the partial tiles of every published size are kept.
// - writeCheckpoint is called after the tiles it covers are durable, and replaces the
//   checkpoint atomically: a reader sees the old bytes or the new, never a mix.

import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export interface Tile {
  /** Path under the prefix, "tile/<L>/<N>[.p/<W>]" or "tile/entries/<N>[.p/<W>]". */
  readonly path: string
  readonly bytes: Uint8Array
}

export class TileSink extends Context.Tag("aics/TileSink")<TileSink, {
  readonly writeTiles: (tiles: ReadonlyArray<Tile>) => Effect.Effect<void, StorageError>
  readonly writeCheckpoint: (note: Uint8Array) => Effect.Effect<void, StorageError>
  readonly readTile: (path: string) => Effect.Effect<Option.Option<Uint8Array>, StorageError>
  readonly readCheckpoint: Effect.Effect<Option.Option<Uint8Array>, StorageError>
}>() {}
