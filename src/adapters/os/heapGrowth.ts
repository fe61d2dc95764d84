// How far V8 lets the JavaScript heap grow past what the last full collection kept, before
// it collects again: V8's own (the default), fixed (AICS_HEAP_GROWTH_PERCENT) or held under a
// memory target (AICS_MEMORY_TARGET_MIB); docs/operations.md "The heap under load".
//
// Why: under a steady write load a request's objects live for its batch, tens of
// milliseconds, long enough to outlive two young-generation collections, so they are
// promoted and die in the old generation: about 30 KB an entry, 40 MiB a second at 1,300
// entries a second. V8 then lets the old generation reach up to four times what survives a
// full collection before the next: the process peaked at 435-469 MiB under bench/write where
// it holds about 200 MiB idle. A lower growth costs the collector's CPU (at 75%, 2.5-4% of
// bench/write's throughput, 8% of bench/stream's with 1,000 subscribers, whose live heap is
// larger: bench/README.md "Session 20"), a higher one memory; which one binds depends on
// what the rest of the process holds, which grows with the log's caches and the streams
// open. So under a target the growth is chosen after each full collection: as much as keeps
// the process under the target at the next one, V8's own when that fits. The default sets
// none: held under 384 MiB, bench/stream's ratio with 1,000 subscribers fell from 0.93 to
// 0.86 (bench/README.md "Session 29"), and throughput is the scarcer of the two here.
//
// V8 reads the setting each time a full collection sets the next limit, so a setting made
// while the process runs holds from the next full collection on, for every isolate of the
// process (the worker threads' too).

import { constants, PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"
import { Effect, Runtime, type Scope } from "effect"

/** V8's own largest growth is four times what survived: 300%. */
export const V8_LARGEST_GROWTH_PERCENT = 300
/**
 * The least growth the target may ask for. The full collections' share of the CPU goes as
 * the promotion rate over the growth, whatever the heap's size: at 25% it cost 8-10% of
 * bench/write's throughput (bench/README.md "Session 20"), and with 1,000 stream
 * subscribers, whose live heap leaves the target little room, a held-down growth cost
 * bench/stream's ratio more than that (bench/README.md "Session 29"): so at least half of
 * what survived.
 */
export const LEAST_GOVERNED_GROWTH_PERCENT = 50

/**
 * What the process may add between two full collections beyond the old generation's growth
 * and what the rest of it held: the young generation refilled, the worker threads' heaps, the
 * requests' Buffers, and what V8 still allocates while it marks (bench/README.md "Session 29").
 */
export const BETWEEN_COLLECTIONS_ALLOWANCE = 64 * 1024 * 1024

/** The process's memory as the governor reads it after a full collection, in bytes. */
export interface HeapReading {
  /** What the old generation kept: what survived the collection. */
  readonly survivors: number
  /**
   * What the process holds besides the old generation's spaces (the young generation, the
   * worker threads, native memory, code): the least of its recent readings, since right after
   * a collection the pages it freed are still the process's until V8 gives them back.
   */
  readonly rest: number
}

/**
 * The growth, in per cent, that lets the old generation grow only as far as keeps the
 * process under `target` bytes until the next full collection (BETWEEN_COLLECTIONS_ALLOWANCE
 * left for the rest's swings): 0 (V8's own) when even V8's largest growth fits, never less
 * than LEAST_GOVERNED_GROWTH_PERCENT.
 */
export const growthWithin = (target: number, reading: HeapReading): number => {
  const room = target - BETWEEN_COLLECTIONS_ALLOWANCE - reading.rest
  const percent = Math.floor((room / Math.max(reading.survivors, 1) - 1) * 100)
  if (percent >= V8_LARGEST_GROWTH_PERCENT) return 0
  return Math.max(LEAST_GOVERNED_GROWTH_PERCENT, percent)
}

const setGrowth = (percent: number) => setFlagsFromString(`--heap-growing-percent=${percent}`)

/** Sets the process's heap growth, in per cent, for good; 0 sets nothing (V8's own growth). */
export const applyHeapGrowth = (percent: number): Effect.Effect<void> =>
  Effect.sync(() => {
    if (percent > 0) setGrowth(percent)
  })

// The old generation: every space but the young generation's and the read-only one, which
// no collection grows.
const isOldGeneration = (space: string) => !space.startsWith("new_") && space !== "read_only_space"

const oldGeneration = () => {
  let used = 0
  let resident = 0
  for (const space of getHeapSpaceStatistics()) {
    if (!isOldGeneration(space.space_name)) continue
    used += space.space_used_size
    resident += space.physical_space_size
  }
  return { used, resident }
}

/** How often the rest of the process is read between collections, and how many readings are kept. */
const REST_READ_EVERY_MS = 1_000
const REST_READINGS_KEPT = 10

/** A "gc" performance entry: its detail names the kind of collection. */
interface GcEntry {
  readonly detail?: { readonly kind?: number }
}

/**
 * Holds the heap's growth under `targetMiB` of resident memory for as long as the scope is
 * open: after each full collection, the growth growthWithin gives (set only when it
 * changes). `onSet` hears each change.
 */
export const governHeapGrowth = (
  targetMiB: number,
  onSet: (percent: number, reading: HeapReading) => void = () => {}
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const target = targetMiB * 1024 * 1024
      const restReadings: Array<number> = []
      const readRest = (oldResident: number) => {
        const rest = process.memoryUsage.rss() - oldResident
        restReadings.push(rest)
        if (restReadings.length > REST_READINGS_KEPT) restReadings.shift()
        return Math.min(...restReadings)
      }
      const reader = setInterval(() => readRest(oldGeneration().resident), REST_READ_EVERY_MS).unref()
      let current = 0
      const observer = new PerformanceObserver((list) => {
        const full = list.getEntries().some((entry) => (entry as unknown as GcEntry).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        if (!full) return
        const old = oldGeneration()
        const reading = { survivors: old.used, rest: readRest(old.resident) }
        const percent = growthWithin(target, reading)
        if (percent === current) return
        current = percent
        setGrowth(percent)
        onSet(percent, reading)
      })
      observer.observe({ entryTypes: ["gc"] })
      return { observer, reader }
    }),
    ({ observer, reader }) =>
      Effect.sync(() => {
        clearInterval(reader)
        observer.disconnect()
        setGrowth(0)
      })
  ).pipe(Effect.asVoid)

