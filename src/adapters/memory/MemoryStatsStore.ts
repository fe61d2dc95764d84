// Request statistics in memory (tests; the contract without durability).

import { Effect, Layer } from "effect"
import { StatsStore, type StatsCounters } from "../../ports/StatsStore.js"

/** The counters after an add: the increments added, the dropped ones gone; shared with the FS adapter. */
export const addedCounters = (counters: StatsCounters, increments: StatsCounters, drop: ReadonlyArray<string>): StatsCounters => {
  const next = new Map(counters)
  for (const key of drop) next.delete(key)
  for (const [key, count] of increments) next.set(key, (next.get(key) ?? 0) + count)
  return [...next]
}

export const MemoryStatsStoreLive = Layer.sync(StatsStore, () => {
  let counters: StatsCounters = []
  return {
    load: Effect.sync(() => counters),
    add: (increments, drop) => Effect.sync(() => { counters = addedCounters(counters, increments, drop) })
  }
})
