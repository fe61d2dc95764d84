import { it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { expect } from "vitest"
import { PgContributionIntentsLive } from "../../../src/adapters/pg/PgContributionIntents.js"
import { MAX_OPEN_INTENTS } from "../../../src/domain/sup/contributions.js"
import { ContributionIntents } from "../../../src/ports/ContributionIntents.js"
import { contributionIntentsContract, intent } from "../../ports/ContributionIntents.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgContributionIntentsLive, url)
const T = 1_767_225_600

contributionIntentsContract("PgContributionIntents", { fresh: Effect.map(db.freshSchema, open), durable: true })

/** Three nodes: three pools on one schema. */
const nodes = (url: string) => Effect.forEach([0, 1, 2], () => Effect.map(Layer.build(open(url)), Context.get(ContributionIntents)))

it.scoped.runIf(db.multiSession)("PgContributionIntents: an intent reserved on one node is read and credited on another", () =>
  Effect.gen(function*() {
    const [a, b] = yield* nodes(yield* db.freshSchema)
    expect(yield* a!.reserve(intent("shared", { units: "7000001" }), T)).toBe("reserved")
    expect(Option.getOrThrow(yield* b!.get("shared")).intent).toEqual(intent("shared", { units: "7000001" }))
    yield* b!.credited("shared", 12)
    expect(Option.getOrThrow(yield* a!.get("shared")).creditIndex).toBe(12)
  }))

it.scoped.runIf(db.multiSession)("PgContributionIntents: concurrent reserves on several nodes never share units, and keep the cap", () =>
  Effect.gen(function*() {
    const pools = yield* nodes(yield* db.freshSchema)
    // 60 reserves of 6 units, from 3 nodes at once: one intent per units value.
    const sameUnits = yield* Effect.forEach(
      Array.from({ length: 60 }, (_, i) => i),
      (i) => pools[i % 3]!.reserve(intent(`u${i}`, { name: `name${i}`, units: String(1000 + (i % 6)) }), T),
      { concurrency: "unbounded" }
    )
    expect(sameUnits.filter((r) => r === "reserved")).toHaveLength(6)
    expect(sameUnits.filter((r) => r === "taken")).toHaveLength(54)
    // 40 reserves of one name, distinct units, from 3 nodes at once: exactly the cap.
    const oneName = yield* Effect.forEach(
      Array.from({ length: 40 }, (_, i) => i),
      (i) => pools[i % 3]!.reserve(intent(`c${i}`, { name: "carol", units: String(2000 + i) }), T),
      { concurrency: "unbounded" }
    )
    expect(oneName.filter((r) => r === "reserved")).toHaveLength(MAX_OPEN_INTENTS)
    expect(oneName.filter((r) => r === "too_many")).toHaveLength(40 - MAX_OPEN_INTENTS)
  }))
