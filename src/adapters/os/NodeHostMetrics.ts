// HostMetrics on Node (docs/spec/service.md "Service statistics", `host`): the process's resident
// memory and CPU time, the system's load average, and the file system that holds the data
// folder (statfs). The storage the log takes (`databaseBytes`) is the storage adapter's to
// say: the data folder's files here (FsHostMetricsLive), the database's size on PostgreSQL
// (adapters/pg/PgHostMetrics.ts).
//
// Nothing slow runs on a request: fibers scoped to the layer sample CPU and the disk every
// HOST_SAMPLE, and the storage's size after 1, 2, 4 ... s, then every STORAGE_SAMPLE, each
// under a timeout; `measure` serves the last samples (null before the first). CPU is this
// process's CPU time over the wall time between two samples, as a percent of the cores it
// may use: the machine's, or fewer when a cgroup CPU quota (/sys/fs/cgroup/cpu.max) allows
// fewer.
//
// Walking the data folder costs one stat per file, and tiles are many small files (27,000
// at 3,000,000 entries, ~170 ms of the event loop a walk), so the walks are paced by their
// own cost (nextStorageSample): they never take more than STORAGE_SHARE of the time,
// whatever the log's size. Before that pacing, the walks at 1, 3, 7, 15 and 31 s after a
// start took 5% of the event loop of bench/write at 3,000,000 entries (bench/README.md
// "Session 19").

import { readFileSync } from "node:fs"
import { lstat, readdir, statfs } from "node:fs/promises"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import { Duration, Effect, Layer, Option, Ref, Schedule } from "effect"
import { HostMetrics, type HostMeasurements } from "../../ports/HostMetrics.js"

/** How often CPU and disk are sampled. */
export const HOST_SAMPLE = Duration.seconds(5)
/** How often the storage's size is measured. */
export const STORAGE_SAMPLE = Duration.seconds(60)
/** The share of the time the storage's measurements may take at most. */
export const STORAGE_SHARE = 0.01
/** The longest one measurement may take; a slower one leaves the previous value. */
const MEASURE_TIMEOUT = Duration.seconds(30)

const round1 = (x: number): number => Math.round(x * 10) / 10

/**
 * Bytes of the regular files under `folder` (links not followed; a file gone meanwhile
 * counts 0), or null when the folder itself cannot be read.
 */
export const folderBytes = async (folder: string): Promise<number | null> => {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => null)
  if (entries === null) return null
  let total = 0
  for (const entry of entries) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) total += (await folderBytes(path)) ?? 0
    else if (entry.isFile()) total += await lstat(path).then((s) => s.size, () => 0)
  }
  return total
}

/** The cores a cgroup v2 quota allows (`<quota> <period>`), or undefined for none ("max") or no cgroup. */
export const cgroupCores = (cpuMax: string | undefined): number | undefined => {
  const [quota, period] = (cpuMax ?? "").trim().split(/\s+/)
  const q = Number(quota)
  const p = Number(period)
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : undefined
}

const readCpuMax = (): string | undefined => {
  try {
    return readFileSync("/sys/fs/cgroup/cpu.max", "utf8")
  } catch {
    return undefined
  }
}

/**
 * The wait before the storage's next measurement, after `done` of them, the last of which
 * took `tookMs`: 1, 2, 4 ... s up to STORAGE_SAMPLE (the stores write their first files
 * soon after a start), and never less than that measurement's time over STORAGE_SHARE.
 */
export const nextStorageSample = (done: number, tookMs: number): Duration.Duration =>
  Duration.millis(Math.max(Math.min(1000 * 2 ** Math.max(0, done - 1), Duration.toMillis(STORAGE_SAMPLE)), tookMs / STORAGE_SHARE))

