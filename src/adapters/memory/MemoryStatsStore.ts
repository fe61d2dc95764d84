// Request statistics in memory (tests; the contract without durability).

import { Effect, Layer } from "effect"
import { StatsStore, type StatsCounters } from "../../ports/StatsStore.js"

export const MemoryStatsStoreLive = Layer.sync(StatsStore, () => {
  let saved: StatsCounters = []
  return {
    load: Effect.sync(() => saved),
    save: (counters) => Effect.sync(() => { saved = counters.map(([k, n]) => [k, n] as const) })
  }
})
