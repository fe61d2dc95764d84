// Request statistics on the filesystem: one small JSON object `{"<counter key>": count}`.
// An add reads it, adds, and replaces it whole (temp file, fsync, rename, fsync the folder:
// atomicFile.ts), so a crash leaves the file before the add or after it; adds of this
// process run one at a time. One process owns the data directory, so no other adds
// meanwhile. A few hundred counters a day at most, kept for 366 days.

import { mkdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { addedCounters } from "../memory/MemoryStatsStore.js"
import { utf8 } from "../../domain/bytes.js"
import { StatsStore } from "../../ports/StatsStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { writeFileAtomically } from "./atomicFile.js"
import { attempt } from "./fileIo.js"

const FILE = "requests.json"

export const FsStatsStoreLive = (directory: string) =>
  Layer.effect(StatsStore, Effect.gen(function*() {
    const path = join(directory, FILE)
    yield* attempt("open request statistics", directory, () => mkdir(directory, { recursive: true }))
    const load = Effect.gen(function*() {
      const text = yield* attempt("read request statistics", path, () =>
        readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "{}" : Promise.reject(e))))
      const parsed = yield* Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => new StorageError({ operation: "read request statistics", detail: `${path} is not JSON` })
      })
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return yield* new StorageError({ operation: "read request statistics", detail: `${path} is not a JSON object` })
      }
      return Object.entries(parsed as Record<string, unknown>)
        .filter((e): e is [string, number] => Number.isSafeInteger(e[1]) && (e[1] as number) >= 0)
    })
    const lock = Effect.unsafeMakeSemaphore(1)
    return {
      load,
      add: (increments, drop) =>
        lock.withPermits(1)(Effect.flatMap(load, (counters) =>
          writeFileAtomically(path, utf8(JSON.stringify(Object.fromEntries(addedCounters(counters, increments, drop)))))))
    }
  }))
