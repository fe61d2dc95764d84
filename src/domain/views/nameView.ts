// Name view, GET /v2/names/{name} (docs/spec/service.md "Projections" and "Identity"): the name's
// current keys with the leaves that set them, every key event, `indices` (the key events,
// log order) and `size`, the smallest tree covering them and the leaf that ended the
// recovery key's standing, if one did. The app adds `checkpoint_note` at a published size
// >= `size`. It is a projection to check against a scan of the tiles.

import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import { nameRecordOf, recoveryStanding } from "../identity/bindings.js"
import type { LogState, NameRecord, NameTier } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
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
  /** The recovery key and the claim that named it, or null and null: as logged, whether it still stands or not. */
  readonly recovery: string | null
  readonly recovery_index: number | null
  /**
   * Whether the recovery key may still rotate the name (docs/protocol.md 10.1): null without
   * one, false once it holds or held a name of its own.
   */
  readonly recovery_stands: boolean | null
  /** The leaf that bound the recovery key to a name of its own (from it on it rotates no name), or null. */
  readonly recovery_bound_index: number | null
  /** The current X25519 key (U64) and the claim or key.x25519 leaf that set it. */
  readonly x25519: string
  readonly x25519_index: number | null
}

/** The name's current keys; `state` holds the record of its recovery key, if the log has one. */
export const currentKeysOf = (state: LogState, record: NameRecord): CurrentKeys => {
  const recovery = recoveryStanding(state, record)
  return {
    name: record.name,
    tier: record.tier,
    kid: record.kid,
    kid_index: record.kidIndex,
    recovery: record.recovery,
    recovery_index: record.recovery === null ? null : record.claimIndex,
    recovery_stands: recovery.stands,
    recovery_bound_index: recovery.boundIndex,
    x25519: record.x25519,
    x25519_index: record.x25519Index
  }
}

export interface NameView extends CurrentKeys {
  readonly claim_index: number
  readonly events: ReadonlyArray<KeyEventView>
  readonly indices: ReadonlyArray<number>
  readonly size: number
}

export type NameViewProblem = "name_invalid" | "name_not_found"

export const nameViewOf = (state: LogState, record: NameRecord): NameView => {
  const keys = currentKeysOf(state, record)
  const events = Chunk.toArray(record.events).map(keyEventView)
  const indices = events.map((e) => e.index)
  return {
    ...keys,
    claim_index: record.claimIndex,
    events,
    indices,
    size: sizeCovering([...indices, keys.recovery_bound_index])
  }
}

/**
 * The rows the views of a handle's name read (this view, the ANS lookup): the name's record,
 * then its recovery key's record (whether the key still stands). Asked again on the slice
 * with what was found (app: StateReader.sliceFor).
 */
export const nameReads = (handle: string) => (slice: LogState): ReadonlyArray<RowKey> => {
  const name = nameOfHandle(slice, handle)
  if (name === undefined) return []
  const recovery = nameRecordOf(slice, name)?.recovery ?? null
  return [{ area: "names", key: name }, ...(recovery === null ? [] : [{ area: "keys" as const, key: recovery }])]
}

/** The view of the name a handle designates (name_norm, "@name", "@name.<instance_domain>"), on a state or a slice of nameReads. */
export const nameView = (state: LogState, handle: string): Either.Either<NameView, NameViewProblem> => {
  const name = nameOfHandle(state, handle)
  if (name === undefined) return Either.left("name_invalid")
  const record = nameRecordOf(state, name)
  return record === undefined ? Either.left("name_not_found") : Either.right(nameViewOf(state, record))
}
