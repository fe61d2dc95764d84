// The directory's search on PostgreSQL (src/adapters/pg/pgNameSearch.ts): its choice of
// the next step, and its answers, which must be those of a plain filter of the names in
// claim order whichever way it took: budgets small enough that a few hundred names take
// every branch (the probe fills the page, the walk goes on, the index answers a rare part,
// a short part walks to the end), and the service's own budget.

import * as SqlClient from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { nextStep, SEARCH_BUDGET, type SearchBudget, searchClaimIndexes } from "../../../src/adapters/pg/pgNameSearch.js"
import { PgProjectionStoreLive } from "../../../src/adapters/pg/PgProjectionStore.js"
import { rowOfRecord } from "../../../src/adapters/projection/nameRows.js"
import { ProjectionStore } from "../../../src/ports/ProjectionStore.js"
import { claimed, step } from "../../ports/ProjectionStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn, upgradeAcross } from "./open.js"

const db = testDatabase()

const SMALL: SearchBudget = { probeRows: 8, walkBudget: 64, indexRowCost: 4, maxWindow: 32 }

// Names as people make them, word-animal-number, in runs that share an animal (so a part
// can be common overall and absent from the first names), and a few rare ones late.
const WORDS = ["amber", "bold", "calm", "deep", "ember", "fern", "misty", "wild"]
const ANIMALS = ["ant", "bear", "cat", "crow", "whale", "wolf"]
const nameAt = (i: number) =>
  i % 97 === 96 ? `rare-${i}` : `${WORDS[i % WORDS.length]}-${ANIMALS[Math.floor(i / 40) % ANIMALS.length]}${Math.floor(i / WORDS.length)}`
const NAMES = Array.from({ length: 700 }, (_, i) => claimed(nameAt(i), 3 + 2 * i))

/** What the search must answer: a filter of the names in claim order. */
const expected = (part: string, after: number, need: number) =>
  NAMES.filter((r) => r.claimIndex > after && r.name.includes(part)).slice(0, need).map((r) => r.claimIndex)

describe("nextStep", () => {
  const MILLION = 1_000_000

  it("walks a part without trigrams in windows that double, up to the largest", () => {
    expect(nextStep({ walked: 8, found: 0, need: 11, indexed: false, names: 700 }, SMALL)).toBe(32)
    expect(nextStep({ walked: 8, found: 4, need: 11, indexed: false, names: 700 }, SMALL)).toBe(28)
    expect(nextStep({ walked: 4096, found: 1, need: 101, indexed: false, names: MILLION })).toBe(SEARCH_BUDGET.maxWindow)
  })

  it("asks the index for a part it has not found, or whose rest would take more than the budget to walk", () => {
    expect(nextStep({ walked: 2048, found: 0, need: 101, indexed: true, names: MILLION })).toBe("index")
    // 101 - 6 more at 6 in 2,048: about 32,400 more rows, past 32,768 in all.
    expect(nextStep({ walked: 2048, found: 6, need: 101, indexed: true, names: MILLION })).toBe("index")
  })

  it("asks the index when its matches cost less than the rows left to walk", () => {
    // 101 - 8 more at 8 in 2,048: 23,808 rows to walk; the index's matches, 8 in 2,048 of
    // a million names, 3,906 at 4 rows each: 15,625.
    expect(nextStep({ walked: 2048, found: 8, need: 101, indexed: true, names: MILLION })).toBe("index")
    // At 22,000 names a part in 3 of 2,048 has about 33 matches: the index, not 67,000 rows.
    expect(nextStep({ walked: 2048, found: 3, need: 51, indexed: true, names: 22_000 })).toBe("index")
    // A common part's matches cost more than walking for the page: walk on.
    expect(nextStep({ walked: 2048, found: 80, need: 101, indexed: true, names: 22_000 })).not.toBe("index")
  })

  it("walks on, twice the estimate and at least a probe, within what is left of the budget", () => {
    // 101 - 41 more at 41 in 2,048: about 3,000 rows; twice that.
    expect(nextStep({ walked: 2048, found: 41, need: 101, indexed: true, names: MILLION })).toBe(2 * Math.ceil((60 * 2048) / 41))
    expect(nextStep({ walked: 2048, found: 100, need: 101, indexed: true, names: MILLION })).toBe(SEARCH_BUDGET.probeRows)
    // 101 - 7 more at 7 in 2,048: 27,502 rows fit in the budget, their double does not: the
    // rest of the budget. (At 3,000,000 names the index's 10,254 matches cost 41,016.)
    expect(nextStep({ walked: 2048, found: 7, need: 101, indexed: true, names: 3 * MILLION })).toBe(SEARCH_BUDGET.walkBudget - 2048)
  })
})

