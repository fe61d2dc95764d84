// How the state's rows, lists and resident parts are laid out in the projection stores'
// generic tables (issue 12), shared by the SQLite and the PostgreSQL stores:
//
//   state rows  (area, key) -> value       the map areas (domain/write/stateAreas.ts), plus
//                                          area "resident" (counters, service, governance,
//                                          tasks) and area "retention" (key "cursor": where
//                                          retention stands, decimal text)
//   state lists (area, key, n) -> value    the list areas, n = 0 for the first element
//   activity    actor -> (logged, leaf,    the row area `activity` (each agent's latest
//                         value)           public leaf), in a table of its own so that an
//                                          index on (logged, leaf) can count and list the
//                                          agents of an /online window (a count over an
//                                          expression index on the JSON took 0.9 µs an
//                                          agent, over this index 0.02 µs)
//
// Values are stateJson text. Names are in their own table (nameRows.ts).

import { Effect } from "effect"
import type { Activity, RecentActivity } from "../../domain/telemetry/activity.js"
import type { RetentionWalk } from "../../ports/ProjectionStore.js"
import type { ListAppend, MapAreaName } from "../../domain/write/stateAreas.js"
import { emptyResident, type ResidentState, type StateChanges } from "../../domain/write/stateSlice.js"
import { stateJson, stateOfJson } from "./stateJson.js"

export const RESIDENT_AREA = "resident"
/** The row area kept in the activity table instead of the rows table. */
export const ACTIVITY_AREA: MapAreaName = "activity"
/** The rows of where retention's walks stand (ProjectionStore.retained): not a fold of the leaves, so no commit writes them. */
export const RETENTION_AREA = "retention"

/** Each walk's row; the ciphertext's keeps the key it had when it was the only walk, so existing stores go on from it. */
export const retentionKey = (walk: RetentionWalk): string => (walk === "ciphertexts" ? "cursor" : walk)

export type StoredRow = {
  readonly area: string
  readonly key: string
  readonly value: string
}

/**
 * The activity rows are also counted by the minute their `logged` falls in (a table of
 * minute -> agents whose latest public leaf was logged then): /online's count of a window is
 * the sum of the whole minutes after its start plus the rows of its first minute, a day's
 * window 1,440 rows rather than every agent active that day. A commit takes its actors out
 * of their minutes before it writes their rows and puts them back in after.
 */
export const ACTIVITY_MINUTE_MS = 60_000

/** The minute (ACTIVITY_MINUTE_MS) `logged` falls in, as the stores' SQL computes it for a logged time >= 0. */
export const activityMinute = (logged: number): number => Math.floor(logged / ACTIVITY_MINUTE_MS)

/** A row of the activity table. */
export type ActivityRow = {
  readonly actor: string
  readonly logged: number
  readonly leaf: number
  readonly value: string
}

/**
 * What a commit writes: rows and deletes in the rows table (resident parts included), and
 * activity rows and the actors whose row goes in the activity table.
 */
export const rowWrites = (changes: StateChanges): {
  readonly upserts: ReadonlyArray<StoredRow>
  readonly deletes: ReadonlyArray<{ readonly area: string; readonly key: string }>
  readonly activity: { readonly upserts: ReadonlyArray<ActivityRow>; readonly deletes: ReadonlyArray<string> }
} => {
  const upserts: Array<StoredRow> = []
  const activity: Array<ActivityRow> = []
  for (const { area, key, value } of changes.upserts) {
    if (area !== ACTIVITY_AREA) upserts.push({ area, key, value: stateJson(value) })
    else {
      const { logged, index } = value as Activity
      activity.push({ actor: key, logged, leaf: index, value: stateJson(value) })
    }
  }
  const { resident, residentChanged } = changes
  upserts.push({ area: RESIDENT_AREA, key: "counters", value: stateJson(resident.counters) })
  if (residentChanged.service) upserts.push({ area: RESIDENT_AREA, key: "service", value: stateJson(resident.service ?? null) })
  if (residentChanged.governance) upserts.push({ area: RESIDENT_AREA, key: "governance", value: stateJson(resident.governance) })
  if (residentChanged.tasks) upserts.push({ area: RESIDENT_AREA, key: "tasks", value: stateJson(resident.tasks) })
  return {
    upserts,
    deletes: changes.deletes.filter((row) => row.area !== ACTIVITY_AREA),
    activity: { upserts: activity, deletes: changes.deletes.flatMap((row) => (row.area === ACTIVITY_AREA ? [row.key] : [])) }
  }
}

