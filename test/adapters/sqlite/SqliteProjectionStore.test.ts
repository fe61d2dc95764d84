import { it } from "@effect/vitest"
import { readdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Exit, Layer } from "effect"
import { expect } from "vitest"
import { SqliteProjectionStoreLive } from "../../../src/adapters/sqlite/SqliteProjectionStore.js"
import { ProjectionStore } from "../../../src/ports/ProjectionStore.js"
import { claimed, projectionStoreContract, step } from "../../ports/ProjectionStore.contract.js"
import { tempDir } from "../fs/tempDir.js"

projectionStoreContract("SqliteProjectionStore", {
  fresh: Effect.map(tempDir("projection"), (dir) => SqliteProjectionStoreLive(join(dir, "state.db")))
})

it.scoped("SqliteProjectionStore: a damaged state.db is moved aside and started anew, empty", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("projection")
    const file = join(dir, "state.db")
    yield* Effect.promise(() => writeFile(file, "this is not a database, and it is long enough to have a header".repeat(100)))
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ProjectionStore
      expect(yield* store.folded).toBe(0)
      expect(yield* store.commit(step(0, 2, [claimed("alice", 1)]))).toBe(true)
    }).pipe(Effect.provide(SqliteProjectionStoreLive(file))))
  }))

it.scoped("SqliteProjectionStore: a state.db locked by another holder is not damaged: the open fails, nothing is moved aside", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("projection")
    const file = join(dir, "state.db")
    // The first store holds its exclusive lock for as long as its scope is open.
    const first = yield* Layer.buildWithScope(SqliteProjectionStoreLive(file), yield* Effect.scope)
    const store = Context.get(first, ProjectionStore)
    expect(yield* store.commit(step(0, 2, [claimed("alice", 1)]))).toBe(true)
    const second = yield* Effect.exit(Effect.scoped(Layer.build(SqliteProjectionStoreLive(file))))
    expect(Exit.isFailure(second)).toBe(true)
    if (Exit.isFailure(second)) expect(String(second.cause)).toContain("locked by another process")
    expect((yield* Effect.promise(() => readdir(dir))).filter((f) => f.includes("damaged"))).toEqual([])
    expect(yield* store.folded).toBe(2)
  }))

it.scoped("SqliteProjectionStore: a state.db of a version without the activity minutes counts its agents after the open fills them", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("projection")
    const file = join(dir, "state.db")
    const at = (name: string, index: number, logged: number) =>
      ({ area: "activity" as const, key: `name:${name}`, value: { kid: null, name, index, logged, type: "post" } })
    const rows = [at("alice", 1, 10_000), at("bob", 2, 70_000), at("carol", 3, 130_000)]
    yield* Effect.scoped(Effect.flatMap(ProjectionStore, (store) => store.commit(step(0, 4, [], { upserts: rows }))).pipe(
      Effect.provide(SqliteProjectionStoreLive(file))
    ))
    // As an earlier version left it: the activity rows, no table of minutes.
    yield* Effect.scoped(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("DROP TABLE activity_minutes")).pipe(
      Effect.provide(SqliteClient.layer({ filename: file }))
    ))
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ProjectionStore
      expect((yield* store.recentActivity(0, 10)).count).toBe(3)
      expect((yield* store.recentActivity(60_000, 10)).count).toBe(2)
      expect((yield* store.recentActivity(70_001, 10)).count).toBe(1)
    }).pipe(Effect.provide(SqliteProjectionStoreLive(file))))
    // Opened again, with its minutes there: they are not counted a second time.
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ProjectionStore
      expect((yield* store.recentActivity(0, 10)).count).toBe(3)
      expect((yield* store.recentActivity(60_000, 10)).count).toBe(2)
    }).pipe(Effect.provide(SqliteProjectionStoreLive(file))))
  }))

it.scoped("SqliteProjectionStore: a state.db of a version without the index of recovery keys gets it at the open, and answers from it", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("projection")
    const file = join(dir, "state.db")
    const named = { ...claimed("alice", 2), recovery: "did:key:zShared" }
    yield* Effect.scoped(Effect.flatMap(ProjectionStore, (store) => store.commit(step(0, 4, [named]))).pipe(
      Effect.provide(SqliteProjectionStoreLive(file))
    ))
    // As an earlier version left it: the names with their recovery keys, no index of them.
    yield* Effect.scoped(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP INDEX names_by_recovery`).pipe(
      Effect.provide(SqliteClient.layer({ filename: file }))
    ))
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ProjectionStore
      expect(yield* store.recoveryNames("did:key:zShared", { from: 0, limit: 10 })).toEqual([{ name: "alice", claimIndex: 2 }])
    }).pipe(Effect.provide(SqliteProjectionStoreLive(file))))
    const plan = yield* Effect.scoped(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT name, claim_index FROM names WHERE recovery = ${"did:key:zShared"} AND claim_index >= ${0} ORDER BY claim_index LIMIT ${10}`).pipe(
      Effect.provide(SqliteClient.layer({ filename: file }))
    ))
    expect(plan.map((row) => row.detail).join("\n")).toContain("USING COVERING INDEX names_by_recovery")
  }))