/** How often, at most, the log says the target cannot be met. */
const TARGET_MISSED_LINE_EVERY_MS = 10 * 60 * 1000

const mib = (bytes: number) => Math.round(bytes / (1024 * 1024))

/**
 * The heap's growth as the settings ask, for as long as the scope is open: fixed
 * (AICS_HEAP_GROWTH_PERCENT above 0), else held under AICS_MEMORY_TARGET_MIB (above 0),
 * else V8's own. A target the process cannot meet (what it holds outside the old generation
 * leaves too little room) is said in the log, at most every ten minutes.
 */
export const heapGrowthAsSet = (settings: { readonly heapGrowthPercent: number; readonly memoryTargetMiB: number }): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    if (settings.heapGrowthPercent > 0) return yield* applyHeapGrowth(settings.heapGrowthPercent)
    if (settings.memoryTargetMiB === 0) return
    const runtime = yield* Effect.runtime<never>()
    let missedLineAt = -Infinity
    yield* governHeapGrowth(settings.memoryTargetMiB, (percent, reading) => {
      if (percent > LEAST_GOVERNED_GROWTH_PERCENT || Date.now() - missedLineAt < TARGET_MISSED_LINE_EVERY_MS) return
      missedLineAt = Date.now()
      Runtime.runFork(runtime)(Effect.logWarning(
        `the memory target (AICS_MEMORY_TARGET_MIB=${settings.memoryTargetMiB}) leaves the JavaScript heap too little room: ` +
          `what survives its full collections is ${mib(reading.survivors)} MiB and the rest of the process holds ${mib(reading.rest)} MiB; ` +
          `its growth stays at ${LEAST_GOVERNED_GROWTH_PERCENT}% and the process may pass the target (docs/operations.md "The heap under load")`
      ))
    })
  })