/** The resident parts of the stored resident rows. */
export const residentOfRows = (resident: ReadonlyArray<StoredRow>): ResidentState => {
  const part = (key: string) => {
    const found = resident.find((row) => row.key === key)
    return found === undefined ? undefined : stateOfJson(found.value)
  }
  const service = part("service")
  return {
    counters: (part("counters") as ResidentState["counters"] | undefined) ?? emptyResident.counters,
    service: service === undefined || service === null ? undefined : service as ResidentState["service"],
    governance: (part("governance") as ResidentState["governance"] | undefined) ?? emptyResident.governance,
    tasks: (part("tasks") as ResidentState["tasks"] | undefined) ?? emptyResident.tasks
  }
}

/**
 * The answer of a store's recentActivity statement: the window's newest activity rows,
 * each carrying the window's count (the statement asks for at least one row, so that a
 * window with agents always brings its count; `limit` cuts what it asked beyond).
 */
export const recentOfRows = (rows: ReadonlyArray<{ readonly value: string; readonly count: number | string }>, limit: number): RecentActivity => ({
  count: rows.length === 0 ? 0 : Number(rows[0]!.count),
  latest: rows.slice(0, limit).map((row) => stateOfJson(row.value) as Activity)
})

/** The rows of one list append, numbered after the list's `length` elements. */
export const listRows = (append: ListAppend, length: number) =>
  append.elements.map((element, i) => ({ area: append.area, key: append.key, n: length + i, value: stateJson(element) }))

/** Keys asked for in one statement (well under either database's limit on parameters). */
export const KEYS_PER_SELECT = 500

/** The row keys asked for, by area (names, in their own table, left out). */
export const keysByArea = <Area extends string>(
  keys: ReadonlyArray<{ readonly area: Area; readonly key: string }>
): ReadonlyMap<Exclude<Area, "names">, ReadonlyArray<string>> => {
  const byArea = new Map<Exclude<Area, "names">, Array<string>>()
  for (const { area: asked, key } of keys) {
    if (asked === "names") continue
    const area = asked as Exclude<Area, "names">
    const list = byArea.get(area)
    if (list === undefined) byArea.set(area, [key])
    else list.push(key)
  }
  return byArea
}

/** A list's identity in a map: its area and key. */
export const listId = (area: string, key: string): string => `${area}\u0000${key}`

/** The lists a commit appends to, each once. */
export const appendedLists = (appends: ReadonlyArray<ListAppend>): ReadonlyArray<{ readonly area: string; readonly key: string }> =>
  [...new Map(appends.map(({ area, key }) => [listId(area, key), { area, key }])).values()]

/**
 * The rows of every append of a commit, each list's numbered after its stored `lengths`
 * (by listId; absent is empty) and after what earlier appends of the commit added to it.
 */
export const appendRows = (appends: ReadonlyArray<ListAppend>, lengths: ReadonlyMap<string, number>) => {
  const next = new Map(lengths)
  return appends.flatMap((append) => {
    const id = listId(append.area, append.key)
    const rows = listRows(append, next.get(id) ?? 0)
    next.set(id, (next.get(id) ?? 0) + rows.length)
    return rows
  })
}

/**
 * The keys of an area's lists after `after`, at most `limit`, one `next` (the store's one
 * index seek for the first key after a key, or the first key) a key: ProjectionStore.listKeys.
 */
export const keysBySeek = <E>(
  next: (after: string | undefined) => Effect.Effect<string | undefined, E>,
  after: string | undefined,
  limit: number
): Effect.Effect<ReadonlyArray<string>, E> =>
  Effect.gen(function*() {
    const keys: Array<string> = []
    for (let last = after; keys.length < limit;) {
      const key = yield* next(last)
      if (key === undefined) break
      keys.push(last = key)
    }
    return keys
  })
