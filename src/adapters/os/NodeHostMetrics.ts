// HostMetrics on Node (service.md "Service statistics", `host`): the process's resident
// memory and CPU time, the system's load average, and the file system that holds the data
// folder (statfs). The storage the log takes (`databaseBytes`) is the storage adapter's to
// say: the data folder's files here (FsHostMetricsLive), the database's size on PostgreSQL
// (adapters/pg/PgHostMetrics.ts).
//
// CPU is measured between two measurements at least a second apart (the first against the
// process start), as a percent of all cores, so a burst of requests does not turn noise into
// a figure. Walking the data folder costs one stat per file (tiles are many small files),
// so its size is measured at most once a minute.

import { lstat, readdir, statfs } from "node:fs/promises"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import { Duration, Effect, Layer } from "effect"
import { HostMetrics, type HostMeasurements } from "../../ports/HostMetrics.js"

/** How long a measured folder size is reused. */
const FOLDER_SIZE_TTL = Duration.seconds(60)
/** The shortest interval CPU time is averaged over. */
const CPU_MIN_INTERVAL_MS = 1000

const round1 = (x: number): number => Math.round(x * 10) / 10

/** Bytes of the regular files under `folder` (links not followed; a file gone meanwhile counts 0). */
export const folderBytes = async (folder: string): Promise<number> => {
  let total = 0
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) total += await folderBytes(path)
    else if (entry.isFile()) total += await lstat(path).then((s) => s.size, () => 0)
  }
  return total
}

const disk = (folder: string) =>
  Effect.tryPromise(() => statfs(folder)).pipe(
    Effect.map((s) => {
      const total = s.blocks * s.bsize
      const used = (s.blocks - s.bfree) * s.bsize
      return { total, used, percent: total === 0 ? 0 : round1((used / total) * 100) }
    }),
    Effect.orElseSucceed(() => null)
  )

/** The Node measurements, with the storage's size from `databaseBytes`. */
export const makeNodeHostMetrics = (options: { readonly dataDir: string; readonly databaseBytes: Effect.Effect<number | null> }) =>
  Effect.gen(function*() {
    const cores = Math.max(1, availableParallelism())
    // The first interval starts with the process: no CPU time used, at the process's start.
    let last = { cpu: { user: 0, system: 0 }, at: performance.now() - process.uptime() * 1000, percent: 0 }
    const cpuPercent = Effect.sync(() => {
      const at = performance.now()
      if (at - last.at < CPU_MIN_INTERVAL_MS) return last.percent
      const used = process.cpuUsage(last.cpu)
      const percent = round1(Math.min(100, ((used.user + used.system) / 1000 / (at - last.at) / cores) * 100))
      last = { cpu: process.cpuUsage(), at, percent }
      return percent
    })
    const databaseBytes = yield* Effect.cachedWithTTL(options.databaseBytes, FOLDER_SIZE_TTL)
    return HostMetrics.of({
      measure: Effect.gen(function*() {
        const space = yield* disk(options.dataDir)
        return {
          processRssBytes: process.memoryUsage.rss(),
          cpuPercent: yield* cpuPercent,
          loadAverage1m: round1(loadavg()[0] ?? 0),
          databaseBytes: yield* databaseBytes,
          diskTotalBytes: space?.total ?? null,
          diskUsedBytes: space?.used ?? null,
          diskUsedPercent: space?.percent ?? null
        } satisfies HostMeasurements
      })
    })
  })

/** Filesystem storage: the log, bodies, tiles and stores are the data folder's files. */
export const FsHostMetricsLive = (dataDir: string) =>
  Layer.effect(HostMetrics, makeNodeHostMetrics({
    dataDir,
    databaseBytes: Effect.tryPromise(() => folderBytes(dataDir)).pipe(Effect.orElseSucceed(() => null))
  }))
