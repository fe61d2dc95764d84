// The counts the service statistics report (serviceUsage.ts; docs/protocol.md section 16),
// kept by the fold instead of walked from the whole state (issue 12: nothing that grows
// with the log is walked on a request). They are resident counters (StateCounters.tallies,
// write/stateSlice.ts): each fold step adds what its slice changed, computed here from the
// slice before and after the step.
//
// Why a slice's difference is the state's difference: a slice holds every row its leaves
// write (a row a rule writes was loaded if it existed), and the same rows before and after,
// save those the leaves wrote or removed. So a map area's rows grew by the growth of the
// slice's map, the names likewise, and the lists by what the leaves appended (a slice holds
// its lists empty: write/stateAreas.ts). Counts over the values of loaded rows (names of
// tier `key`, keys bound to no name) change by the difference of the same count over the
// slice before and after.
//
// Bare keys (keys that act for no name, not a name's recovery key, not the service's): a
// slice holds, with every key record, whether a claim named the key as recovery (the
// `recoveryOf` row: write/stateReads.ts loads it with the record), so the count is exact.

import * as HashMap from "effect/HashMap"
import type { LogState } from "../write/logState.js"
import { type ListAppend, LIST_AREAS, type ListAreaName, type MapAreaName, ROW_AREAS } from "../write/stateAreas.js"

export interface UsageTallies {
  /** Rows of each map area (write/stateAreas.ts). */
  readonly rows: Readonly<Record<MapAreaName, number>>
  /** Elements of each list area, all its lists together. */
  readonly elements: Readonly<Record<ListAreaName, number>>
  /** Claimed names, and those of tier `key` (bound to a key that signed their claim or rotation). */
  readonly names: number
  readonly keyTierNames: number
  /** Keys bound to no name, none of a name's recovery key, not the service's (see the header). */
  readonly bareKeys: number
}

const zeros = <K extends string>(names: ReadonlyArray<K>): Record<K, number> =>
  Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>

export const emptyTallies: UsageTallies = {
  rows: zeros(Object.keys(ROW_AREAS) as Array<MapAreaName>),
  elements: zeros(LIST_AREAS),
  names: 0,
  keyTierNames: 0,
  bareKeys: 0
}

const keyTierNames = (state: LogState): number => {
  let n = 0
  for (const record of HashMap.values(state.names)) if (record.tier === "key") n++
  return n
}

/** Keys of the state that act for no name. */
const bareKeys = (state: LogState): number => {
  const service = state.service
  let n = 0
  for (const key of HashMap.values(state.keys)) {
    if (key.name === null && !HashMap.has(state.recoveryOf, key.kid) && key.kid !== service?.policyKid && key.kid !== service?.ownerKid) n++
  }
  return n
}

/**
 * The tallies after a fold step: `tallies` (those of the store the slice was loaded from)
 * plus what the step changed, from the slice before and after it and the list elements it
 * appended.
 */
export const talliesAfter = (tallies: UsageTallies, before: LogState, after: LogState, appends: ReadonlyArray<ListAppend>): UsageTallies => {
  const rows = { ...tallies.rows }
  for (const [area, spec] of Object.entries(ROW_AREAS) as Array<[MapAreaName, (typeof ROW_AREAS)[MapAreaName]]>) {
    const was = spec.get(before)
    const now = spec.get(after)
    if (was !== now) rows[area] += HashMap.size(now) - HashMap.size(was)
  }
  const elements = { ...tallies.elements }
  for (const append of appends) elements[append.area] += append.elements.length
  const namesMoved = before.names !== after.names
  const bareMoved = before.recoveryOf !== after.recoveryOf || before.keys !== after.keys || before.service !== after.service
  return {
    rows,
    elements,
    names: tallies.names + HashMap.size(after.names) - HashMap.size(before.names),
    keyTierNames: namesMoved ? tallies.keyTierNames + keyTierNames(after) - keyTierNames(before) : tallies.keyTierNames,
    bareKeys: bareMoved ? tallies.bareKeys + bareKeys(after) - bareKeys(before) : tallies.bareKeys
  }
}
