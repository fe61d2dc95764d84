// The heap's growth (src/adapters/os/heapGrowth.ts): fixed by AICS_HEAP_GROWTH_PERCENT, or
// held under AICS_MEMORY_TARGET_MIB after each full collection. The processes run apart,
// since V8's flags are the process's: a live set, then a stream of objects that each
// outlive the young generation and then die, as a write load's objects do. A fixed growth
// an operator short of memory sets (75%), or a target, holds the heap well below where V8's
// own choice lets it go; a target the live set leaves no room for is said in the log.

import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import {
  AT_START,
  BETWEEN_COLLECTIONS_ALLOWANCE,
  GIVE_UP_AFTER_COLLECTIONS,
  type Governing,
  governedGrowth,
  growthWithin,
  type HeapReading,
  LEAST_GOVERNED_GROWTH_PERCENT,
  PASSED_BY_KEPT_SHARE,
  PASSED_TOLERANCE_SHARE,
  RESUME_AFTER_COLLECTIONS
} from "../../../src/adapters/os/heapGrowth.js"

// Run from the repository's root on the built module (test/support/globalSetup.ts builds dist/).
// It yields to the event loop now and then, as a server does, so the governor hears the
// full collections.
const PEAK_SCRIPT = `
import { Effect } from "effect"
import { getHeapStatistics } from "node:v8"
import { heapGrowthAsSet } from "./dist/src/adapters/os/heapGrowth.js"
const [heapGrowthPercent, memoryTargetMiB] = [Number(process.argv[1]), Number(process.argv[2])]
const churn = Effect.promise(async () => {
  const live = []
  for (let i = 0; i < 64 * 1024; i++) live.push({ i, data: new Array(120).fill(i) })
  const recent = new Array(32 * 1024)
  let peak = 0
  for (let i = 0; i < 4 * 1024 * 1024; i++) {
    recent[i % recent.length] = { i, data: new Array(120).fill(i) }
    if (i % 1024 === 0) {
      // The peak over the second half: a governor's setting holds from the full collection
      // after the one it heard, and the first cycles, while the live set is built, run
      // before it has read one (at the least growth under a target).
      if (i >= 2 * 1024 * 1024) peak = Math.max(peak, getHeapStatistics().total_heap_size)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return { peak, live: live.length, recent: recent.length }
})
const result = await Effect.runPromise(Effect.scoped(Effect.zipRight(heapGrowthAsSet({ heapGrowthPercent, memoryTargetMiB }), churn)))
process.stdout.write(JSON.stringify(result) + "\\n")
`

const MiB = 1024 * 1024

const peakWith = async (settings: { heapGrowthPercent: number; memoryTargetMiB: number }): Promise<{ peak: number; output: string }> => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", PEAK_SCRIPT, String(settings.heapGrowthPercent), String(settings.memoryTargetMiB)], {
    maxBuffer: 1024 * 1024
  })
  const last = stdout.trim().split("\n").at(-1)!
  return { peak: (JSON.parse(last) as { peak: number }).peak, output: stdout }
}

describe("the heap's growth", () => {
  // Each setting in a process of its own, one after the other (their peaks compared).
  const peaks = new Map<string, { peak: number; output: string }>()
  const settings = {
    own: { heapGrowthPercent: 0, memoryTargetMiB: 0 },
    fixed: { heapGrowthPercent: 75, memoryTargetMiB: 0 },
    // The live set, about 130 MiB after a collection, and the rest of the process, about 75,
    // leave a 400 MiB target room for about 80% growth.
    targeted: { heapGrowthPercent: 0, memoryTargetMiB: 400 },
    // And a target of 160 MiB none at all.
    unmeetable: { heapGrowthPercent: 0, memoryTargetMiB: 160 }
  }
  beforeAll(async () => {
    for (const [name, setting] of Object.entries(settings)) peaks.set(name, await peakWith(setting))
  }, 120_000)
  const peak = (name: keyof typeof settings) => peaks.get(name)!.peak

  it("at 75%, or held under a memory target the process can meet, stays well below V8's own growth under the same churn", () => {
    // Seen here: 650-690 MiB (V8's own) against about 280 (75%) and 365-436 (a target of 400
    // MiB); with the whole suite running beside it, V8's own 514 and the target's 399: V8's
    // own growth is lower while the cores are shared, the target's the same.
    for (const bounded of [peak("fixed"), peak("targeted")]) expect(bounded).toBeGreaterThan(96 * MiB)
    expect(peak("fixed")).toBeLessThan(peak("own") * 0.75)
    expect(peak("targeted")).toBeLessThan(peak("own") * 0.85)
  })

  it("gives up, for V8's own growth, a target the live set alone passes, and says so in the log", () => {
    const { output } = peaks.get("unmeetable")!
    expect(output).toContain("AICS_MEMORY_TARGET_MIB=160")
    expect(output).toContain("it is given up for V8's own growth until there is room again")
    // Given up, the heap grows as V8 lets it: past where the meetable target held it (seen
    // here: about 680 MiB).
    expect(peak("unmeetable")).toBeGreaterThan(peak("targeted"))
  })
})

