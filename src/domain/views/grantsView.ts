// Grants of a key, GET /v2/inbox/{kid}/grants (docs/spec/service.md "Projections"): every grant the
// key has signed, log order, with its use and whether it is in force at `now`. With
// `sender` (a did:key) the view adds `governing_index`: the grant a DM from that sender
// should cite (messaging/grants.ts: the newest in force for the sender by name, else the
// newest "*" in force), or null when none is in force.

import * as Chunk from "effect/Chunk"
import { governingAfter, governingOf, GOVERNING_START, grantOf, grantsSignedBy } from "../messaging/grants.js"
import type { LogState } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
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

/** The view from every grant the key signed (`indexes`, log order) and a slice holding their rows (grantsReads). */
export const grantsViewOf = (slice: LogState, kid: string, indexes: ReadonlyArray<number>, sender: string | undefined, now: number): GrantsView => {
  const records = indexes.map((index) => grantOf(slice, index)!)
  const view = {
    kid,
    grants: records.map((g) => grantView(g, now)),
    indices: records.map((g) => g.index),
    size: sizeCovering(records.flatMap((g) => [g.index, g.revokedIndex, g.lastUseIndex]))
  }
  return sender === undefined
    ? view
    : { ...view, sender, governing_index: governingOf(governingAfter(GOVERNING_START, [...records].reverse(), sender, now)) }
}

/** The rows grantsViewOf reads: the grants. */
export const grantsReads = (indexes: ReadonlyArray<number>): ReadonlyArray<RowKey> =>
  indexes.map((index) => ({ area: "grants", key: String(index) }))

/** The view on a whole state (its lists in memory). */
export const grantsView = (state: LogState, kid: string, sender: string | undefined, now: number): GrantsView =>
  grantsViewOf(state, kid, Chunk.toReadonlyArray(grantsSignedBy(state, kid)), sender, now)
