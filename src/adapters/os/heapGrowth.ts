// How far V8 lets the JavaScript heap grow past what the last full collection kept, before
// it collects again: held under a memory target (AICS_MEMORY_TARGET_MIB, 384 MiB unless set),
// fixed (AICS_HEAP_GROWTH_PERCENT) or V8's own (a target of 0); docs/operations.md "The heap
// under load".
//
// Why: under a steady write load a request's objects live for its batch, tens of
// milliseconds, long enough to outlive two young-generation collections, so they are
// promoted and die in the old generation: about 30 KB an entry, 40 MiB a second at 1,300
// entries a second. V8 then lets the old generation reach up to four times what survives a
// full collection before the next: the process peaked at 435-482 MiB under bench/write where
// it holds about 200 MiB idle. A lower growth costs the collector's CPU (at 75%, 2.5-4% of
// bench/write's throughput, 8% of bench/stream's with 1,000 subscribers, whose live heap is
// larger: bench/README.md "Session 20"), a higher one memory; which one binds depends on
// what the rest of the process holds, which grows with the log's caches and the streams
// open. So under a target the growth is chosen after each full collection: as much as keeps
// the process under the target at the next one, V8's own when that fits; and a target the
// process cannot meet is given up (V8's own growth) until there is room again, since holding
// it then costs the collector's CPU for no memory (governedGrowth). Held under 384 MiB,
// bench/write peaked at 376-397 MiB against 438-482 for the same CPU an entry, and
// bench/stream's ratio with 1,000 subscribers was 0.875 against 0.894 over 20 runs each
// (0.68-1.05 a run; bench/README.md "Session 31").
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
  /** The most the process held (resident) since the collection before: what the cycle just ended cost. */
  readonly peak: number
}

/**
 * The growth, in per cent, that lets the old generation grow only as far as keeps the
 * process under `target` bytes until the next full collection (BETWEEN_COLLECTIONS_ALLOWANCE
 * left for the rest's swings), unbounded: below LEAST_GOVERNED_GROWTH_PERCENT (even negative)
 * when the target leaves too little room.
 */
const roomyGrowth = (target: number, reading: HeapReading): number => {
  const room = target - BETWEEN_COLLECTIONS_ALLOWANCE - reading.rest
  return Math.floor((room / Math.max(reading.survivors, 1) - 1) * 100)
}

/**
 * The growth, in per cent, that lets the old generation grow only as far as keeps the
 * process under `target` bytes until the next full collection (BETWEEN_COLLECTIONS_ALLOWANCE
 * left for the rest's swings): 0 (V8's own) when even V8's largest growth fits, never less
 * than LEAST_GOVERNED_GROWTH_PERCENT.
 */
export const growthWithin = (target: number, reading: HeapReading): number => {
  const percent = roomyGrowth(target, reading)
  if (percent >= V8_LARGEST_GROWTH_PERCENT) return 0
  return Math.max(LEAST_GOVERNED_GROWTH_PERCENT, percent)
}

/**
 * Full collections in a row that find the target unmet before the governor gives it up, and
 * in a row with room again before it takes it back. Unmet: the cycle just ended, held to the
 * target (at least at the least growth), passed it all the same by more than
 * PASSED_TOLERANCE_SHARE of it. Why give it up: held at a growth that does not keep the
 * process under the target, the heap is collected more often than V8 would, for nothing:
 * with 1,000 stream subscribers the process peaked at 422-473 MB under a 384 MiB target as
 * without one, for about a tenth of the throughput (bench/README.md "Sessions 29, 30"). Why
 * several in a row: one cycle can still hold the pages an earlier one took, or the rest be
 * at a swing. Room again: the room the target leaves, less what it was passed by when given
 * up, lets the least growth and RESUME_MARGIN_PERCENT more (a margin, so that the governor
 * does not go back and forth at the edge).
 */
export const GIVE_UP_AFTER_COLLECTIONS = 3
export const RESUME_AFTER_COLLECTIONS = 3
export const RESUME_MARGIN_PERCENT = 25
/** How far past the target a held cycle may go before it counts as unmet: what V8 allocates while it marks, a cycle's swing. */
export const PASSED_TOLERANCE_SHARE = 1 / 16
/**
 * What is kept, at each full collection while the target is given up, of what it was passed
 * by: an eighth fades each time, half in five collections (half a minute under a write load
 * with 1,000 subscribers), so that the target is tried again within minutes of the swing
 * that passed it ending, and not every few collections while it goes on.
 */
