// Reading the state's persistent sequences from views without flattening them. Iterating a
// Chunk (or converting it to an array) copies the whole sequence into one array; a page of
// an inbox or a key's chain reads only the elements it returns, by position, each in
// O(log n), and finds where a page starts by binary search.

import { Chunk } from "effect"

/** Elements start (inclusive) to end (exclusive), clamped to the chunk. */
export const chunkRange = <A>(chunk: Chunk.Chunk<A>, start: number, end: number): Array<A> => {
  const out: Array<A> = []
  for (let i = Math.max(0, start); i < Math.min(end, chunk.length); i++) out.push(Chunk.unsafeGet(chunk, i))
  return out
}

/** The position of the first element whose key is >= target, in a chunk sorted by key. */
export const lowerBound = <A>(chunk: Chunk.Chunk<A>, key: (a: A) => number, target: number): number => {
  let lo = 0
  let hi = chunk.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (key(Chunk.unsafeGet(chunk, mid)) < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The last element, if any. */
export const lastOf = <A>(chunk: Chunk.Chunk<A>): A | undefined =>
  chunk.length === 0 ? undefined : Chunk.unsafeGet(chunk, chunk.length - 1)
