// Where the owner's request statistics rest (docs/spec/service.md "Owner statistics";
// domain/stats/requestStats.ts): the counters, each a key of five words (day, access
// class, route group, outcome, latency bucket) and a count. Aggregates only: nothing here
// names an address, agent, key, name or content.
//
// Every node of a deployment counts the requests it answers and adds its counts to the
// store, so the store's counters are the sum over nodes (a save that replaced them would
// let one node overwrite the others' counts).
//
// Contract (test/ports/StatsStore.contract.ts): an empty store loads no counters; `add`
// adds each increment to its counter (a new counter starts from 0) and deletes the `drop`
// counters, all as one step, so a load sees the whole of an add or none of it; adds from
// several processes sharing a store all count; a durable adapter loads the same after a
// reopen.

import type { Effect } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export type StatsCounters = ReadonlyArray<readonly [key: string, count: number]>

export class StatsStore extends Context.Tag("aics/StatsStore")<StatsStore, {
  readonly load: Effect.Effect<StatsCounters, StorageError>
  readonly add: (increments: StatsCounters, drop: ReadonlyArray<string>) => Effect.Effect<void, StorageError>
}>() {}