export const PASSED_BY_KEPT_SHARE = 7 / 8

/** Where the governor stands after a full collection. */
export interface Governing {
  /** The target is given up: V8's own growth until there is room again. */
  readonly gaveUp: boolean
  /** Full collections in a row that point the other way (unmet while holding, roomy while given up). */
  readonly streak: number
  /** The most the held cycles of the unmet streak passed the target by, in bytes (fading while given up). */
  readonly passedBy: number
  /**
   * Whether the target was held at the last decision and at the one before. A full collection
   * sets the next limit from the growth in force when it ran, which the decision after the
   * collection before it made: the cycle a reading ends was held to the target when the
   * decision before last held it (the first two cycles, on V8's initial limit and on the
   * least growth asked for at the start, are not judged: AT_START).
   */
  readonly heldLast: boolean
  readonly heldBeforeLast: boolean
}

export const AT_START: Governing = { gaveUp: false, streak: 0, passedBy: 0, heldLast: false, heldBeforeLast: false }

/**
 * After a full collection: the growth to set (0 is V8's own) and where the governor stands.
 * Holding the target, the growth growthWithin gives, until GIVE_UP_AFTER_COLLECTIONS
 * collections in a row find it passed; then V8's own growth until RESUME_AFTER_COLLECTIONS
 * in a row find room again (GIVE_UP_AFTER_COLLECTIONS' comment says what each means).
 */
