// Where the owner's request statistics rest between starts (service.md "Owner statistics";
// domain/stats/requestStats.ts): the counters, each a key of five words (day, access
// class, route group, outcome, latency bucket) and a count. Aggregates only: nothing here
// names an address, agent, key, name or content.
//
// Contract (test/ports/StatsStore.contract.ts): an empty store loads no counters; `save`
// replaces all of them at once, so a load sees one whole save, never a mix; a durable
// adapter loads the last save after a reopen.

import type { Effect } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export type StatsCounters = ReadonlyArray<readonly [key: string, count: number]>

export class StatsStore extends Context.Tag("aics/StatsStore")<StatsStore, {
  readonly load: Effect.Effect<StatsCounters, StorageError>
  readonly save: (counters: StatsCounters) => Effect.Effect<void, StorageError>
}>() {}
