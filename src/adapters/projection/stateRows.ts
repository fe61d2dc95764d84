// How the state's rows, lists and resident parts are laid out in the projection stores'
// generic tables (issue 12), shared by the SQLite and the PostgreSQL stores:
//
//   state rows  (area, key) -> value       the map areas (domain/write/stateAreas.ts), plus
//                                          area "resident" (counters, service, governance,
//                                          tasks), area "activity" (actor -> latest leaf)
//                                          and area "retention" (key "cursor": where
//                                          retention stands, decimal text)
//   state lists (area, key, n) -> value    the list areas, n = 0 for the first element
//
// Values are stateJson text. Names are in their own table (nameRows.ts).

import { Effect } from "effect"
import type { Activity } from "../../domain/telemetry/activity.js"
import type { ListAppend } from "../../domain/write/stateAreas.js"
import { activityOfRows, emptyResident, type ResidentState, type StateChanges } from "../../domain/write/stateSlice.js"
import { stateJson, stateOfJson } from "./stateJson.js"

export const RESIDENT_AREA = "resident"
export const ACTIVITY_AREA = "activity"
/** The row of where retention stands (ProjectionStore.retained): not a fold of the leaves, so no commit writes it. */
export const RETENTION_AREA = "retention"
export const RETENTION_KEY = "cursor"

export type StoredRow = {
  readonly area: string
  readonly key: string
  readonly value: string
}

/** The rows a commit writes and deletes in the rows table, resident parts and activity included. */
export const rowWrites = (changes: StateChanges): { readonly upserts: ReadonlyArray<StoredRow>; readonly deletes: ReadonlyArray<{ readonly area: string; readonly key: string }> } => {
  const upserts: Array<StoredRow> = changes.upserts.map(({ area, key, value }) => ({ area, key, value: stateJson(value) }))
  const { resident, residentChanged } = changes
  upserts.push({ area: RESIDENT_AREA, key: "counters", value: stateJson(resident.counters) })
  if (residentChanged.service) upserts.push({ area: RESIDENT_AREA, key: "service", value: stateJson(resident.service ?? null) })
  if (residentChanged.governance) upserts.push({ area: RESIDENT_AREA, key: "governance", value: stateJson(resident.governance) })
  if (residentChanged.tasks) upserts.push({ area: RESIDENT_AREA, key: "tasks", value: stateJson(resident.tasks) })
  for (const [actor, activity] of changes.activity.upserts) upserts.push({ area: ACTIVITY_AREA, key: actor, value: stateJson(activity) })
  const deletes = [
    ...changes.deletes,
    ...changes.activity.deletes.map((actor) => ({ area: ACTIVITY_AREA, key: actor }))
  ]
  return { upserts, deletes }
}

/** The resident parts of the stored resident and activity rows. */
export const residentOfRows = (resident: ReadonlyArray<StoredRow>, activity: ReadonlyArray<StoredRow>): ResidentState => {
  const part = (key: string) => {
    const found = resident.find((row) => row.key === key)
    return found === undefined ? undefined : stateOfJson(found.value)
  }
  const service = part("service")
  return {
    counters: (part("counters") as ResidentState["counters"] | undefined) ?? emptyResident.counters,
    service: service === undefined || service === null ? undefined : service as ResidentState["service"],
    governance: (part("governance") as ResidentState["governance"] | undefined) ?? emptyResident.governance,
    tasks: (part("tasks") as ResidentState["tasks"] | undefined) ?? emptyResident.tasks,
    activity: activityOfRows(activity.map((row) => [row.key, stateOfJson(row.value) as Activity] as const))
  }
}

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