export const governedGrowth = (target: number, reading: HeapReading, governing: Governing): { readonly percent: number; readonly governing: Governing } => {
  // Held: a growth of the governor's own. V8's own growth set because it fits holds the
  // process to nothing the governor could lower: a cycle past the target then is no sign.
  const decided = (gaveUp: boolean, streak: number, passedBy: number, percent: number) => ({
    percent,
    governing: { gaveUp, streak, passedBy, heldLast: !gaveUp && percent > 0, heldBeforeLast: governing.heldLast }
  })
  if (governing.gaveUp) {
    // What the target was passed by fades, so that a swing once seen (a burst of large
    // requests, streams since closed) does not keep the target given up for good.
    const passedBy = governing.passedBy * PASSED_BY_KEPT_SHARE
    const roomy = roomyGrowth(target - passedBy, reading) >= LEAST_GOVERNED_GROWTH_PERCENT + RESUME_MARGIN_PERCENT
    const streak = roomy ? governing.streak + 1 : 0
    return streak >= RESUME_AFTER_COLLECTIONS
      ? decided(false, 0, 0, growthWithin(target, reading))
      : decided(true, streak, passedBy, 0)
  }
  // Judged on what the process held, not on what the readings predict: with no room even at
  // the least growth the prediction says unmeetable, yet at 1,000,000 entries the process
  // held 372-406 MiB under a 384 MiB target that way, and given up it reached 510.
  const passed = governing.heldBeforeLast && reading.peak > target * (1 + PASSED_TOLERANCE_SHARE)
  const streak = passed ? governing.streak + 1 : 0
  // What the streak passed the target by, the most (a streak broken forgets it).
  const passedBy = passed ? Math.max(governing.passedBy, reading.peak - target) : 0
  return streak >= GIVE_UP_AFTER_COLLECTIONS
    ? decided(true, 0, passedBy, 0)
    : decided(false, streak, passedBy, growthWithin(target, reading))
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
 * open: after each full collection, the growth governedGrowth gives (set only when it
 * changes). `onChange` hears each change of the growth or of the governor's standing.
 */
export const governHeapGrowth = (
  targetMiB: number,
  onChange: (percent: number, reading: HeapReading, governing: Governing) => void = () => {}
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const target = targetMiB * 1024 * 1024
      // The rest, read a second apart: the least of the last readings. Not right after a
      // collection, whose freed pages the process still holds (it would read high, and a
      // process that collects several times a second would read nothing else), unless
      // there is no reading yet.
      const restReadings: Array<number> = []
      let restReadSettled = false
      // The most the process held since the last full collection, read with the rest.
      let peak = 0
      const readRestAndPeak = (oldResident: number, after: "a second" | "a collection") => {
        const rss = process.memoryUsage.rss()
        peak = Math.max(peak, rss)
        if (after === "a second" && !restReadSettled) {
          restReadSettled = true
          restReadings.length = 0
        }
        if (after === "a second" || restReadings.length === 0) {
          restReadings.push(rss - oldResident)
          if (restReadings.length > REST_READINGS_KEPT) restReadings.shift()
        }
        return Math.min(...restReadings)
      }
      const reader = setInterval(() => readRestAndPeak(oldGeneration().resident, "a second"), REST_READ_EVERY_MS).unref()
      // The first full collection sets the old generation's next limit from the growth in
      // force then, before the governor has heard any: left at V8's own, a write load that
      // came right after a start on 3,000,000 entries took the process to 467-531 MiB under
      // a 384 MiB target before the governor's first setting held, and to 406 MiB with the
      // least growth asked for from the start (bench/README.md "Session 32"). So the least
      // growth holds until the first full collection gives a reading.
      let current = LEAST_GOVERNED_GROWTH_PERCENT
      setGrowth(current)
      let governing = AT_START
      const observer = new PerformanceObserver((list) => {
        const full = list.getEntries().some((entry) => (entry as unknown as GcEntry).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        if (!full) return
        const old = oldGeneration()
        const rest = readRestAndPeak(old.resident, "a collection")
        const reading = { survivors: old.used, rest, peak }
        peak = 0
        // Until the rest has been read a second apart, its one reading was taken right after
        // a collection (high): a growth is set, but nothing judged on it.
        const next = restReadSettled ? governedGrowth(target, reading, governing) : { percent: growthWithin(target, reading), governing }
        const turned = next.governing.gaveUp !== governing.gaveUp
        governing = next.governing
        if (next.percent === current && !turned) return
        current = next.percent
        setGrowth(next.percent)
        onChange(next.percent, reading, governing)
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

/** How often, at most, the log says the target was given up. */
const TARGET_GIVEN_UP_LINE_EVERY_MS = 10 * 60 * 1000

const mib = (bytes: number) => Math.round(bytes / (1024 * 1024))

/**
 * The heap's growth as the settings ask, for as long as the scope is open: fixed
 * (AICS_HEAP_GROWTH_PERCENT above 0), else held under AICS_MEMORY_TARGET_MIB (above 0),
 * else V8's own. A target given up (the process passed it while held to it)
 * is said in the log at most every ten minutes, and taken back at
 * the info level; each growth set, at the debug level.
 */
export const heapGrowthAsSet = (settings: { readonly heapGrowthPercent: number; readonly memoryTargetMiB: number }): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    if (settings.heapGrowthPercent > 0) return yield* applyHeapGrowth(settings.heapGrowthPercent)
    if (settings.memoryTargetMiB === 0) return
    const runtime = yield* Effect.runtime<never>()
    const log = (line: Effect.Effect<void>) => Runtime.runFork(runtime)(line)
    let givenUpLineAt = -Infinity
    let gaveUp = false
    // The line that the target is held again follows only a give-up the log said.
    let givenUpSaid = false
    yield* governHeapGrowth(settings.memoryTargetMiB, (percent, reading, governing) => {
      const held = `what survives its full collections is ${mib(reading.survivors)} MiB and the rest of the process holds ${mib(reading.rest)} MiB ` +
        `(the process held at most ${mib(reading.peak)} MiB since the collection before)`
      const turned = governing.gaveUp !== gaveUp
      gaveUp = governing.gaveUp
      if (turned && gaveUp && Date.now() - givenUpLineAt >= TARGET_GIVEN_UP_LINE_EVERY_MS) {
        givenUpLineAt = Date.now()
        givenUpSaid = true
        return log(Effect.logWarning(
          `the memory target (AICS_MEMORY_TARGET_MIB=${settings.memoryTargetMiB}) is not met: the process passed it while the heap's growth was held to it; ${held}; ` +
            `it is given up for V8's own growth until there is room again, and the process may pass it (docs/operations.md "The heap under load")`
        ))
      }
      if (turned && !gaveUp && givenUpSaid) {
        givenUpSaid = false
        return log(Effect.logInfo(`the memory target (AICS_MEMORY_TARGET_MIB=${settings.memoryTargetMiB}) is held again: ${held}; the heap's growth is ${percent}%`))
      }
      log(Effect.logDebug(`the heap's growth is ${percent === 0 ? "V8's own" : `${percent}%`} (AICS_MEMORY_TARGET_MIB=${settings.memoryTargetMiB}${gaveUp ? ", given up" : ""}): ${held}`))
    })
  })
