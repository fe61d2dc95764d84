// Which of many like views `aics audit log` asks when asking every one would take too long
// (a name, a key, a channel: a request or more each). The sample is a function of the log
// replayed alone: positions spread evenly over the whole range, so every part of it is
// asked, from an offset the checkpoint's root sets, so each new checkpoint asks others and
// a view the service falsifies is met by some audit sooner or later. It is not secret: the
// service can compute it too, which is why the audit says what it left out.

/** What a sample covered: how many of how many. */
export interface Sampled {
  readonly compared: number
  readonly total: number
}

/** The offset in [0, 1) the seed's first 4 bytes set (a checkpoint's root: 32 bytes). */
const offsetOf = (seed: Uint8Array): number =>
  seed.length < 4 ? 0 : new DataView(seed.buffer, seed.byteOffset, 4).getUint32(0) / 2 ** 32

/** `count` of the positions 0 to total - 1, ascending and evenly spread from an offset `seed` sets; every one when total <= count. */
export const spreadPositions = (total: number, count: number, seed: Uint8Array): ReadonlyArray<number> => {
  if (total <= count) return Array.from({ length: total }, (_, i) => i)
  const step = total / count
  const offset = offsetOf(seed)
  return Array.from({ length: count }, (_, i) => Math.floor((i + offset) * step))
}

/** The items at `positions` (ascending), read in one pass that keeps nothing else. */
export const itemsAt = <T>(items: Iterable<T>, positions: ReadonlyArray<number>): Array<T> => {
  const found: Array<T> = []
  let position = 0
  for (const item of items) {
    if (found.length === positions.length) break
    if (positions[found.length] === position) found.push(item)
    position++
  }
  return found
}
