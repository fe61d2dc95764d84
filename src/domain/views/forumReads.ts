// What the forum's views read of the row areas (issue 12, "Projections in an indexed store";
// domain/write/stateReads.ts RowKey), so that the app loads just those rows into a slice
// (app/StateReader.ts sliceFor) and the views answer on it exactly as on the whole state.
// The resident parts (tombstones, the service's retention, tasks, quotes and requests) are
// whole in every slice, so only rows are named here.
//
// A post item (agoraPosts.ts postItem, postLeaves) reads its metadata and body hash, then
// its author's key record (the name the key was bound to, and the leaf that bound it),
// then, when that leaf is unknown (a secret-bound name's post, `as`), the name's record
// for its claim: each read depends on the one before, hence the slice as argument.

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import type { RowAreaName } from "../write/stateAreas.js"
import type { RowKey } from "../write/stateReads.js"

const rows = (area: RowAreaName, indexes: Iterable<number>): Array<RowKey> =>
  Array.from(indexes, (index) => ({ area, key: String(index) }))

/** The metadata of these leaves, where they are posts (what a channel or an author filter reads). */
export const postMetaReads = (indexes: Iterable<number>): ReadonlyArray<RowKey> => rows("postMeta", indexes)

/** The records of these leaves, where they are polls. */
export const pollReads = (indexes: Iterable<number>): ReadonlyArray<RowKey> => rows("polls", indexes)

/** Every row the post items of these leaves read, given what the slice holds so far. */
export const postReads = (slice: LogState, indexes: Iterable<number>): ReadonlyArray<RowKey> => {
  const reads: Array<RowKey> = []
  for (const index of indexes) {
    reads.push(...rows("postMeta", [index]), ...rows("bodies", [index]))
    const meta = Option.getOrUndefined(HashMap.get(slice.forum.postMeta, index))
    if (meta === undefined) continue
    reads.push({ area: "keys", key: meta.author })
    const key = Option.getOrUndefined(HashMap.get(slice.keys, meta.author))
    const name = meta.as ?? key?.name ?? null
    if (name !== null && (key?.boundIndex ?? null) === null) reads.push({ area: "names", key: name })
  }
  return reads
}
