// Which paths a TileSink accepts, shared by every TileSink adapter so they agree. A path is
// relative to the sink's prefix and becomes a file name, so anything that could leave the
// prefix or alias another path is refused: "..", ".", absolute paths, empty segments,
// backslashes. Segments may not start with a dot either, which keeps the adapters' own
// temporary files out of reach. Tile paths only need letters, digits, ".", "_" and "-", and
// they all live under "tile/", which keeps a tile from landing on the checkpoint's name.

import { equal } from "../../domain/bytes.js"
import { StorageError } from "../../ports/StorageError.js"
import type { Tile } from "../../ports/TileSink.js"

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

/** Undefined when the path is acceptable, else the reason it is not. */
export const tilePathProblem = (path: string): string | undefined => {
  if (path.length === 0) return "empty path"
  if (path.length > 1024) return "path too long"
  if (path.startsWith("/")) return "absolute path"
  if (!path.startsWith("tile/")) return "not under tile/"
  for (const segment of path.split("/")) {
    if (segment.length === 0) return "empty path segment"
    if (segment === "." || segment === "..") return `path segment ${JSON.stringify(segment)}`
    if (!SEGMENT.test(segment)) return `path segment ${JSON.stringify(segment)} has characters outside [A-Za-z0-9._-] or starts with a dot`
  }
  return undefined
}

/** The StorageError for an unacceptable path, or undefined. */
export const checkTilePath = (operation: string, path: string): StorageError | undefined => {
  const problem = tilePathProblem(path)
  return problem === undefined ? undefined : new StorageError({ operation, detail: `${JSON.stringify(path)}: ${problem}` })
}

/**
 * A full tile is immutable once published (C2SP tlog-tiles); a partial tile's path has a
 * ".p/<width>" part, and a wider partial or the full tile supersedes it.
 */
export const isFullTilePath = (path: string): boolean => !path.includes(".p/")

/** The tiles of a batch, one per path; the same path twice with different bytes is refused. */
export const uniqueTiles = (tiles: ReadonlyArray<Tile>): ReadonlyArray<Tile> | StorageError => {
  const byPath = new Map<string, Tile>()
  for (const tile of tiles) {
    const problem = checkTilePath("writeTiles", tile.path)
    if (problem !== undefined) return problem
    const seen = byPath.get(tile.path)
    if (seen !== undefined && !equal(seen.bytes, tile.bytes)) {
      return new StorageError({ operation: "writeTiles", detail: `${tile.path} appears twice with different bytes` })
    }
    byPath.set(tile.path, tile)
  }
  return [...byPath.values()]
}