/** The file system's size and use as df counts them: used of what is usable (used + available to users). */
export const diskFigures = (s: { readonly blocks: number; readonly bfree: number; readonly bavail: number; readonly bsize: number }) => {
  const total = s.blocks * s.bsize
  const used = (s.blocks - s.bfree) * s.bsize
  const usable = used + s.bavail * s.bsize
  return { total, used, percent: usable === 0 ? 0 : round1((used / usable) * 100) }
}

const disk = (folder: string) =>
  Effect.tryPromise(() => statfs(folder)).pipe(Effect.map(diskFigures), Effect.orElseSucceed(() => null))

interface Samples {
  readonly cpuPercent: number
  readonly disk: { readonly total: number; readonly used: number; readonly percent: number } | null
  readonly databaseBytes: number | null
}

/** The Node measurements, with the storage's size from `databaseBytes`; the sampling fibers live as long as the scope. */
export const makeNodeHostMetrics = (options: { readonly dataDir: string; readonly databaseBytes: Effect.Effect<number | null> }) =>
  Effect.gen(function*() {
    const cores = Math.max(0.01, Math.min(availableParallelism(), cgroupCores(readCpuMax()) ?? Infinity))
    const samples = yield* Ref.make<Samples>({ cpuPercent: 0, disk: null, databaseBytes: null })
    // The first interval starts with the process: no CPU time used, at the process's start.
    let last = { cpu: { user: 0, system: 0 }, at: performance.now() - process.uptime() * 1000 }
    const sampleCpu = Effect.sync(() => {
      const at = performance.now()
      const used = process.cpuUsage(last.cpu)
      const wallMs = Math.max(1, at - last.at)
      last = { cpu: process.cpuUsage(), at }
      return round1(Math.min(100, ((used.user + used.system) / 1000 / wallMs / cores) * 100))
    })
    const hostTick = Effect.gen(function*() {
      const cpuPercent = yield* sampleCpu
      const space = yield* disk(options.dataDir).pipe(Effect.timeout(MEASURE_TIMEOUT), Effect.orElseSucceed(() => null))
      yield* Ref.update(samples, (s) => ({ ...s, cpuPercent, disk: space }))
    })
    const storageTick = options.databaseBytes.pipe(
      Effect.timeout(MEASURE_TIMEOUT),
      Effect.option,
      Effect.flatMap((bytes) => Ref.update(samples, (s) => ({ ...s, databaseBytes: Option.getOrElse(bytes, () => s.databaseBytes) })))
    )
    yield* Effect.forkScoped(Effect.repeat(hostTick, Schedule.spaced(HOST_SAMPLE)))
    // Soon after the start (the stores are still writing their first files), then less and
    // less often, down to once per STORAGE_SAMPLE, and never more than STORAGE_SHARE of the time.
    yield* Effect.forkScoped(Effect.gen(function*() {
      for (let done = 1;; done++) {
        const started = performance.now()
        yield* storageTick
        yield* Effect.sleep(nextStorageSample(done, performance.now() - started))
      }
    }))
    return HostMetrics.of({
      measure: Effect.map(Ref.get(samples), (s) => ({
        processRssBytes: process.memoryUsage.rss(),
        cpuPercent: s.cpuPercent,
        loadAverage1m: round1(loadavg()[0] ?? 0),
        databaseBytes: s.databaseBytes,
        diskTotalBytes: s.disk?.total ?? null,
        diskUsedBytes: s.disk?.used ?? null,
        diskUsedPercent: s.disk?.percent ?? null
      } satisfies HostMeasurements)),
      uptimeSeconds: Effect.sync(() => Math.floor(process.uptime()))
    })
  })

/** Filesystem storage: the log, bodies, tiles and stores are the data folder's files. */
export const FsHostMetricsLive = (dataDir: string) =>
  Layer.scoped(HostMetrics, makeNodeHostMetrics({
    dataDir,
    databaseBytes: Effect.tryPromise(() => folderBytes(dataDir)).pipe(Effect.orElseSucceed(() => null))
  }))
