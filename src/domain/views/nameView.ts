// Name view, GET /v2/names/{name} (docs/spec/service.md "Projections" and "Identity"): the name's
// current keys with the leaves that set them, every key event, `indices` (the key events,
// log order) and `size`, the smallest tree covering them. The app adds `checkpoint_note`
// at a published size >= `size`. It is a projection to check against a scan of the tiles.

import { Chunk, Either } from "effect"
import { nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameRecord, NameTier } from "../write/logState.js"
import { sizeCovering } from "./coverage.js"
import { nameOfHandle } from "./handles.js"
import { keyEventView, type KeyEventView } from "./items.js"

/** A name's current keys with the leaves that set them (name view and ANS lookup). */
export interface CurrentKeys {
  readonly name: string
  readonly tier: NameTier
  /** The key that acts for the name, and the claim or rotation that bound it. */
  readonly kid: string
  readonly kid_index: number
  /** The recovery key and the claim that named it, or null and null. */
  readonly recovery: string | null
  readonly recovery_index: number | null
  /** The current X25519 key (U64) and the claim or key.x25519 leaf that set it. */
  readonly x25519: string
  readonly x25519_index: number | null
}

export const currentKeysOf = (record: NameRecord): CurrentKeys => ({
  name: record.name,
  tier: record.tier,
  kid: record.kid,
  kid_index: record.kidIndex,
  recovery: record.recovery,
  recovery_index: record.recovery === null ? null : record.claimIndex,
  x25519: record.x25519,
  x25519_index: record.x25519Index
})

export interface NameView extends CurrentKeys {
  readonly claim_index: number
  readonly events: ReadonlyArray<KeyEventView>
  readonly indices: ReadonlyArray<number>
  readonly size: number
}

export type NameViewProblem = "name_invalid" | "name_not_found"

export const nameViewOf = (record: NameRecord): NameView => {
  const events = Chunk.toArray(record.events).map(keyEventView)
  const indices = events.map((e) => e.index)
  return {
    ...currentKeysOf(record),
    claim_index: record.claimIndex,
    events,
    indices,
    size: sizeCovering(indices)
  }
}

/** The view of the name a handle designates (name_norm, "@name", "@name.<instance_domain>"). */
export const nameView = (state: LogState, handle: string): Either.Either<NameView, NameViewProblem> => {
  const name = nameOfHandle(state, handle)
  return nameViewOfLookup(name, name === undefined ? undefined : nameRecordOf(state, name))
}

/** The view from the name a handle designates (undefined: none) and that name's record, if claimed. */
export const nameViewOfLookup = (name: string | undefined, record: NameRecord | undefined): Either.Either<NameView, NameViewProblem> =>
  name === undefined ? Either.left("name_invalid") : record === undefined ? Either.left("name_not_found") : Either.right(nameViewOf(record))
