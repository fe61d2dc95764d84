// Own capsules, GET /v2/capsules (docs/spec/service.md "Messaging and capsules"), signed by the key
// asking: every slot it owns, in order of first write, each with its current write and body
// status at `now`. The app may add each current ciphertext.

import { Chunk, HashMap, Option } from "effect"
import type { LogState } from "../write/logState.js"
import { sizeCovering } from "./coverage.js"
import { capsuleView, type CapsuleView } from "./items.js"

export interface CapsuleListView {
  readonly kid: string
  readonly capsules: ReadonlyArray<CapsuleView>
  /** The current write of each slot. */
  readonly indices: ReadonlyArray<number>
  readonly size: number
}

export const capsuleList = (state: LogState, kid: string, now: number): CapsuleListView => {
  const slots = Option.getOrElse(HashMap.get(state.capsulesByOwner, kid), () => Chunk.empty<string>())
  const capsules = Chunk.toArray(slots).map((slot) => capsuleView(state, Option.getOrThrow(HashMap.get(state.capsules, slot)), now))
  const indices = capsules.map((c) => c.index)
  return { kid, capsules, indices, size: sizeCovering(indices) }
}
