import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expect } from "vitest"
import { PgProjectionStoreLive } from "../../../src/adapters/pg/PgProjectionStore.js"
import { ProjectionStore } from "../../../src/ports/ProjectionStore.js"
import { projectionStoreContract } from "../../ports/ProjectionStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn, upgradeAcross } from "./open.js"

const db = testDatabase()

projectionStoreContract("PgProjectionStore", { fresh: Effect.map(db.freshSchema, (url) => openOn(db, PgProjectionStoreLive, url)) })

it.scoped("PgProjectionStore: the activity rows of a schema before migration 0019 are counted by the minutes it fills", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const row = (name: string, leaf: number, logged: number) =>
      ({ actor: `name:${name}`, logged, leaf, value: JSON.stringify({ kid: null, name, index: leaf, logged, type: "post" }) })
    const ran = yield* upgradeAcross(url, "0019", (sql) =>
      sql`INSERT INTO aics_state_activity ${sql.insert([row("alice", 1, 10_000), row("bob", 2, 70_000), row("carol", 3, 130_000)])}`)
    expect(ran[0]).toBe("state_activity_minutes")
    const store = Context.get(yield* Layer.build(openOn(db, PgProjectionStoreLive, url)), ProjectionStore)
    expect((yield* store.recentActivity(0, 10)).count).toBe(3)
    expect((yield* store.recentActivity(60_000, 10)).count).toBe(2)
    expect((yield* store.recentActivity(70_001, 10)).count).toBe(1)
  }))

it.scoped("PgProjectionStore: the names of a schema before migration 0021 are found by their recovery key from the index it adds", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const row = (name: string, claimIndex: number, recovery: string | null) =>
      ({ name, claim_index: claimIndex, tier: "key", kid: `did:key:z${name}`, kid_index: claimIndex, x25519: `x-${name}`, x25519_index: claimIndex, recovery, events: "[]" })
    const ran = yield* upgradeAcross(url, "0021", (sql) =>
      sql`INSERT INTO aics_projection_names ${sql.insert([row("alice", 1, "did:key:zShared"), row("bob", 2, null), row("carol", 3, "did:key:zShared")])}`)
    expect(ran[0]).toBe("projection_names_by_recovery")
    const store = Context.get(yield* Layer.build(openOn(db, PgProjectionStoreLive, url)), ProjectionStore)
    expect(yield* store.recoveryNames("did:key:zShared", { from: 0, limit: 10 })).toEqual([{ name: "alice", claimIndex: 1 }, { name: "carol", claimIndex: 3 }])
    expect(yield* store.recoveryNames("did:key:zShared", { from: 2, limit: 10 })).toEqual([{ name: "carol", claimIndex: 3 }])
  }))
