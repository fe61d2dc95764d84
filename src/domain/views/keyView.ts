// Key view, GET /v2/keys/{kid} (docs/spec/service.md "Projections"): the name the key was bound to,
// whether it is current (still acts for it), and its envelope chain, one page of leaf
// indexes at a time (from, limit, next_from as the inbox pages).

import { Either, HashMap, Option } from "effect"
import { nameRecordOf } from "../identity/bindings.js"
import { keyRecordOf, type LogState, type NameTier } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { chunkRange, lowerBound } from "./chunks.js"
import { sizeCovering } from "./coverage.js"
import type { PageQuery } from "./limits.js"

export interface KeyView {
  readonly kid: string
  /** The name it was bound to (now or before a rotation), or null. */
  readonly name: string | null
  readonly tier: NameTier | null
  /** Whether it acts for `name` now. */
  readonly current: boolean
  /** The claim or rotation that bound it, and the rotation that unbound it. */
  readonly bound_index: number | null
  readonly unbound_index: number | null
  /** seq and leaf of its last accepted envelope (null before its first). */
  readonly seq: number | null
  readonly head_index: number | null
  /** Its envelopes with index >= from, log order, at most limit. */
  readonly indices: ReadonlyArray<number>
  /** Where the next page starts, or null when this one holds the last envelope. */
  readonly next_from: number | null
  readonly size: number
}

/**
 * The view from a slice holding the key's row, its chain head and the name it was bound to
 * (keyReads), and `following`: the key's envelopes from the page's start (the first with
 * index >= from), log order, at most `limit` + 1 (the one after the page says where the next
 * starts).
 */
export const keyViewOf = (
  slice: LogState,
  kid: string,
  following: ReadonlyArray<number>,
  limit: number
): Either.Either<KeyView, "key_not_found"> => {
  const found = HashMap.get(slice.keys, kid)
  if (Option.isNone(found)) return Either.left("key_not_found")
  const key = found.value
  const head = Option.getOrUndefined(HashMap.get(slice.chains, kid))
  const indices = following.slice(0, limit)
  return Either.right({
    kid,
    name: key.name,
    tier: key.name === null ? null : nameRecordOf(slice, key.name)?.tier ?? null,
    current: key.name !== null && key.unboundIndex === null,
    bound_index: key.boundIndex,
    unbound_index: key.unboundIndex,
    seq: head?.seq ?? null,
    head_index: head?.index ?? null,
    indices,
    next_from: following[limit] ?? null,
    size: sizeCovering([...indices, key.boundIndex, key.unboundIndex, head?.index ?? null])
  })
}

/** The rows keyViewOf reads: the key, its chain head, then the name it was bound to. */
export const keyReads = (kid: string) => (slice: LogState): ReadonlyArray<RowKey> => {
  const name = Option.getOrUndefined(HashMap.get(slice.keys, kid))?.name
  return [{ area: "keys", key: kid }, { area: "chains", key: kid }, ...(name == null ? [] : [{ area: "names" as const, key: name }])]
}

/** The view on a whole state (its envelopes in memory). */
export const keyView = (state: LogState, kid: string, page: PageQuery): Either.Either<KeyView, "key_not_found"> => {
  const envelopes = keyRecordOf(state, kid).envelopes
  const start = lowerBound(envelopes, (i) => i, page.from)
  return keyViewOf(state, kid, chunkRange(envelopes, start, start + page.limit + 1), page.limit)
}
