import { it } from "@effect/vitest"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
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
