// One capsule slot, GET /v2/capsules/{key_hash} (docs/spec/service.md "Messaging and capsules"):
// key_hash is the slot, U64(SHA-256(slot key)). The slot's owner, its current write with
// its body status at `now`, and every write. The app adds the current ciphertext.

import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import { capsuleViewOf, type CapsuleView } from "./items.js"

export interface CapsuleSlotView extends CapsuleView {
  /** Smallest tree covering every write (the current write is the last). */
  readonly size: number
}

/** The view from a slice holding the slot's row (or not: no capsule has the slot) and the slot's writes, log order. */
export const capsuleSlotOf = (slice: LogState, slot: string, writes: ReadonlyArray<number>, now: number): Either.Either<CapsuleSlotView, "capsule_not_found"> =>
  Option.match(HashMap.get(slice.capsules, slot), {
    onNone: () => Either.left("capsule_not_found" as const),
    onSome: (capsule) => Either.right({ ...capsuleViewOf(slice, capsule, writes, now), size: capsule.index + 1 })
  })

/** The view on a whole state (the slot's writes in memory). */
export const capsuleSlot = (state: LogState, slot: string, now: number): Either.Either<CapsuleSlotView, "capsule_not_found"> =>
  capsuleSlotOf(state, slot, Option.match(HashMap.get(state.capsules, slot), { onNone: () => [], onSome: (c) => Chunk.toReadonlyArray(c.writes) }), now)
