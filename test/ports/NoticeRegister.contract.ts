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
          const closed = yield* register.close("b", { at: T0 + 1000, outcome: "no_action", reportIndex: 7 })
          expect(Option.getOrThrow(closed)).toMatchObject({ status: "closed", closed: T0 + 1000, outcome: "no_action", reportIndex: 7 })
          expect(Option.isNone(yield* register.close("b", { at: T0 + 2000, outcome: "invalid", reportIndex: 8 }))).toBe(true)
          expect(Option.isNone(yield* register.close("zz", { at: T0, outcome: "invalid", reportIndex: 8 }))).toBe(true)
          expect((yield* register.list("closed", 100)).map((r) => r.reportId)).toEqual(["b"])
          expect((yield* register.list("open", 100)).map((r) => r.reportId)).toEqual(["a", "c"])
          expect((yield* register.list(undefined, 100)).length).toBe(3)
          expect([yield* register.count("open"), yield* register.count("closed")]).toEqual([2, 1])
        }))
      }))

    it.scoped("purges text and contact of closed notices from 12 months after closing, not before", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withRegister(layer, (register) => Effect.gen(function*() {
          yield* register.add(notice("open-one"))
          yield* register.add(notice("closed-one"))
          yield* register.close("closed-one", { at: T0, outcome: "withdrawn", reportIndex: 3 })
          const due = deletionDueAt(T0)
          expect(yield* register.purge(due - 1)).toBe(0)
          expect(Option.getOrThrow(yield* register.get("closed-one")).text).not.toBeNull()
          expect(yield* register.purge(due)).toBe(1)
          const purged = Option.getOrThrow(yield* register.get("closed-one"))
          expect(purged.text).toBeNull()
          expect(purged.contact).toBeNull()
          expect(purged.outcome).toBe("withdrawn")
          expect(Option.getOrThrow(yield* register.get("open-one")).text).not.toBeNull()
          expect(yield* register.purge(due + 10_000)).toBe(0)
        }))
      }))

    if (adapter.durable) {
      it.scoped("keeps every record across reopens", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withRegister(layer, (register) => Effect.gen(function*() {
            yield* register.add(notice("x"))
            yield* register.add(notice("y"))
            yield* register.close("x", { at: T0 + 5, outcome: "duplicate", reportIndex: 9 })
          }))
          yield* withRegister(layer, (register) => Effect.gen(function*() {
            expect((yield* register.list(undefined, 10)).map((r) => [r.reportId, r.status])).toEqual([["x", "closed"], ["y", "open"]])
            expect(Option.getOrThrow(yield* register.get("y")).text?.explanation).toBe("explanation of notice y, long enough")
          }))
        }))
    }
  })
}
