import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expect } from "vitest"
import { PgReadCursorsLive } from "../../../src/adapters/pg/PgReadCursors.js"
import { ReadCursors } from "../../../src/ports/ReadCursors.js"
import { readCursorsContract } from "../../ports/ReadCursors.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgReadCursorsLive, url)

readCursorsContract("PgReadCursors", { fresh: Effect.map(db.freshSchema, open), durable: true })

it.scoped.runIf(db.multiSession)("PgReadCursors: concurrent advances from separate pools keep the highest", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const pools = yield* Effect.forEach([0, 1, 2], () => Effect.map(Layer.build(open(url)), Context.get(ReadCursors)))
    const indexes = Array.from({ length: 90 }, (_, i) => (i * 37) % 90)
    yield* Effect.forEach(indexes, (index, i) => pools[i % 3]!.advance("did:key:zA", index), { concurrency: "unbounded" })
    for (const cursors of pools) expect(yield* cursors.get("did:key:zA")).toBe(89)
  }))
