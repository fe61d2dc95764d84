// Walking a list of the projection store newest first (issue 12: a view's cost is bounded
// by what it shows, not by the log). A list (all posts, a channel's, a key's envelopes...)
// is read by position a chunk at a time, only as far as the walk is pulled: a view that
// filters (a channel's polls, a key's posts among its envelopes) loads the rows of one
// chunk, keeps what it shows, and stops once it has one item beyond its page.

import { Chunk, Effect, Option, Stream } from "effect"
import type { LeafPage } from "../domain/views/leafPage.js"
import type { ListAreaName } from "../domain/write/stateAreas.js"
import type { StorageError } from "../ports/StorageError.js"
import type { StateReader } from "./StateReader.js"

export type Reader = typeof StateReader.Service

/**
 * The leaf indexes of a list, newest first, read `chunk` at a time (positions below
 * `before` only, when given: a cursor is a position).
 */
export const newestFirst = (
  reader: Reader,
  area: ListAreaName,
  key: string,
  options: { readonly chunk: number; readonly before?: number | undefined }
): Stream.Stream<number, StorageError> =>
  Stream.paginateChunkEffect(options.before, (before) =>
    Effect.map(reader.list(area, key, { before, limit: options.chunk }), ({ elements }) => {
      const last = elements[elements.length - 1]
      const next = last === undefined || last.n === 0 ? Option.none() : Option.some<number | undefined>(last.n)
      return [Chunk.fromIterable(elements.map((element) => element.value as number)), next] as const
    }))

/** The elements of an array, a chunk at a time (the owner's quoted requests, resident). */
export const inChunks = <A>(items: ReadonlyArray<A>, chunk: number): Stream.Stream<A> =>
  Stream.rechunk(Stream.fromIterable(items), chunk)

/** A stream with each chunk replaced by what `keep` makes of it (one load of rows per chunk). */
export const keepChunks = <A, B, E>(keep: (chunk: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>) =>
<E2>(stream: Stream.Stream<A, E2>): Stream.Stream<B, E | E2> =>
  Stream.mapChunksEffect(stream, (chunk) => Effect.map(keep(Chunk.toReadonlyArray(chunk)), Chunk.unsafeFromArray))

/** The first `count` elements of a stream (fewer when it ends before): pulls no further. */
export const firstOf = <A, E>(stream: Stream.Stream<A, E>, count: number): Effect.Effect<ReadonlyArray<A>, E> =>
  Effect.map(Stream.runCollect(Stream.take(stream, count)), Chunk.toReadonlyArray)

/** Up to `limit` elements of a stream, and whether it held more: pulls one beyond the page at most. */
export const pageOf = <A, E>(stream: Stream.Stream<A, E>, limit: number): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly truncated: boolean }, E> =>
  Effect.map(firstOf(stream, limit + 1), (items) => ({ items: items.slice(0, limit), truncated: items.length > limit }))

/** Up to `limit` leaves of a list, newest first: one read of the store. */
export const listPage = (reader: Reader, area: ListAreaName, key: string, limit: number): Effect.Effect<LeafPage, StorageError> =>
  pageOf(newestFirst(reader, area, key, { chunk: limit + 1 }), limit)