// A churn from the first moment, as a write load that comes right after a start: the most
// the heap held before its first full collection, and from there until its second (the cycle
// whose limit the first set, before the governor had heard any).
const FIRST_CYCLE_SCRIPT = `
import { Effect } from "effect"
import { constants, PerformanceObserver } from "node:perf_hooks"
import { getHeapStatistics } from "node:v8"
import { heapGrowthAsSet } from "./dist/src/adapters/os/heapGrowth.js"
const memoryTargetMiB = Number(process.argv[1])
const churn = Effect.promise(async () => {
  let fullCollections = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections++
  })
  observer.observe({ entryTypes: ["gc"] })
  const peaks = [0, 0]
  const recent = new Array(32 * 1024)
  for (let i = 0; fullCollections < 2 && i < 8 * 1024 * 1024; i++) {
    recent[i % recent.length] = { i, data: new Array(120).fill(i) }
    if (i % 1024 === 0) {
      peaks[fullCollections] = Math.max(peaks[fullCollections], getHeapStatistics().total_heap_size)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  observer.disconnect()
  return { peaks, fullCollections }
})
const result = await Effect.runPromise(Effect.scoped(Effect.zipRight(heapGrowthAsSet({ heapGrowthPercent: 0, memoryTargetMiB }), churn)))
process.stdout.write(JSON.stringify(result) + "\\n")
`

describe("the heap's first cycle under a target", () => {
  const firstCycles = async (memoryTargetMiB: number) => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", FIRST_CYCLE_SCRIPT, String(memoryTargetMiB)])
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as { peaks: [number, number]; fullCollections: number }
  }

  it("is held too: the least growth is asked for until the first full collection, which sets the next limit before the governor has a reading", async () => {
    const own = await firstCycles(0)
    const targeted = await firstCycles(400)
    expect(own.fullCollections).toBe(2)
    expect(targeted.fullCollections).toBe(2)
    // Seen here: both collect first at about 80 MiB; then the limit that collection set let
    // the heap reach about 210 MiB at V8's own growth, about 100 at the least (the live ring
    // itself is about 32 MiB).
    expect(targeted.peaks[1]).toBeGreaterThan(32 * MiB)
    expect(targeted.peaks[1]).toBeLessThan(own.peaks[1] * 0.75)
  }, 60_000)
})

