import * as SqlClient from "@effect/sql/SqlClient"
import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { PgNonceStoreLive } from "../../../src/adapters/pg/PgNonceStore.js"
import { NonceStore } from "../../../src/ports/NonceStore.js"
import { nonceStoreContract } from "../../ports/NonceStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgNonceStoreLive, url)

// A pair is refused while now <= until, and accepted again from the next second.
nonceStoreContract("PgNonceStore", { fresh: Effect.map(db.freshSchema, open), forgottenBy: (until) => until + 1, propertyRuns: 25 })

const T = 1_700_000_040

describe("PgNonceStore on PostgreSQL", () => {
  it.scopedLive("deletes expired pairs in the background, keeping the others", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(open(yield* db.freshSchema))
      const [store, sql] = [Context.get(context, NonceStore), Context.get(context, SqlClient.SqlClient)]
      for (let i = 0; i < 50; i++) expect(yield* store.remember("k", `short-${i}`, T + 10, T)).toBe(true)
      expect(yield* store.remember("k", "long", T + 10_000, T)).toBe(true)
      // A minute later, a remember starts a sweep; it ends soon after (up to 10 s on a busy machine).
      expect(yield* store.remember("k", "later", T + 1_000, T + 100)).toBe(true)
      const count = sql<{ n: string }>`SELECT count(*) AS n FROM aics_nonces`.pipe(Effect.map((rows) => Number(rows[0]!.n)))
      for (let tries = 0; (yield* count) !== 2 && tries < 500; tries++) yield* Effect.sleep("20 millis")
      expect(yield* count).toBe(2)
      expect(yield* store.remember("k", "long", T + 10_000, T + 100)).toBe(false)
    }))

  // Several API processes: a request replayed to every node at once is accepted by one.
  it.scoped.runIf(db.multiSession)("concurrent remembers of one pair from separate pools answer true once", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const stores = yield* Effect.forEach([0, 1, 2, 3], () => Effect.map(Layer.build(open(url)), Context.get(NonceStore)))
      for (let round = 0; round < 20; round++) {
        const answers = yield* Effect.all(
          stores.flatMap((store) => Array.from({ length: 8 }, () => store.remember("k", `race-${round}`, T + 900, T))),
          { concurrency: "unbounded" }
        )
        expect(answers.filter((fresh) => fresh)).toHaveLength(1)
      }
    }))
})
