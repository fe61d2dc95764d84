import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expect } from "vitest"
import { PgGateSecretsLive } from "../../../src/adapters/pg/PgGateSecrets.js"
import { GateSecrets } from "../../../src/ports/GateSecrets.js"
import { gateSecretsContract } from "../../ports/GateSecrets.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgGateSecretsLive, url)

gateSecretsContract("PgGateSecrets", { fresh: Effect.map(db.freshSchema, open), durable: true })

it.scoped.runIf(db.multiSession)("PgGateSecrets: puts of one pair from separate pools keep the first", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const pools = yield* Effect.forEach([0, 1, 2], () => Effect.map(Layer.build(open(url)), Context.get(GateSecrets)))
    const answers = yield* Effect.forEach(pools, (secrets, i) => secrets.put("carol", 5, `scrypt$${i}`), { concurrency: "unbounded" })
    expect(answers.filter((a) => a)).toHaveLength(1)
    for (const secrets of pools) expect(yield* secrets.get("carol", 5)).toBe(`scrypt$${answers.indexOf(true)}`)
  }))
