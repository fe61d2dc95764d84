// Slices of the log's state (issue 12, "The domain stays pure"): a LogState that holds the
// resident parts whole and, of the row areas (stateAreas.ts), only the rows some entries
// read. The pure rules decide and apply on it exactly as on the whole state, since they read
// only what stateReads.ts says they read; what they change is then taken out of the slice
// as rows (changesOf) for the store to write. Folding a run of leaves this way leaves the
// store holding the same rows as the whole state would split into (a property test checks
// it against the fold of every leaf into one LogState).

import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import { type ListAppend, listAppends, type MapAreaName, ROW_AREAS, STATE_LAYOUT, type StoredKey } from "./stateAreas.js"
import { emptyLogState, type GovernanceState, type LogState, type NameRecord, type ServiceKeys } from "./logState.js"
import type { TaskState } from "../tasks/ownerRequests.js"
import { talliesAfter, type UsageTallies } from "../stats/usageTallies.js"

/** The counters of the log that every step moves. */
export interface StateCounters {
  /** The split the store was written under (stateAreas.ts STATE_LAYOUT). */
  readonly layout: number
  readonly size: number
  readonly lastLogged: number
  readonly creditedTotal: number
  readonly spentTotal: number
  readonly contributionsCredited: number
  /** Bytes of every ciphertext the log holds, expired or not (LogState.ciphertextBytes). */
  readonly ciphertextBytes: number
  /** What the service statistics count (stats/usageTallies.ts). */
  readonly tallies: UsageTallies
}

/**
 * The parts of the state held whole (stateAreas.ts, "Resident parts"): bounded by the
 * owner's and the policy key's leaves, not by the log.
 */
export interface ResidentState {
  readonly counters: StateCounters
  readonly service: ServiceKeys | undefined
  readonly governance: GovernanceState
  readonly tasks: TaskState
}

/** One stored row of a map area. */
export interface StateRow {
  readonly area: MapAreaName
  readonly key: StoredKey
  readonly value: unknown
}

/** Rows loaded from the store: the map rows found and the names found. */
export interface LoadedRows {
  readonly rows: ReadonlyArray<StateRow>
  readonly names: ReadonlyArray<NameRecord>
}

export const residentOf = (state: LogState): ResidentState => ({
  counters: {
    layout: STATE_LAYOUT,
    size: state.size,
    lastLogged: state.lastLogged,
    creditedTotal: state.sup.creditedTotal,
    spentTotal: state.sup.spentTotal,
    contributionsCredited: state.sup.contributionsCredited,
    ciphertextBytes: state.ciphertextBytes,
    tallies: state.tallies
  },
  service: state.service,
  governance: state.governance,
  tasks: state.tasks
})

/** The empty state's resident parts: what a new store starts from. */
export const emptyResident: ResidentState = residentOf(emptyLogState)

/** A slice holding the resident parts and no rows. */
export const sliceOfResident = (resident: ResidentState): LogState => ({
  ...emptyLogState,
  size: resident.counters.size,
  lastLogged: resident.counters.lastLogged,
  service: resident.service,
  governance: resident.governance,
  tasks: resident.tasks,
  tallies: resident.counters.tallies,
  // A store written before the counter existed has another layout: it is rebuilt.
  ciphertextBytes: resident.counters.ciphertextBytes,
  sup: {
    ...emptyLogState.sup,
    creditedTotal: resident.counters.creditedTotal,
    spentTotal: resident.counters.spentTotal,
    contributionsCredited: resident.counters.contributionsCredited
  }
})

/** The slice with the loaded rows added (rows it already holds are kept: they may be newer). */
export const withRows = (slice: LogState, loaded: LoadedRows): LogState => {
  let state = slice
  for (const { area, key, value } of loaded.rows) {
    const spec = ROW_AREAS[area]
    const k = spec.keyOf(key)
    if (HashMap.has(spec.get(state), k)) continue
    state = spec.set(state, HashMap.set(spec.get(state), k, value))
    if (area === "postMeta") state = { ...state, posts: HashSet.add(state.posts, k as number) }
  }
  for (const record of loaded.names) {
    if (!HashMap.has(state.names, record.name)) state = { ...state, names: HashMap.set(state.names, record.name, record) }
  }
  return state
}

/** What a run of leaves changed, as the store writes it. */
export interface StateChanges {
  /** Rows to write, values without their nested lists. */
  readonly upserts: ReadonlyArray<StateRow>
  readonly deletes: ReadonlyArray<{ readonly area: MapAreaName; readonly key: StoredKey }>
  readonly appends: ReadonlyArray<ListAppend>
  /** Names as they stand after the run. */
  readonly names: ReadonlyArray<NameRecord>
  /** The resident parts after the run, and which of them changed. */
  readonly resident: ResidentState
  readonly residentChanged: { readonly service: boolean; readonly governance: boolean; readonly tasks: boolean }
}

/**
 * The rows that differ between a slice and the slice after some leaves were applied to it.
 * Persistent maps keep the values they did not touch, so a changed row is one whose value
 * is not the same object any more.
 */
export const changesOf = (before: LogState, after: LogState): StateChanges => {
  const upserts: Array<StateRow> = []
  const deletes: Array<{ area: MapAreaName; key: StoredKey }> = []
  for (const [area, spec] of Object.entries(ROW_AREAS) as Array<[MapAreaName, (typeof ROW_AREAS)[MapAreaName]]>) {
    const was = spec.get(before)
    const now = spec.get(after)
    if (was === now) continue
    for (const [key, value] of now) {
      const old = HashMap.get(was, key)
      if (Option.isSome(old) && old.value === value) continue
      upserts.push({ area, key: String(key), value: spec.nested === undefined ? value : spec.nested.strip(value) })
    }
    for (const key of HashMap.keys(was)) if (!HashMap.has(now, key)) deletes.push({ area, key: String(key) })
  }
  const names: Array<NameRecord> = []
  if (before.names !== after.names) {
    for (const [name, record] of after.names) {
      const old = HashMap.get(before.names, name)
      if (Option.isNone(old) || old.value !== record) names.push(record)
    }
  }
  const appends = listAppends(after)
  const resident = residentOf(after)
  return {
    upserts,
    deletes,
    appends,
    names,
    resident: { ...resident, counters: { ...resident.counters, tallies: talliesAfter(before.tallies, before, after, appends) } },
    residentChanged: {
      service: before.service !== after.service,
      governance: before.governance !== after.governance,
      tasks: before.tasks !== after.tasks
    }
  }
}

/** The slice after a commit: the resident parts kept, every row and list emptied. */
export const afterCommit = (state: LogState): LogState => sliceOfResident(residentOf(state))

/** The changes of a run of `size` leaves in all that changed only names (benchmarks and store tests). */
export const namesOnlyChanges = (names: ReadonlyArray<NameRecord>, size: number): StateChanges => ({
  upserts: [],
  deletes: [],
  appends: [],
  names,
  resident: { ...emptyResident, counters: { ...emptyResident.counters, size } },
  residentChanged: { service: false, governance: false, tasks: false }
})