describe("growthWithin: the growth that keeps the process under its target", () => {
  const reading = (survivorsMiB: number, restMiB: number): HeapReading => ({ survivors: survivorsMiB * MiB, rest: restMiB * MiB, peak: 0 })
  const allowance = BETWEEN_COLLECTIONS_ALLOWANCE / MiB

  it("lets the old generation fill what the rest of the process and the allowance leave", () => {
    const percent = growthWithin(400 * MiB, reading(60, 100))
    expect(percent).toBe(Math.floor(((400 - allowance - 100) / 60 - 1) * 100))
    // The old generation's limit it sets, with the rest and the allowance, is the target.
    expect(60 * (1 + percent / 100) + 100 + allowance).toBeLessThanOrEqual(400)
    expect(60 * (1 + (percent + 1) / 100) + 100 + allowance).toBeGreaterThan(400)
  })

  it("leaves V8's own growth (0) when even four times what survived fits", () => {
    expect(growthWithin(4096 * MiB, reading(60, 100))).toBe(0)
  })

  it("never asks for less than the least growth, however little room is left", () => {
    expect(growthWithin(256 * MiB, reading(120, 150))).toBe(LEAST_GOVERNED_GROWTH_PERCENT)
    expect(growthWithin(128 * MiB, reading(0, 100))).toBe(LEAST_GOVERNED_GROWTH_PERCENT)
  })

  it("gives less growth as the rest of the process grows (a log's caches, streams open)", () => {
    expect(growthWithin(384 * MiB, reading(60, 200))).toBeLessThan(growthWithin(384 * MiB, reading(60, 150)))
    expect(growthWithin(384 * MiB, reading(90, 150))).toBeLessThan(growthWithin(384 * MiB, reading(60, 150)))
  })
})

