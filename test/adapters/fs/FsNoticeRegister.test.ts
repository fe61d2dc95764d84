import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { describe, expect } from "vitest"
import { FsNoticeRegisterLive } from "../../../src/adapters/fs/FsNoticeRegister.js"
import { MemoryNoticeRegisterLive } from "../../../src/adapters/memory/MemoryNoticeRegister.js"
import { makeTestClock } from "../../../src/adapters/clock/TestClock.js"
import { purgeDueNotices } from "../../../src/app/Notices.js"
import { NoticeRegister } from "../../../src/ports/NoticeRegister.js"
import { notice, noticeRegisterContract, T0 } from "../../ports/NoticeRegister.contract.js"
import { tempDir } from "./tempDir.js"

noticeRegisterContract("FsNoticeRegister", { fresh: Effect.map(tempDir("notices"), FsNoticeRegisterLive), durable: true })
noticeRegisterContract("MemoryNoticeRegister", { fresh: Effect.succeed(MemoryNoticeRegisterLive), durable: false })

it.scoped("FsNoticeRegister: a purged report id, text and contact are gone from the files", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("notices-purge")
    yield* Effect.scoped(Effect.gen(function*() {
      const register = yield* NoticeRegister
      yield* register.add(notice("secret-id"))
      yield* register.close("secret-id", { at: T0, outcome: "no_action", reportIndex: 1, noticeHash: "hash-1" })
      yield* register.purge(T0 + 400 * 86_400_000)
    }).pipe(Effect.provide(FsNoticeRegisterLive(dir))))
    const files = yield* Effect.promise(() => readdir(dir))
    for (const file of files) {
      const text = yield* Effect.promise(() => readFile(join(dir, file), "utf8"))
      expect(text).not.toContain("secret-id")
      expect(text).not.toContain("explanation of notice")
    }
  }))

describe("notice retention with a controlled clock (memory register, TestClock)", () => {
  const MONTH12 = Date.UTC(2027, 0, 31, 12, 0, 0) // T0 is 2026-01-31 12:00 UTC
  it.effect("keeps report id, text and contact until 12 months after closing, deletes them then", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(T0)
      const layer = Layer.merge(MemoryNoticeRegisterLive, clock.layer)
      yield* Effect.gen(function*() {
        const register = yield* NoticeRegister
        yield* register.add(notice("kept"))
        yield* register.add(notice("closed"))
        yield* clock.advance(60_000)
        yield* register.close("closed", { at: clock.peek(), outcome: "no_action", reportIndex: 4, noticeHash: "hash-4" })
        const closedAt = clock.peek()
        expect(closedAt).toBe(T0 + 60_000)
        // Eleven months and a bit: still there.
        yield* clock.set(Date.UTC(2026, 11, 31, 12, 0, 0))
        expect(yield* purgeDueNotices).toBe(0)
        // One millisecond before 12 months after closing: still there.
        yield* clock.set(MONTH12 + 60_000 - 1)
        expect(yield* purgeDueNotices).toBe(0)
        expect(Option.getOrThrow(yield* register.get("closed")).contact?.email).toBe("closed@example.test")
        // 12 months after closing: gone, the report id with them.
        yield* clock.set(MONTH12 + 60_000)
        expect(yield* purgeDueNotices).toBe(1)
        expect(Option.isNone(yield* register.get("closed"))).toBe(true)
        const [record] = yield* register.list("closed", 10)
        expect(record).toMatchObject({ reportId: null, text: null, contact: null, reportIndex: 4 })
        // An open notice is never purged, however old.
        yield* clock.advance(5 * 365 * 86_400_000)
        expect(yield* purgeDueNotices).toBe(0)
        expect(Option.getOrThrow(yield* register.get("kept")).text).not.toBeNull()
      }).pipe(Effect.provide(layer))
    }))
})
