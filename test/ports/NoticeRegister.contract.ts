// The NoticeRegister contract (src/ports/NoticeRegister.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, Either, Option, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { deletionDueAt, openNotice, type NoticeRecord } from "../../src/domain/governance/notice.js"
import { NoticeRegister } from "../../src/ports/NoticeRegister.js"

export interface NoticeRegisterUnderTest {
  /** A new, empty register and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<NoticeRegister, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withRegister = <A, E>(layer: Layer.Layer<NoticeRegister, unknown>, use: (r: typeof NoticeRegister.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(NoticeRegister, use).pipe(Effect.provide(layer)))

export const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

export const notice = (id: string, received = T0): NoticeRecord =>
  Either.getOrThrow(openNotice({
    location: `https://example.test/post/${id}`,
    explanation: `explanation of notice ${id}, long enough`,
    name: `Name ${id}`,
    email: `${id}@example.test`,
    accurate: true
  }, id, received))

/** A counter-notice citing `cited`, as POST /notice takes it. */
export const counterNotice = (id: string, cited: string, received = T0): NoticeRecord =>
  Either.getOrThrow(openNotice({
    kind: "counter_notice",
    location: `https://example.test/post/${id}`,
    explanation: `counter-notice ${id} to ${cited}`,
    email: `${id}@example.test`,
    report_id: cited,
    accurate: true
  }, id, received))

export const noticeRegisterContract = (name: string, adapter: NoticeRegisterUnderTest): void => {
  describe(`NoticeRegister contract: ${name}`, () => {
    it.scoped("adds, gets, lists by status with a limit, counts by status, closes once", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withRegister(layer, (register) => Effect.gen(function*() {
          for (const id of ["a", "b", "c"]) yield* register.add(notice(id))
          expect(Option.getOrThrow(yield* register.get("b")).contact?.email).toBe("b@example.test")
          expect(Option.isNone(yield* register.get("zz"))).toBe(true)
          expect((yield* register.list("open", 100)).map((r) => r.reportId)).toEqual(["a", "b", "c"])
          expect((yield* register.list("open", 2)).map((r) => r.reportId)).toEqual(["a", "b"])
          expect([yield* register.count("open"), yield* register.count("closed")]).toEqual([3, 0])
          const closed = yield* register.close("b", { at: T0 + 1000, outcome: "no_action", reportIndex: 7, noticeHash: `hash-7` })
          expect(Option.getOrThrow(closed)).toMatchObject({ status: "closed", closed: T0 + 1000, outcome: "no_action", reportIndex: 7, noticeHash: `hash-7` })
          expect(Option.isNone(yield* register.close("b", { at: T0 + 2000, outcome: "invalid", reportIndex: 8, noticeHash: `hash-8` }))).toBe(true)
          expect(Option.isNone(yield* register.close("zz", { at: T0, outcome: "invalid", reportIndex: 8, noticeHash: `hash-8` }))).toBe(true)
          expect((yield* register.list("closed", 100)).map((r) => r.reportId)).toEqual(["b"])
          expect((yield* register.list("open", 100)).map((r) => r.reportId)).toEqual(["a", "c"])
          expect((yield* register.list(undefined, 100)).length).toBe(3)
          expect([yield* register.count("open"), yield* register.count("closed")]).toEqual([2, 1])
        }))
      }))

    it.scoped("purges the report id, text and contact of closed notices from 12 months after closing, not before", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withRegister(layer, (register) => Effect.gen(function*() {
          yield* register.add(notice("open-one"))
          yield* register.add(notice("closed-one"))
          yield* register.add(notice("later-one"))
          yield* register.close("closed-one", { at: T0, outcome: "withdrawn", reportIndex: 3, noticeHash: `hash-3` })
          const due = deletionDueAt(T0)
          expect(yield* register.purge(due - 1)).toBe(0)
          expect(Option.getOrThrow(yield* register.get("closed-one")).text).not.toBeNull()
          expect(yield* register.purge(due)).toBe(1)
          // No report id finds it any more; it is still listed and counted, in its place.
          expect(Option.isNone(yield* register.get("closed-one"))).toBe(true)
          expect((yield* register.list(undefined, 10)).map((r) => r.reportId)).toEqual(["open-one", null, "later-one"])
          const [purged] = yield* register.list("closed", 10)
          expect(purged).toMatchObject({ reportId: null, text: null, contact: null, status: "closed", closed: T0, outcome: "withdrawn", reportIndex: 3, noticeHash: "hash-3" })
          expect(yield* register.count("closed")).toBe(1)
          expect(Option.getOrThrow(yield* register.get("open-one")).text).not.toBeNull()
          expect(yield* register.purge(due + 10_000)).toBe(0)
          // A purged record cannot be closed again by any id.
          expect(Option.isNone(yield* register.close("closed-one", { at: due, outcome: "invalid", reportIndex: 9, noticeHash: "hash-9" }))).toBe(true)
        }))
      }))

    it.scoped("makes a counter-notice that cited a deleted report id cite its report leaf instead", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withRegister(layer, (register) => Effect.gen(function*() {
          yield* register.add(notice("original"))
          yield* register.close("original", { at: T0, outcome: "removed", reportIndex: 5, noticeHash: "hash-5" })
          yield* register.add(counterNotice("counter", "original", T0 + 1000))
          yield* register.add(counterNotice("unrelated", "someone-else", T0 + 2000))
          expect(yield* register.purge(deletionDueAt(T0))).toBe(1)
          const counter = Option.getOrThrow(yield* register.get("counter"))
          expect(counter.text).toMatchObject({ citedReportId: null, citedReportIndex: 5 })
          expect(counter.contact?.email).toBe("counter@example.test") // its own data stays, until its own deletion
          expect(Option.getOrThrow(yield* register.get("unrelated")).text?.citedReportId).toBe("someone-else")
        }))
      }))

    if (adapter.durable) {
      it.scoped("keeps every record across reopens", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withRegister(layer, (register) => Effect.gen(function*() {
            yield* register.add(notice("x"))
            yield* register.add(notice("y"))
            yield* register.close("x", { at: T0 + 5, outcome: "duplicate", reportIndex: 9, noticeHash: `hash-9` })
          }))
          yield* withRegister(layer, (register) => Effect.gen(function*() {
            expect((yield* register.list(undefined, 10)).map((r) => [r.reportId, r.status])).toEqual([["x", "closed"], ["y", "open"]])
            expect(Option.getOrThrow(yield* register.get("y")).text?.explanation).toBe("explanation of notice y, long enough")
            // A purge is kept across a reopen too.
            expect(yield* register.purge(deletionDueAt(T0 + 5))).toBe(1)
          }))
          yield* withRegister(layer, (register) => Effect.gen(function*() {
            expect((yield* register.list(undefined, 10)).map((r) => [r.reportId, r.status, r.noticeHash])).toEqual([[null, "closed", "hash-9"], ["y", "open", undefined]])
            expect(Option.isNone(yield* register.get("x"))).toBe(true)
          }))
        }))
    }
  })
}
