import { open } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"
import { ASYNC_SPELL_MS, paceRead, readRanges, type ReadPace, SLOW_READ_MS, writeFully } from "../../../src/adapters/fs/fileIo.js"
import { tempDir } from "./tempDir.js"

const bytesOf = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 7 + 3) & 0xff)

describe("readRanges", () => {
  it.scoped("reads small ranges (synchronously) and large ones (through the pool) exactly", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("fileio")
      const content = bytesOf(200_000)
      const handle = yield* Effect.acquireRelease(
        Effect.promise(() => open(join(dir, "data"), "w+")),
        (h) => Effect.promise(() => h.close())
      )
      yield* Effect.promise(() => writeFully(handle, content, 0))
      const small = [{ position: 5, length: 32 }, { position: 1000, length: 96 }, { position: 0, length: 1 }]
      const read = yield* readRanges(handle, small, "test")
      expect(read).toEqual(small.map(({ position, length }) => content.subarray(position, position + length)))
      // 128 KiB in all: over the synchronous limit.
      const large = [{ position: 10, length: 65_536 }, { position: 100_000, length: 65_536 }]
      const readLarge = yield* readRanges(handle, large, "test")
      expect(readLarge).toEqual(large.map(({ position, length }) => content.subarray(position, position + length)))
      // A range past the end is an error naming what was read, whichever way it is read.
      for (const ranges of [[{ position: 199_990, length: 20 }], [{ position: 150_000, length: 65_536 }, { position: 0, length: 10 }]]) {
        const exit = yield* Effect.exit(readRanges(handle, ranges, "the test file"))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(String(Exit.isFailure(exit) && exit.cause)).toMatch(/the test file: file ends after \d+ of \d+ bytes/)
      }
    }))
})

describe("paceRead", () => {
  const fresh = (): ReadPace => ({ slow: 0, asyncUntil: 0 })
  const SLOW = SLOW_READ_MS + 5
  const QUICK = SLOW_READ_MS / 100

  it("keeps reading synchronously after a lone slow read (a preempted thread)", () => {
    const pace = fresh()
    paceRead(pace, SLOW, 1000)
    for (let i = 0; i < 20; i++) paceRead(pace, QUICK, 1000 + i)
    paceRead(pace, SLOW, 2000)
    expect(pace.asyncUntil).toBe(0)
  })

  it("sends reads through the pool for a spell after slow reads close together, then tries again", () => {
    const pace = fresh()
    paceRead(pace, SLOW, 1000)
    paceRead(pace, SLOW, 1001)
    expect(pace.asyncUntil).toBe(0)
    paceRead(pace, SLOW, 1002)
    expect(pace.asyncUntil).toBe(1002 + ASYNC_SPELL_MS)
    // The count starts again, so the next spell needs as many slow reads again.
    paceRead(pace, SLOW, 1002 + ASYNC_SPELL_MS)
    expect(pace.asyncUntil).toBe(1002 + ASYNC_SPELL_MS)
  })
})