/** A schema with the names claimed through the projection store, and its SqlClient. */
const filled = Effect.gen(function*() {
  const url = yield* db.freshSchema
  const context = yield* Layer.build(openOn(db, PgProjectionStoreLive, url))
  const store = Context.get(context, ProjectionStore)
  // Two fold steps, so the names come from two commits.
  expect(yield* store.commit(step(0, 800, NAMES.slice(0, 390)))).toBe(true)
  expect(yield* store.commit(step(800, 2000, NAMES.slice(390)))).toBe(true)
  return Context.get(context, SqlClient.SqlClient)
})

const parts = fc.oneof(
  // A part of a name: common, clustered or rare.
  fc.tuple(fc.nat(NAMES.length - 1), fc.nat(12), fc.integer({ min: 1, max: 8 })).map(([i, start, length]) => NAMES[i]!.name.slice(start, start + length)),
  // Anything of the names' alphabet, and LIKE's own characters.
  fc.stringMatching(/^[a-z0-9%_\\-]{1,5}$/)
).filter((part) => part.length > 0)

describe("searchClaimIndexes", () => {
  it.scoped("answers what a filter of the names in claim order answers, on a small budget and on the service's", () =>
    Effect.gen(function*() {
      const sql = yield* filled
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(parts, fc.integer({ min: -1, max: 1400 }), fc.integer({ min: 1, max: 60 }), fc.boolean(), (part, after, need, small) =>
            Effect.runPromise(Effect.gen(function*() {
              const found = yield* searchClaimIndexes(sql, { part, after, need }, small ? SMALL : SEARCH_BUDGET)
              expect(found).toEqual(expected(part, after, need))
            }))),
          { numRuns: 120 }
        )
      )
    }), 120_000)

  it.scoped("takes each way on purpose: the probe, the walk, the index, the walk of a short part to the end", () =>
    Effect.gen(function*() {
      const sql = yield* filled
      // The statements a search sends, by kind: a window of the walk, or the index.
      const ways = (part: string, need: number) =>
        Effect.gen(function*() {
          const sent: Array<string> = []
          const recording = new Proxy(sql, {
            apply: (target, self, args: [TemplateStringsArray, ...Array<unknown>]) => {
              sent.push(args[0][0]!.trim().startsWith("WITH head") ? "walk" : "index")
              return Reflect.apply(target, self, args)
            }
          })
          expect(yield* searchClaimIndexes(recording, { part, after: -1, need }, SMALL)).toEqual(expected(part, -1, need))
          return sent.join(" ")
        })
      // Common everywhere: the probe fills the page.
      expect(yield* ways("am", 1)).toBe("walk")
      // "er-" in 2 of every 8 names: the probe finds 2, the walk goes on for the rest.
      expect(yield* ways("er-", 5)).toBe("walk walk")
      // "whale" from name 160 on, "rare-" once in 97: nothing in the probe, the index.
      expect(yield* ways("whale", 11)).toBe("walk index")
      expect(yield* ways("rare-", 3)).toBe("walk index")
      // "-ant" in the first 40 names, then not until name 240: the walk, then the index.
      expect(yield* ways("-ant", 60)).toBe("walk walk index")
      // A short part found nowhere walks every window to the end (the largest is 32 names).
      expect((yield* ways("zz", 5)).split(" ")).toEqual(Array.from({ length: 1 + Math.ceil((NAMES.length - 8) / 32) }, () => "walk"))
      for (const part of ["am", "amber", "whale", "-whale5", "rare-", "are-6", "er-", "-ant", "t2", "2", "zz"]) {
        for (const need of [1, 5, 11, 40, 60]) {
          expect(yield* searchClaimIndexes(sql, { part, after: -1, need }, SMALL)).toEqual(expected(part, -1, need))
        }
      }
    }))

  it.scoped("finds the names claimed before the search table existed, after the migration that made it", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const ran = yield* upgradeAcross(url, "0018", (sql) => sql`INSERT INTO aics_projection_names ${sql.insert(NAMES.slice(0, 300).map(rowOfRecord))}`)
      expect(ran[0]).toBe("projection_name_search")
      const sql = Context.get(yield* Layer.build(openOn(db, PgProjectionStoreLive, url)), SqlClient.SqlClient)
      for (const part of ["wolf", "rare-", "amber-cat0"]) {
        expect(yield* searchClaimIndexes(sql, { part, after: -1, need: 400 })).toEqual(
          NAMES.slice(0, 300).filter((r) => r.name.includes(part)).map((r) => r.claimIndex)
        )
      }
    }))
})
