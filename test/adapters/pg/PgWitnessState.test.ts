import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expect } from "vitest"
import { PgCosignaturesLive } from "../../../src/adapters/pg/PgCosignatures.js"
import { PgWitnessStateLive } from "../../../src/adapters/pg/PgWitnessState.js"
import { Cosignatures } from "../../../src/ports/Cosignatures.js"
import { WitnessState } from "../../../src/ports/WitnessState.js"
import { cosignaturesContract } from "../../ports/Cosignatures.contract.js"
import { witnessStateContract } from "../../ports/WitnessState.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn, upgradeAcross } from "./open.js"

const db = testDatabase()

witnessStateContract("PgWitnessState", { fresh: Effect.map(db.freshSchema, (url) => openOn(db, PgWitnessStateLive, url)), durable: true })
cosignaturesContract("PgCosignatures", { fresh: Effect.map(db.freshSchema, (url) => openOn(db, PgCosignaturesLive, url)), durable: true })

it.scoped.runIf(db.multiSession)("PgWitnessState: of advances from one size by separate pools, one wins", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const pools = yield* Effect.forEach([0, 1, 2], () => Effect.map(Layer.build(openOn(db, PgWitnessStateLive, url)), Context.get(WitnessState)))
    const record = (size: number) => ({ size, rootHash: new Uint8Array(32).fill(size), note: new Uint8Array([size]) })
    const answers = yield* Effect.forEach(pools, (state, i) => state.advance("example.com/log", 0, record(i + 1)), { concurrency: "unbounded" })
    expect(answers.filter((a) => a)).toHaveLength(1)
    for (const state of pools) expect((yield* state.read("example.com/log"))?.size).toBe(answers.indexOf(true) + 1)
  }))

it.scoped("PgCosignatures: a schema before migration 0022 keeps its cosignatures and starts without alarms, which it then keeps", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const ran = yield* upgradeAcross(url, "0022", (sql) =>
      sql`INSERT INTO aics_cosignatures ${sql.insert({ witness: "w.example/w+00000001+BA", size: 5, line: "line\n", cosigned_at: 1800000005 })}`)
    expect(ran[0]).toBe("witness_alarms")
    const store = Context.get(yield* Layer.build(openOn(db, PgCosignaturesLive, url)), Cosignatures)
    expect(yield* store.list).toEqual([{ witness: "w.example/w+00000001+BA", size: 5, line: "line\n", timestamp: 1800000005 }])
    expect(yield* store.alarms).toEqual([])
    yield* store.raiseAlarm({ witness: "w.example/w+00000001+BA", detail: "422: refused", raisedAt: 1800000100 })
    expect(yield* store.alarms).toEqual([{ witness: "w.example/w+00000001+BA", detail: "422: refused", raisedAt: 1800000100 }])
  }))
