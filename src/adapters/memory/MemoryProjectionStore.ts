// The projection store in memory (src/ports/ProjectionStore.ts): the contract without
// durability, for tests and the pure logs of test/support, which decide every entry on a
// slice loaded from it as well as on the whole state and compare. Values are held as the
// text the durable stores write (stateJson.ts), so the codec is exercised with every row.
// Every operation is synchronous, so `makeMemoryProjectionStore` can be run with
// Effect.runSync.

import { Effect, HashMap, Layer } from "effect"
import type { NameRecord } from "../../domain/write/logState.js"
import type { StateRow } from "../../domain/write/stateSlice.js"
import { ProjectionStore, type RetentionWalk } from "../../ports/ProjectionStore.js"
import { stateOfJson } from "../projection/stateJson.js"
import { type Activity, recentActivity } from "../../domain/telemetry/activity.js"
import { ACTIVITY_AREA, listRows, RESIDENT_AREA, residentOfRows, rowWrites, type StoredRow } from "../projection/stateRows.js"

const idOf = (area: string, key: string): string => `${area}\u0000${key}`

/** Where retention's walks stand in a new store. */
const NOT_RETAINED: Record<RetentionWalk, number> = { ciphertexts: 0, tombstones: 0 }

/** Code-point order, as the durable stores compare text (SQLite's BINARY, PostgreSQL's "C" collation). */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export const makeMemoryProjectionStore = (): typeof ProjectionStore.Service => {
  let folded = 0
  let lastLeaf: Uint8Array | null = null
  let names = new Map<string, NameRecord>()
  let rows = new Map<string, StoredRow>()
  let lists = new Map<string, Array<string>>()
  let retained: Record<RetentionWalk, number> = NOT_RETAINED

  const rowsOfArea = (area: string) => [...rows.values()].filter((row) => row.area === area)

  return ProjectionStore.of({
    folded: Effect.sync(() => folded),
    lastLeaf: Effect.sync(() => lastLeaf),
    commit: ({ from, upTo, lastLeaf: leaf, changes }) =>
      Effect.sync(() => {
        if (from !== folded) return false
        const { upserts, deletes, activity } = rowWrites(changes)
        for (const row of upserts) rows.set(idOf(row.area, row.key), row)
        for (const { area, key } of deletes) rows.delete(idOf(area, key))
        // The activity table's rows, kept here as rows of their area.
        for (const { actor, value } of activity.upserts) rows.set(idOf(ACTIVITY_AREA, actor), { area: ACTIVITY_AREA, key: actor, value })
        for (const actor of activity.deletes) rows.delete(idOf(ACTIVITY_AREA, actor))
        for (const append of changes.appends) {
          const list = lists.get(idOf(append.area, append.key)) ?? []
          for (const row of listRows(append, list.length)) list.push(row.value)
          lists.set(idOf(append.area, append.key), list)
        }
        for (const record of changes.names) names.set(record.name, record)
        folded = upTo
        lastLeaf = leaf
        return true
      }),
    names: (list) => Effect.sync(() => new Map(list.flatMap((name) => (names.has(name) ? [[name, names.get(name)!] as const] : [])))),
    directory: ({ part, after, limit }) =>
      Effect.sync(() => {
        const matching = [...names.values()]
          .filter((record) => record.claimIndex > (after ?? -1) && (part === undefined || record.name.includes(part)))
          .sort((a, b) => a.claimIndex - b.claimIndex)
        return {
          names: matching.slice(0, limit).map(({ events: _events, ...fields }) => fields),
          truncated: matching.length > limit
        }
      }),
    recoveryNames: (kid, { from, limit }) =>
      Effect.sync(() =>
        [...names.values()]
          .filter((record) => record.recovery === kid && record.claimIndex >= from)
          .sort((a, b) => a.claimIndex - b.claimIndex)
          .slice(0, limit)
          .map((record) => ({ name: record.name, claimIndex: record.claimIndex }))),
    rows: (keys) =>
      Effect.sync(() => {
        const found: Array<StateRow> = []
        const named: Array<NameRecord> = []
        for (const { area, key } of keys) {
          if (area === "names") {
            const record = names.get(key)
            if (record !== undefined) named.push(record)
            continue
          }
          const row = rows.get(idOf(area, key))
          if (row !== undefined) found.push({ area, key, value: stateOfJson(row.value) })
        }
        return { rows: found, names: named }
      }),
    resident: Effect.sync(() => residentOfRows(rowsOfArea(RESIDENT_AREA))),
    recentActivity: (since, limit) =>
      Effect.sync(() => recentActivity(HashMap.fromIterable(rowsOfArea(ACTIVITY_AREA).map((row) => [row.key, stateOfJson(row.value) as Activity])), since, limit)),
    list: (area, key, { before, limit }) =>
      Effect.sync(() => {
        const list = lists.get(idOf(area, key)) ?? []
        const end = Math.min(before ?? list.length, list.length)
        const elements: Array<{ n: number; value: unknown }> = []
        for (let n = end - 1; n >= 0 && elements.length < limit; n--) elements.push({ n, value: stateOfJson(list[n]!) })
        return { length: list.length, elements }
      }),
    listKeys: (area, { after, limit }) =>
      Effect.sync(() =>
        [...lists.keys()]
          .filter((id) => id.startsWith(`${area}\u0000`))
          .map((id) => id.slice(area.length + 1))
          .filter((key) => after === undefined || key > after)
          .sort(byCodePoint)
          .slice(0, limit)),
    rowKeys: (area, { after, limit }) =>
      Effect.sync(() =>
        rowsOfArea(area)
          .map((row) => row.key)
          .filter((key) => after === undefined || key > after)
          .sort(byCodePoint)
          .slice(0, limit)),
    retained: (walk) => Effect.sync(() => retained[walk]),
    retain: (walk, position) => Effect.sync(() => void (retained = { ...retained, [walk]: Math.max(retained[walk], position) })),
    reset: Effect.sync(() => {
      retained = NOT_RETAINED
      folded = 0
      lastLeaf = null
      names = new Map()
      rows = new Map()
      lists = new Map()
    })
  })
}

export const MemoryProjectionStoreLive = Layer.sync(ProjectionStore, makeMemoryProjectionStore)
