// Key view, GET /v2/keys/{kid} (docs/spec/service.md "Projections"): the name the key was bound to,
// whether it is current (still acts for it), and its envelope chain, one page of leaf
// indexes at a time (from, limit, next_from as the inbox pages).

import { Chunk, Either, HashMap, Option } from "effect"
import { nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameTier } from "../write/logState.js"
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

export const keyView = (state: LogState, kid: string, page: PageQuery): Either.Either<KeyView, "key_not_found"> => {
  const found = HashMap.get(state.keys, kid)
  if (Option.isNone(found)) return Either.left("key_not_found")
  const key = found.value
  const head = Option.getOrUndefined(HashMap.get(state.chains, kid))
  const start = lowerBound(key.envelopes, (i) => i, page.from)
  const indices = chunkRange(key.envelopes, start, start + page.limit)
  const more = start + page.limit < key.envelopes.length
  return Either.right({
    kid,
    name: key.name,
    tier: key.name === null ? null : nameRecordOf(state, key.name)?.tier ?? null,
    current: key.name !== null && key.unboundIndex === null,
    bound_index: key.boundIndex,
    unbound_index: key.unboundIndex,
    seq: head?.seq ?? null,
    head_index: head?.index ?? null,
    indices,
    next_from: more ? Chunk.unsafeGet(key.envelopes, start + page.limit) : null,
    size: sizeCovering([...indices, key.boundIndex, key.unboundIndex, head?.index ?? null])
  })
}
