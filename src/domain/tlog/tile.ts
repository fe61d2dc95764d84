// C2SP tlog-tiles: tile coordinates and their paths, with tile height 8 (256 hashes a tile).
//
//   tile/<L>/<N>[.p/<W>]        hash tile: level L in 0..63, no leading zeroes
//   tile/entries/<N>[.p/<W>]    entry bundle, the entries under the level-0 tile N
//
// N is written in 3-digit groups, all but the last prefixed with "x" (1234067 is
// x001/x234/067), so no directory holds more than 3000 names. ".p/<W>" marks a partial tile,
// W in 1..255 with no leading zeroes; a full tile (W = 256) has no suffix. Every tile has
// exactly one path, and parseTilePath accepts nothing else: URL paths map to cache keys and
// store keys, so two spellings of one tile must not both be served.

export const TILE_HEIGHT = 8
/** Hashes in a full tile, entries in a full bundle: 2^TILE_HEIGHT. */
export const TILE_WIDTH = 2 ** TILE_HEIGHT
/** C2SP tlog-tiles bounds the level at 63. */
export const MAX_TILE_LEVEL = 63

/** Hash tile: the stored hashes at tree level 8 * level, positions index*256 .. index*256+width-1. */
export interface HashTile {
  readonly kind: "hash"
  readonly level: number
  readonly index: number
  readonly width: number
}

/** Entry bundle: entries index*256 .. index*256+width-1, each prefixed by its uint16 length. */
export interface EntryBundle {
  readonly kind: "entries"
  readonly index: number
  readonly width: number
}

export type Tile = HashTile | EntryBundle

export const isFullTile = (tile: Tile): boolean => tile.width === TILE_WIDTH

const isValidTile = (tile: Tile): boolean =>
  Number.isSafeInteger(tile.index) &&
  tile.index >= 0 &&
  Number.isInteger(tile.width) &&
  tile.width >= 1 &&
  tile.width <= TILE_WIDTH &&
  (tile.kind === "entries" || (Number.isInteger(tile.level) && tile.level >= 0 && tile.level <= MAX_TILE_LEVEL))

const PATH_BASE = 1000

const threeDigits = (n: number): string => String(n).padStart(3, "0")

/** The tile's path under the log prefix. Throws a RangeError for a tile that cannot exist. */
export const tilePath = (tile: Tile): string => {
  if (!isValidTile(tile)) throw new RangeError(`invalid tile ${JSON.stringify(tile)}`)
  let n = tile.index
  let digits = threeDigits(n % PATH_BASE)
  while (n >= PATH_BASE) {
    n = Math.floor(n / PATH_BASE)
    digits = `x${threeDigits(n % PATH_BASE)}/${digits}`
  }
  const level = tile.kind === "entries" ? "entries" : String(tile.level)
  const partial = isFullTile(tile) ? "" : `.p/${tile.width}`
  return `tile/${level}/${digits}${partial}`
}

const PATH_SHAPE = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/

/**
 * The tile a path names, or undefined unless the path is that tile's one canonical path
 * (no leading "x000" groups, no ".p/256", no level 64, no extra segments...).
 */
export const parseTilePath = (path: string): Tile | undefined => {
  const match = PATH_SHAPE.exec(path)
  if (match === null) return undefined
  const [, levelText, groups, last, widthText] = match
  let index = 0
  for (const group of [...groups!.split("/").filter((g) => g !== "").map((g) => g.slice(1)), last!]) {
    index = index * PATH_BASE + Number(group)
    if (!Number.isSafeInteger(index)) return undefined
  }
  const width = widthText === undefined ? TILE_WIDTH : Number(widthText)
  // ".p/256" and up: a full tile carries no suffix.
  if (widthText !== undefined && width >= TILE_WIDTH) return undefined
  const tile: Tile =
    levelText === "entries"
      ? { kind: "entries", index, width }
      : { kind: "hash", level: Number(levelText), index, width }
  if (!isValidTile(tile)) return undefined
  // The shape allows "x000/001"; only the canonical spelling is accepted.
  return tilePath(tile) === path ? tile : undefined
}
