// Grants of a key, GET /v2/inbox/{kid}/grants (docs/spec/service.md "Projections"): every grant the
// key has signed, log order, with its use and whether it is in force at `now`. With
// `sender` (a did:key) the view adds `governing_index`: the grant a DM from that sender
// should cite (messaging/grants.ts: the newest in force for the sender by name, else the
// newest "*" in force), or null when none is in force.

import { Chunk } from "effect"
import { governingGrant, grantOf, grantsSignedBy } from "../messaging/grants.js"
import type { LogState } from "../write/logState.js"
import { sizeCovering } from "./coverage.js"
import { grantView, type GrantView } from "./items.js"

export interface GrantsView {
  readonly kid: string
  readonly grants: ReadonlyArray<GrantView>
  readonly indices: ReadonlyArray<number>
  /** Covers the grants, their revocations and the DMs that used them. */
  readonly size: number
  /** Present exactly when a sender was asked about. */
  readonly sender?: string
  readonly governing_index?: number | null
}

export const grantsView = (state: LogState, kid: string, sender: string | undefined, now: number): GrantsView => {
  const records = Chunk.toArray(grantsSignedBy(state, kid)).map((index) => grantOf(state, index)!)
  const indices = records.map((g) => g.index)
  const view = {
    kid,
    grants: records.map((g) => grantView(g, now)),
    indices,
    size: sizeCovering(records.flatMap((g) => [g.index, g.revokedIndex, g.lastUseIndex]))
  }
  return sender === undefined ? view : { ...view, sender, governing_index: governingGrant(state, kid, sender, now) }
}
