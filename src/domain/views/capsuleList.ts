// Own capsules, GET /v2/capsules (docs/spec/service.md "Messaging and capsules"), signed by the key
// asking: every slot it owns, in order of first write, each with its current write and body
// status at `now`. The app may add each current ciphertext.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { sizeCovering } from "./coverage.js"
import { capsuleViewOf, type CapsuleView } from "./items.js"

export interface CapsuleListView {
  readonly kid: string
  readonly capsules: ReadonlyArray<CapsuleView>
  /** The current write of each slot. */
  readonly indices: ReadonlyArray<number>
  readonly size: number
}

/**
 * The view from the slots the key owns (`slots`, order of first write), a slice holding
 * their rows (capsuleListReads), and each slot's writes.
 */
export const capsuleListOf = (
  slice: LogState,
  kid: string,
  slots: ReadonlyArray<string>,
  writesOf: (slot: string) => ReadonlyArray<number>,
  now: number
): CapsuleListView => {
  const capsules = slots.map((slot) => capsuleViewOf(slice, Option.getOrThrow(HashMap.get(slice.capsules, slot)), writesOf(slot), now))
  const indices = capsules.map((c) => c.index)
  return { kid, capsules, indices, size: sizeCovering(indices) }
}

/** The rows capsuleListOf reads: the slots. */
export const capsuleListReads = (slots: ReadonlyArray<string>): ReadonlyArray<RowKey> =>
  slots.map((slot) => ({ area: "capsules", key: slot }))

/** The view on a whole state (its lists in memory). */
export const capsuleList = (state: LogState, kid: string, now: number): CapsuleListView => {
  const slots = Option.getOrElse(HashMap.get(state.capsulesByOwner, kid), () => Chunk.empty<string>())
  return capsuleListOf(state, kid, Chunk.toReadonlyArray(slots), (slot) => Chunk.toReadonlyArray(Option.getOrThrow(HashMap.get(state.capsules, slot)).writes), now)
}
