import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expect } from "vitest"
import { PgStatsStoreLive } from "../../../src/adapters/pg/PgStatsStore.js"
import { StatsStore } from "../../../src/ports/StatsStore.js"
import { sorted, statsStoreContract } from "../../ports/StatsStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgStatsStoreLive, url)

statsStoreContract("PgStatsStore", { fresh: Effect.map(db.freshSchema, open), durable: true })

it.scoped.runIf(db.multiSession)("PgStatsStore: concurrent adds from three nodes (three pools) all count", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const pools = yield* Effect.forEach([0, 1, 2], () => Effect.map(Layer.build(open(url)), Context.get(StatsStore)))
    const keys = ["2026-03-01 program entries ok le_50", "2026-03-01 browser forum ok le_100", "2026-03-02 program tlog ok le_50"]
    // Each add counts every key, in an order of its own: 30 adds of 1, 2 or 3 to each.
    yield* Effect.forEach(Array.from({ length: 30 }, (_, i) => i), (i) =>
      pools[i % 3]!.add((i % 2 === 0 ? keys : [...keys].reverse()).map((k) => [k, 1 + (i % 3)] as const), []),
      { concurrency: "unbounded" })
    for (const store of pools) expect(sorted(yield* store.load)).toEqual(sorted(keys.map((k) => [k, 60])))
  }))