describe("governedGrowth: a target held while it can be met, given up while it cannot", () => {
  const target = 384 * MiB
  const reading = (survivorsMiB: number, restMiB: number, peakMiB: number): HeapReading => ({ survivors: survivorsMiB * MiB, rest: restMiB * MiB, peak: peakMiB * MiB })
  /** The decisions after each reading in turn, from the start. */
  const run = (readings: ReadonlyArray<HeapReading>, from: Governing = AT_START) => {
    const decisions: Array<{ percent: number; governing: Governing }> = []
    let governing = from
    for (const r of readings) {
      const next = governedGrowth(target, r, governing)
      decisions.push(next)
      governing = next.governing
    }
    return decisions
  }
  const times = <A>(n: number, a: A): Array<A> => Array.from({ length: n }, () => a)
  // bench/write's process under a 384 MiB target (bench/README.md "Session 29"): about 60 MiB
  // survive, the rest about 150, the peaks at the target.
  const writing = reading(60, 150, 380)
  // With 1,000 stream subscribers (Session 30): 80 MiB survive, the rest 180, and the process
  // peaks at 433-473 MB whatever the growth.
  const streaming = reading(80, 180, 450)

  it("holds a target it meets, with growthWithin's growth, for good", () => {
    const decisions = run(times(20, writing))
    expect(decisions.every((d) => !d.governing.gaveUp)).toBe(true)
    expect(decisions.at(-1)!.percent).toBe(growthWithin(target, writing))
  })

  it("gives up, for V8's own growth, a target the held cycles pass all the same, after several in a row", () => {
    const decisions = run(times(10, streaming))
    // Held at first: the growth the readings give (room at 75%).
    expect(decisions[0]).toMatchObject({ percent: growthWithin(target, streaming), governing: { gaveUp: false } })
    // The first two cycles ran on V8's own growth (a decision holds from the collection after
    // it), so passing the target counts from the third reading on, GIVE_UP_AFTER_COLLECTIONS times.
    const firstGivenUp = decisions.findIndex((d) => d.governing.gaveUp)
    expect(firstGivenUp).toBe(2 + GIVE_UP_AFTER_COLLECTIONS - 1)
    expect(decisions.slice(firstGivenUp).every((d) => d.percent === 0 && d.governing.gaveUp)).toBe(true)
    expect(decisions[firstGivenUp]!.governing.passedBy).toBe((450 - 384) * MiB)
  })

  it("does not give up for a cycle or two past the target, nor for a peak within the tolerance", () => {
    const past = reading(60, 150, 450)
    const readings = [writing, writing, ...times(GIVE_UP_AFTER_COLLECTIONS - 1, past), writing, ...times(GIVE_UP_AFTER_COLLECTIONS - 1, past), writing]
    expect(run(readings).some((d) => d.governing.gaveUp)).toBe(false)
    const withinTolerance = reading(60, 150, 384 * (1 + PASSED_TOLERANCE_SHARE) - 1)
    expect(run(times(20, withinTolerance)).some((d) => d.governing.gaveUp)).toBe(false)
  })

  it("does not count against the target the cycles V8's own growth ran before the first decision held", () => {
    // Two peaks past the target right at the start, then a process within it.
    const decisions = run([reading(60, 150, 500), reading(60, 150, 500), ...times(GIVE_UP_AFTER_COLLECTIONS, writing)])
    expect(decisions.some((d) => d.governing.gaveUp)).toBe(false)
  })

  it("holds a target the readings leave no room for while the process stays within it: the outcome decides, not the prediction", () => {
    // At 1,000,000 entries (bench/README.md "Session 31"): 90 MiB survive and the rest is 203,
    // no room even at 50% by the readings, and the process held 372-406 MiB at 50%.
    const tight = reading(90, 203, 400)
    expect(growthWithin(target, tight)).toBe(LEAST_GOVERNED_GROWTH_PERCENT)
    const decisions = run(times(20, tight))
    expect(decisions.every((d) => !d.governing.gaveUp && d.percent === LEAST_GOVERNED_GROWTH_PERCENT)).toBe(true)
  })

  it("gives up a target passed at the least growth, and takes it back once room comes back", () => {
    const crowded = reading(100, 250, 450)
    // The first two cycles are V8's own (not judged), then GIVE_UP_AFTER_COLLECTIONS passed.
    const decisions = run([...times(2 + GIVE_UP_AFTER_COLLECTIONS, crowded), ...times(RESUME_AFTER_COLLECTIONS + 2, reading(40, 120, 300))])
    expect(decisions[2 + GIVE_UP_AFTER_COLLECTIONS - 2]!.governing.gaveUp).toBe(false)
    expect(decisions[2 + GIVE_UP_AFTER_COLLECTIONS - 1]).toMatchObject({ percent: 0, governing: { gaveUp: true } })
    // Back after RESUME_AFTER_COLLECTIONS readings with room (40 MiB survive, the rest 120: room
    // for 240% less the 66 MiB it was passed by), not before.
    expect(decisions[2 + GIVE_UP_AFTER_COLLECTIONS + RESUME_AFTER_COLLECTIONS - 2]!.governing.gaveUp).toBe(true)
    expect(decisions[2 + GIVE_UP_AFTER_COLLECTIONS + RESUME_AFTER_COLLECTIONS - 1]).toMatchObject({ governing: { gaveUp: false, passedBy: 0 } })
  })

  it("takes back a target it passed once the room, less what it passed it by (fading), is enough", () => {
    // A swing of 176 MiB past the target, three cycles in a row.
    const swinging = reading(80, 180, 560)
    const givenUp = run(times(10, swinging)).at(-1)!.governing
    expect(givenUp).toMatchObject({ gaveUp: true })
    expect(givenUp.passedBy).toBeLessThanOrEqual((560 - 384) * MiB)
    // The swing over, the rest at 150 MiB: growthWithin alone would give 115% at once, but the
    // room less what was passed by leaves less than the least growth and the margin until it
    // has faded (an eighth a collection).
    const calmer = reading(60, 150, 300)
    const after = run(times(20, calmer), givenUp)
    expect(after.slice(0, RESUME_AFTER_COLLECTIONS).every((d) => d.governing.gaveUp)).toBe(true)
    const back = after.findIndex((d) => !d.governing.gaveUp)
    expect(back).toBeGreaterThan(RESUME_AFTER_COLLECTIONS)
    expect(after[back]).toMatchObject({ percent: growthWithin(target, calmer), governing: { gaveUp: false, passedBy: 0 } })
    // 176 MiB faded to the 65 the room leaves in 8 collections (7/8 a collection), then the streak.
    expect(back).toBeLessThanOrEqual(Math.ceil(Math.log(65 / 176) / Math.log(PASSED_BY_KEPT_SHARE)) + RESUME_AFTER_COLLECTIONS)
  })

  it("does not count a spike past the target while V8's own growth fits: holding could lower nothing", () => {
    // 20 MiB survive and the rest is 100: V8's largest growth fits, and the process still
    // passes the target at times (a burst of Buffers, say).
    const spiking = reading(20, 100, 500)
    expect(growthWithin(target, spiking)).toBe(0)
    expect(run(times(10, spiking)).some((d) => d.governing.gaveUp)).toBe(false)
  })
})
