// Which of many like views `aics audit log` asks when asking every one would take too long
// (a name, a key, a channel: a request or more each). Positions spread evenly over the whole
// range, one drawn from each stratum by a seed: by default a seed the
// audit draws at random, so the service cannot know which views will be asked and answer
// those truly while it falsifies the others; a lie in one of n views is met with the
// sample's share of chance by each audit, sooner or later. The seed is reported, and
// `--sample-seed` draws the same sample again (to check a difference once more).

import { Chunk, Effect, Option, Stream } from "effect"
import { crypto } from "./crypto.js"

/** What a sample covered: how many of how many. */
export interface Sampled {
  readonly compared: number
  readonly total: number
}

/** How many random bytes an audit draws its sample's seed from. */
export const SAMPLE_SEED_BYTES = 32

/** A number in [0, 1) for stratum `i`, from SHA-256(seed || i as 4 bytes big-endian). */
const uniform = (seed: Uint8Array, i: number): number => {
  const input = new Uint8Array(seed.length + 4)
  input.set(seed)
  new DataView(input.buffer).setUint32(seed.length, i)
  const digest = crypto.sha256(input)
  return new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0) / 2 ** 32
}

/**
 * `count` of the positions 0 to total - 1, ascending: the range cut in `count` strata of
 * equal length and one position drawn from each by the seed (so each of the many possible
 * samples is as likely, not only the few one offset would give); every one when total <= count.
 */
export const spreadPositions = (total: number, count: number, seed: Uint8Array): ReadonlyArray<number> => {
  if (total <= count) return Array.from({ length: total }, (_, i) => i)
  const step = total / count
  return Array.from({ length: count }, (_, i) => {
    const from = Math.floor(i * step)
    const to = Math.floor((i + 1) * step)
    return from + Math.floor(uniform(seed, i) * (to - from))
  })
}

/** The items at `positions` (ascending), read in one pass that keeps nothing else and stops after the last. */
export const itemsAt = <A, E>(items: Stream.Stream<A, E>, positions: ReadonlyArray<number>): Effect.Effect<Array<A>, E> => {
  const wanted = new Set(positions)
  const last = positions.length === 0 ? -1 : positions[positions.length - 1]!
  return items.pipe(
    Stream.zipWithIndex,
    Stream.takeWhile(([, position]) => position <= last),
    Stream.filter(([, position]) => wanted.has(position)),
    Stream.map(([item]) => item),
    Stream.runCollect,
    Effect.map(Chunk.toArray)
  )
}

/** Keys read from a store this many at a time by the walks of the sample. */
export const KEYS_PAGE = 1000

/** Every key a listing in order answers (ProjectionStore.listKeys, rowKeys), read a page at a time. */
export const keysInOrder = <E>(page: (query: { readonly after?: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<string>, E>): Stream.Stream<string, E> =>
  Stream.paginateChunkEffect(undefined as string | undefined, (after) =>
    Effect.map(page({ after, limit: KEYS_PAGE }), (keys) => [
      Chunk.fromIterable(keys),
      keys.length < KEYS_PAGE ? Option.none() : Option.some(keys[keys.length - 1])
    ] as const))
