// The HostMetrics adapters (ports/HostMetrics.ts): on the filesystem the storage's size is
// the data folder's files (links not followed), on PostgreSQL the database's size; the
// process, CPU, load and disk figures are real measurements of this machine, sampled in
// the background (null before the first sample, never measured on a request).

import { it } from "@effect/vitest"
import { mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Duration, Effect, Layer, Schedule } from "effect"
import { expect, it as plainIt } from "vitest"
import { cgroupCores, diskFigures, folderBytes, FsHostMetricsLive, nextStorageSample, STORAGE_SAMPLE, STORAGE_SHARE } from "../../../src/adapters/os/NodeHostMetrics.js"
import { PgHostMetricsLive } from "../../../src/adapters/pg/PgHostMetrics.js"
import { HostMetrics, type HostMeasurements } from "../../../src/ports/HostMetrics.js"
import { removeDir, tempDataDir } from "../../support/server.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "../pg/open.js"

const db = testDatabase()

/** The measurements once the first background samples are in (storage and disk measured). */
const sampled = (settled: (m: HostMeasurements) => boolean) =>
  Effect.flatMap(HostMetrics, (h) =>
    h.measure.pipe(
      Effect.filterOrFail(settled, () => new Error("not sampled yet")),
      Effect.retry(Schedule.spaced("20 millis")),
      Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("no host sample within 10 s") })
    ))

const withDataDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.promise(tempDataDir), use, (dir) => Effect.promise(() => removeDir(dir)))

it.live("FsHostMetrics: the data folder's bytes, and real process, load and disk figures", () =>
  withDataDir((dir) =>
    Effect.gen(function*() {
      yield* Effect.promise(async () => {
        await mkdir(join(dir, "log", "deep"), { recursive: true })
        await writeFile(join(dir, "a"), new Uint8Array(1000))
        await writeFile(join(dir, "log", "deep", "b"), new Uint8Array(234))
        await symlink(join(dir, "a"), join(dir, "link-to-a"))
      })
      expect(yield* Effect.promise(() => folderBytes(dir))).toBe(1234)
      const m = yield* sampled((m) => m.databaseBytes !== null && m.diskTotalBytes !== null).pipe(Effect.provide(FsHostMetricsLive(dir)))
      expect(m.databaseBytes).toBe(1234)
      expect(m.processRssBytes).toBeGreaterThan(1024 * 1024)
      expect(m.cpuPercent).toBeGreaterThanOrEqual(0)
      expect(m.cpuPercent).toBeLessThanOrEqual(100)
      expect(m.loadAverage1m).toBeGreaterThanOrEqual(0)
      expect(m.diskTotalBytes).toBeGreaterThan(0)
      expect(m.diskUsedBytes).toBeGreaterThan(0)
      expect(m.diskUsedPercent).toBeGreaterThanOrEqual((m.diskUsedBytes! / m.diskTotalBytes!) * 100 - 0.1)
    })))

it.live("FsHostMetrics: a data folder that does not exist has no size and no disk, without failing", () =>
  Effect.gen(function*() {
    expect(yield* Effect.promise(() => folderBytes("/nonexistent/aics-data"))).toBeNull()
    const m = yield* Effect.gen(function*() {
      const host = yield* HostMetrics
      // Before and after the first samples alike.
      yield* Effect.sleep("200 millis")
      return yield* host.measure
    }).pipe(Effect.provide(FsHostMetricsLive("/nonexistent/aics-data")))
    expect([m.databaseBytes, m.diskTotalBytes, m.diskUsedBytes, m.diskUsedPercent]).toEqual([null, null, null, null])
    expect(m.processRssBytes).toBeGreaterThan(0)
  }))

plainIt("disk use is used / (used + available), as df counts it, so the root's reserve is not counted free", () => {
  // 1000 blocks, 400 free of which 350 are available to users: 600 used of 950 usable.
  expect(diskFigures({ blocks: 1000, bfree: 400, bavail: 350, bsize: 4096 })).toEqual({ total: 4_096_000, used: 2_457_600, percent: 63.2 })
  expect(diskFigures({ blocks: 0, bfree: 0, bavail: 0, bsize: 4096 }).percent).toBe(0)
})

plainIt("the storage is measured after 1, 2, 4 ... s, then every STORAGE_SAMPLE, and a slow walk of the folder waits in proportion", () => {
  const waits = (tookMs: number) => [1, 2, 3, 4, 5, 6, 7, 8, 20].map((done) => Duration.toMillis(nextStorageSample(done, tookMs)))
  expect(waits(2)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000])
  expect(Duration.toMillis(STORAGE_SAMPLE)).toBe(60_000)
  // A walk of 200 ms (27,000 tile files) waits 20 s at least, even just after a start.
  expect(waits(200)).toEqual([20_000, 20_000, 20_000, 20_000, 20_000, 32_000, 60_000, 60_000, 60_000])
  // One of 10 minutes (a billion entries' tiles) waits 1,000 minutes: 1% of the time.
  expect(Duration.toMillis(nextStorageSample(9, 600_000))).toBe(600_000 / STORAGE_SHARE)
})

plainIt("a cgroup CPU quota gives the cores the process may use", () => {
  expect(cgroupCores("150000 100000\n")).toBe(1.5)
  expect(cgroupCores("max 100000\n")).toBeUndefined()
  expect(cgroupCores(undefined)).toBeUndefined()
})

it.scopedLive("PgHostMetrics: the database's size as the server counts it", () =>
  withDataDir((dir) =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const layer = openOn(db, PgHostMetricsLive(dir), url) as Layer.Layer<HostMetrics>
      const m = yield* sampled((m) => m.databaseBytes !== null).pipe(Effect.provide(layer))
      expect(m.databaseBytes).toBeGreaterThan(0)
      expect(m.diskTotalBytes).toBeGreaterThan(0)
    })))
