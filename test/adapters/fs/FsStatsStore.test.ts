import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { expect } from "vitest"
import { FsStatsStoreLive } from "../../../src/adapters/fs/FsStatsStore.js"
import { MemoryStatsStoreLive } from "../../../src/adapters/memory/MemoryStatsStore.js"
import { StatsStore } from "../../../src/ports/StatsStore.js"
import { statsStoreContract } from "../../ports/StatsStore.contract.js"
import { tempDir } from "./tempDir.js"

statsStoreContract("FsStatsStore", { fresh: Effect.map(tempDir("stats"), FsStatsStoreLive), durable: true })
statsStoreContract("MemoryStatsStore", { fresh: Effect.succeed(MemoryStatsStoreLive), durable: false })

it.scoped("FsStatsStore refuses a file that is not a JSON object, and skips counts that are not counts", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("stats-bad")
    const load = Effect.scoped(Effect.flatMap(StatsStore, (s) => s.load).pipe(Effect.provide(FsStatsStoreLive(dir))))
    yield* Effect.promise(() => writeFile(join(dir, "requests.json"), "[1, 2]"))
    expect((yield* Effect.flip(load))._tag).toBe("StorageError")
    yield* Effect.promise(() => writeFile(join(dir, "requests.json"), JSON.stringify({ a: 2, b: -1, c: 1.5, d: "x" })))
    expect(yield* load).toEqual([["a", 2]])
  }))
