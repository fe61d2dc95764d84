// The HostMetrics adapters (ports/HostMetrics.ts): on the filesystem the storage's size is
// the data folder's files (links not followed), on PostgreSQL the database's size; the
// process, CPU, load and disk figures are real measurements of this machine.

import { it } from "@effect/vitest"
import { mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { expect } from "vitest"
import { folderBytes, FsHostMetricsLive } from "../../../src/adapters/os/NodeHostMetrics.js"
import { PgHostMetricsLive } from "../../../src/adapters/pg/PgHostMetrics.js"
import { HostMetrics } from "../../../src/ports/HostMetrics.js"
import { removeDir, tempDataDir } from "../../support/server.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "../pg/open.js"

const db = testDatabase()

const withDataDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.promise(tempDataDir), use, (dir) => Effect.promise(() => removeDir(dir)))

it.effect("FsHostMetrics: the data folder's bytes, and real process, load and disk figures", () =>
  withDataDir((dir) =>
    Effect.gen(function*() {
      yield* Effect.promise(async () => {
        await mkdir(join(dir, "log", "deep"), { recursive: true })
        await writeFile(join(dir, "a"), new Uint8Array(1000))
        await writeFile(join(dir, "log", "deep", "b"), new Uint8Array(234))
        await symlink(join(dir, "a"), join(dir, "link-to-a"))
      })
      expect(yield* Effect.promise(() => folderBytes(dir))).toBe(1234)
      const m = yield* Effect.flatMap(HostMetrics, (h) => h.measure).pipe(Effect.provide(FsHostMetricsLive(dir)))
      expect(m.databaseBytes).toBe(1234)
      expect(m.processRssBytes).toBeGreaterThan(1024 * 1024)
      expect(m.cpuPercent).toBeGreaterThanOrEqual(0)
      expect(m.cpuPercent).toBeLessThanOrEqual(100)
      expect(m.loadAverage1m).toBeGreaterThanOrEqual(0)
      expect(m.diskTotalBytes).toBeGreaterThan(0)
      expect(m.diskUsedBytes).toBeGreaterThan(0)
      expect(m.diskUsedPercent).toBeCloseTo((m.diskUsedBytes! / m.diskTotalBytes!) * 100, 0)
    })))

it.effect("FsHostMetrics: a data folder that does not exist measures 0 bytes and no disk, without failing", () =>
  Effect.gen(function*() {
    const m = yield* Effect.flatMap(HostMetrics, (h) => h.measure).pipe(Effect.provide(FsHostMetricsLive("/nonexistent/aics-data")))
    expect([m.databaseBytes, m.diskTotalBytes, m.diskUsedBytes, m.diskUsedPercent]).toEqual([0, null, null, null])
  }))

it.scoped("PgHostMetrics: the database's size as the server counts it", () =>
  withDataDir((dir) =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const layer = openOn(db, PgHostMetricsLive(dir), url) as Layer.Layer<HostMetrics>
      const m = yield* Effect.flatMap(HostMetrics, (h) => h.measure).pipe(Effect.provide(layer))
      expect(m.databaseBytes).toBeGreaterThan(0)
      expect(m.diskTotalBytes).toBeGreaterThan(0)
    })))
