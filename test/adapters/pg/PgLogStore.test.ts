import { it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { describe, expect } from "vitest"
import { PgLogStoreLive } from "../../../src/adapters/pg/PgLogStore.js"
import { equal, toHex } from "../../../src/domain/bytes.js"
import { storedHashCount } from "../../../src/domain/tlog/storedHash.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import { entryBytes, expectStoreMatches, LogModel, logStoreContract } from "../../ports/LogStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgLogStoreLive, url)

logStoreContract("PgLogStore", { fresh: Effect.map(db.freshSchema, open), durable: true, propertyRuns: 10 })

describe("PgLogStore on PostgreSQL", () => {
  it.scoped("appends large batches in one append each, across statements", () =>
    Effect.gen(function*() {
      const store = Context.get(yield* Layer.build(open(yield* db.freshSchema)), LogStore)
      const model = new LogModel()
      // 5,000 leaves, then 300 of the largest size: 19.7 MB, more than one statement holds.
      yield* store.append(0, model.add(Array.from({ length: 5_000 }, (_, i) => entryBytes(i, 50 + (i % 700)))))
      yield* store.append(5_000, model.add(Array.from({ length: 300 }, (_, i) => entryBytes(10_000 + i, 65_535))))
      // Compared byte by byte, not through expectStoreMatches: hex of 20 MB is slow.
      expect(yield* store.size).toBe(5_300)
      const entries = yield* store.readEntries(0, 5_300)
      expect(entries.every((entry, i) => equal(entry, model.entries[i]!))).toBe(true)
      expect((yield* store.readHashRange(0, storedHashCount(5_300))).map(toHex)).toEqual(model.hashes.map(toHex))
      for (const index of [0, 1, 4_999, 5_000, 5_299]) {
        expect(yield* store.findLeaf(model.hashes[storedHashCount(index)]!)).toEqual(Option.some(index))
      }
    }))

  // Several API processes, each with its own pool, appending to one log: every round, all
  // of them try to append at the size they read; exactly one wins, and the log that every
  // process then reads is the model of the winners, with no leaf or hash of a loser.
  it.scoped.runIf(db.multiSession)("writers on separate pools (several nodes) never fork the log", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const stores = yield* Effect.forEach([0, 1, 2, 3], () => Effect.map(Layer.build(open(url)), Context.get(LogStore)))
      const model = new LogModel()
      for (let round = 0; round < 30; round++) {
        const entries = stores.map((_, w) => Array.from({ length: 1 + ((round + w) % 5) }, (_, i) => entryBytes(1_000 * round + 100 * w + i, 40)))
        const start = model.size
        const results = yield* Effect.all(
          stores.map((store, w) => Effect.either(store.append(start, model.peek(entries[w]!)))),
          { concurrency: "unbounded" }
        )
        const winners = results.flatMap((result, w) => (result._tag === "Right" ? [w] : []))
        expect(winners).toHaveLength(1)
        model.add(entries[winners[0]!]!)
      }
      for (const store of stores) yield* expectStoreMatches(store, model)
    }))
})
