// Reading the state's persistent sequences from views without flattening them. Iterating a
// Chunk (or converting it to an array) copies the whole sequence into one array; a page of
// an inbox or a key's chain reads only the elements it returns, by position, each in
// O(log n), and finds where a page starts by binary search.

import * as Chunk from "effect/Chunk"

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

/** The chunk's elements before position `end` (all by default), last first, each read in O(log n) when reached. */
export function* fromEnd<A>(chunk: Chunk.Chunk<A>, end: number = chunk.length): Generator<A> {
  for (let i = Math.min(end, chunk.length) - 1; i >= 0; i--) yield Chunk.unsafeGet(chunk, i)
}

/** Two sequences of numbers, each descending, merged into one descending sequence. */
export function* mergeDescending(a: Iterator<number>, b: Iterator<number>): Generator<number> {
  let x = a.next()
  let y = b.next()
  while (!x.done || !y.done) {
    if (y.done || (!x.done && x.value >= y.value)) {
      yield x.value
      x = a.next()
    } else {
      yield y.value
      y = b.next()
    }
  }
}

/**
 * Up to `limit` elements that `accept` keeps, in the order given (newest first when the
 * sequence is), and whether more were left. Reads only as far as it needs.
 */
export const firstAccepted = <A>(sequence: Iterable<A>, limit: number, accept: (a: A) => boolean = () => true) => {
  const items: Array<A> = []
  for (const a of sequence) {
    if (!accept(a)) continue
    if (items.length === limit) return { items, truncated: true }
    items.push(a)
  }
  return { items, truncated: false }
}

/** Up to `limit` elements of a chunk from its end (newest first), and whether more were left. */
export const newestFirst = <A>(chunk: Chunk.Chunk<A>, limit: number, accept: (a: A) => boolean = () => true) =>
  firstAccepted(fromEnd(chunk), limit, accept)
