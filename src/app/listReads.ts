// Reading the log's lists from the projection store the ways the views page them (issue 12):
// the store answers a list by position, newest first (ports/ProjectionStore.ts list); the
// views page the lists whose elements carry a leaf index (a key's envelopes, an inbox) by
// that index, `from` a leaf, in log order. Those indexes grow with the position, so the
// position a page starts at is found by a binary search over single-element reads: about
// log2(length) reads, whatever the list's length, instead of reading the list up to `from`.

import { Effect } from "effect"
import type { ListAreaName } from "../domain/write/stateAreas.js"
import type { StorageError } from "../ports/StorageError.js"
import type { StateReader } from "./StateReader.js"

/** What these reads need of the StateReader. */
export type ListReader = Pick<typeof StateReader.Service, "list">

/** Elements read at once when a whole list is read. */
const WHOLE_PAGE = 512

/** A list's element at a position (which must be below its length). */
const elementAt = <A>(reader: ListReader, area: ListAreaName, key: string, position: number) =>
  Effect.map(reader.list(area, key, { before: position + 1, limit: 1 }), (page) => page.elements[0]!.value as A)

/** Where a list stands against a leaf index: see positionFrom. */
export interface ListPosition<A> {
  /** The position of the first element whose index is >= the target (the length when none is). */
  readonly position: number
  readonly length: number
  /** The last element, if any. */
  readonly last: A | undefined
}

/**
 * The position of the first element whose leaf index (`indexOf`) is at least `target`, in a
 * list whose indexes grow with the position (the same as views/chunks.ts lowerBound on the
 * whole list).
 */
export const positionFrom = <A>(
  reader: ListReader,
  area: ListAreaName,
  key: string,
  indexOf: (element: A) => number,
  target: number
): Effect.Effect<ListPosition<A>, StorageError> =>
  Effect.gen(function*() {
    const top = yield* reader.list(area, key, { limit: 1 })
    const length = top.length
    const last = top.elements[0]?.value as A | undefined
    // Leaf indexes are never negative: from 0 is the first element without a search.
    if (last === undefined || target <= 0) return { position: 0, length, last }
    if (indexOf(last) < target) return { position: length, length, last }
    // The answer is in [lo, hi]: the last element's index is >= target.
    let lo = 0
    let hi = length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (indexOf(yield* elementAt<A>(reader, area, key, mid)) < target) lo = mid + 1
      else hi = mid
    }
    return { position: lo, length, last }
  })

/** Up to `count` elements from position `start` on, in list order (fewer at the list's end). */
export const elementsFrom = <A>(
  reader: ListReader,
  area: ListAreaName,
  key: string,
  start: number,
  count: number
): Effect.Effect<ReadonlyArray<A>, StorageError> =>
  count <= 0
    ? Effect.succeed([])
    : Effect.map(reader.list(area, key, { before: start + count, limit: count }), (page) =>
      page.elements.filter((e) => e.n >= start).map((e) => e.value as A).reverse())

/**
 * Up to `count` elements from the first whose leaf index is at least `from`, in list order:
 * a page of a list paged by leaf index (a view asks for one more than it shows, to say
 * where the next page starts).
 */
export const elementsFromIndex = <A>(
  reader: ListReader,
  area: ListAreaName,
  key: string,
  indexOf: (element: A) => number,
  from: number,
  count: number
): Effect.Effect<ReadonlyArray<A>, StorageError> =>
  Effect.flatMap(positionFrom(reader, area, key, indexOf, from), ({ position, length }) =>
    position >= length ? Effect.succeed([]) : elementsFrom<A>(reader, area, key, position, count))

/**
 * Every element of a list, in list order: for the views that show a whole list (a key's
 * grants, an owner's capsule slots, a slot's writes, an account's changes). Their cost is
 * the list's length, which is what they answer.
 */
export const wholeList = <A>(reader: ListReader, area: ListAreaName, key: string): Effect.Effect<ReadonlyArray<A>, StorageError> =>
  Effect.gen(function*() {
    const newestFirst: Array<A> = []
    let before: number | undefined
    while (true) {
      const page = yield* reader.list(area, key, { before, limit: WHOLE_PAGE })
      for (const { value } of page.elements) newestFirst.push(value as A)
      const oldest = page.elements[page.elements.length - 1]
      if (oldest === undefined || oldest.n === 0 || page.elements.length < WHOLE_PAGE) return newestFirst.reverse()
      before = oldest.n
    }
  })

/**
 * Elements newest first, a page at a time, fed to `step` until it says it is done or the
 * list ends: a search that stops as soon as it has its answer (the grant governing a
 * sender's DMs). `step` gets each page in newest-first order.
 */
export const newestUntil = <A, E>(
  reader: ListReader,
  area: ListAreaName,
  key: string,
  pageSize: number,
  step: (page: ReadonlyArray<A>) => Effect.Effect<boolean, E>
): Effect.Effect<void, StorageError | E> =>
  Effect.gen(function*() {
    let before: number | undefined
    while (true) {
      const page = yield* reader.list(area, key, { before, limit: pageSize })
      const oldest = page.elements[page.elements.length - 1]
      if (oldest === undefined) return
      if ((yield* step(page.elements.map((e) => e.value as A))) || oldest.n === 0) return
      before = oldest.n
    }
  })
