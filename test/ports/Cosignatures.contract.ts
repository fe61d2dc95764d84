// The Cosignatures contract (src/ports/Cosignatures.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { Cosignatures, type AnotherHistoryAlarm, type CollectedCosignature } from "../../src/ports/Cosignatures.js"

export interface CosignaturesUnderTest {
  readonly fresh: Effect.Effect<Layer.Layer<Cosignatures, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withStore = <A, E>(layer: Layer.Layer<Cosignatures, unknown>, use: (s: typeof Cosignatures.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(Cosignatures, use).pipe(Effect.provide(layer)))

const cosignature = (witness: string, size: number): CollectedCosignature =>
  ({ witness, size, line: `— ${witness.split("+")[0]} line-${size}\n`, timestamp: 1_800_000_000 + size })

const sorted = <A extends { readonly witness: string }>(list: ReadonlyArray<A>) => [...list].sort((a, b) => a.witness.localeCompare(b.witness))

const alarm = (witness: string, detail: string, raisedAt: number): AnotherHistoryAlarm => ({ witness, detail, raisedAt })

export const cosignaturesContract = (name: string, adapter: CosignaturesUnderTest): void => {
  describe(`Cosignatures contract: ${name}`, () => {
    it.scoped("keeps each witness's cosignature of the largest size", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.list).toEqual([])
          yield* store.record(cosignature("a.example/w+00000001+BA", 5))
          yield* store.record(cosignature("b.example/w+00000002+BA", 3))
          yield* store.record(cosignature("a.example/w+00000001+BA", 4))
          expect(sorted(yield* store.list)).toEqual([cosignature("a.example/w+00000001+BA", 5), cosignature("b.example/w+00000002+BA", 3)])
          yield* store.record(cosignature("a.example/w+00000001+BA", 8))
          yield* store.record({ ...cosignature("b.example/w+00000002+BA", 3), timestamp: 1 })
          expect(sorted(yield* store.list)).toEqual([cosignature("a.example/w+00000001+BA", 8), { ...cosignature("b.example/w+00000002+BA", 3), timestamp: 1 }])
        }))
        if (adapter.durable) {
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(sorted(yield* store.list).map((c) => c.size)).toEqual([8, 3])
          }))
        }
      }))

    it.scoped("keeps one another-history alarm per witness, from its first raise until it is cleared", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const a = "a.example/w+00000001+BA"
        const b = "b.example/w+00000002+BA"
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.alarms).toEqual([])
          // Clearing what is not there is no error.
          yield* store.clearAlarm(a)
          yield* store.raiseAlarm(alarm(a, "409: size 20 above this log's 5", 100))
          yield* store.raiseAlarm(alarm(b, "422: the proof from size 3 does not verify", 110))
          // A later raise replaces the detail and keeps the time the alarm began.
          yield* store.raiseAlarm(alarm(a, "409: size 20 above this log's 6", 200))
          // The same again changes nothing.
          yield* store.raiseAlarm(alarm(a, "409: size 20 above this log's 6", 300))
          expect(sorted(yield* store.alarms)).toEqual([alarm(a, "409: size 20 above this log's 6", 100), alarm(b, "422: the proof from size 3 does not verify", 110)])
          // A cosignature does not clear an alarm by itself, nor an alarm touch the cosignatures.
          yield* store.record(cosignature(a, 7))
          expect((yield* store.alarms).map((x) => x.witness).sort()).toEqual([a, b])
          expect(yield* store.list).toEqual([cosignature(a, 7)])
          yield* store.clearAlarm(b)
          expect(yield* store.alarms).toEqual([alarm(a, "409: size 20 above this log's 6", 100)])
        }))
        if (adapter.durable) {
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(yield* store.alarms).toEqual([alarm(a, "409: size 20 above this log's 6", 100)])
            expect(yield* store.list).toEqual([cosignature(a, 7)])
            // Raised again after the reopen, it keeps its first time; cleared, it is gone for good.
            yield* store.raiseAlarm(alarm(a, "422: refused", 400))
            expect(yield* store.alarms).toEqual([alarm(a, "422: refused", 100)])
            yield* store.clearAlarm(a)
            yield* store.raiseAlarm(alarm(b, "409: another tree of size 5", 500))
          }))
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(yield* store.alarms).toEqual([alarm(b, "409: another tree of size 5", 500)])
          }))
        }
      }))

    it.scoped("keeps the largest size a witness was found to have cosigned above the log, until the alarm is cleared", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const a = "a.example/w+00000001+BA"
        yield* withStore(layer, (store) => Effect.gen(function*() {
          yield* store.raiseAlarm(alarm(a, "422: the proof from size 3 does not verify", 100))
          expect((yield* store.alarms)[0]!.witnessSize).toBeUndefined()
          yield* store.raiseAlarm({ ...alarm(a, "size 20 above this log's 5", 200), witnessSize: 20 })
          expect(yield* store.alarms).toEqual([{ ...alarm(a, "size 20 above this log's 5", 100), witnessSize: 20 }])
          // A smaller size, or a raise of another kind, takes nothing back of the proof.
          yield* store.raiseAlarm({ ...alarm(a, "size 20 above this log's 5", 300), witnessSize: 12 })
          yield* store.raiseAlarm(alarm(a, "409: another tree of size 5", 400))
          expect(yield* store.alarms).toEqual([{ ...alarm(a, "409: another tree of size 5", 100), witnessSize: 20 }])
          yield* store.raiseAlarm({ ...alarm(a, "409: another tree of size 5", 500), witnessSize: 21 })
          expect(yield* store.alarms).toEqual([{ ...alarm(a, "409: another tree of size 5", 100), witnessSize: 21 }])
        }))
        if (adapter.durable) {
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(yield* store.alarms).toEqual([{ ...alarm(a, "409: another tree of size 5", 100), witnessSize: 21 }])
            // Cleared, the next alarm starts without a size.
            yield* store.clearAlarm(a)
            yield* store.raiseAlarm(alarm(a, "422: refused", 600))
            expect(yield* store.alarms).toEqual([alarm(a, "422: refused", 600)])
            expect((yield* store.alarms)[0]!.witnessSize).toBeUndefined()
          }))
        }
      }))

    it.scoped("keeps the tree a witness refused, from the latest raise that names one, until the alarm is cleared", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const a = "a.example/w+00000001+BA"
        const first = { size: 3, root: "A".repeat(43) + "=" }
        const later = { size: 7, root: "B".repeat(43) + "=" }
        yield* withStore(layer, (store) => Effect.gen(function*() {
          yield* store.raiseAlarm({ ...alarm(a, "422: the proof from size 3 does not verify", 100), refusedTree: first })
          expect(yield* store.alarms).toEqual([{ ...alarm(a, "422: the proof from size 3 does not verify", 100), refusedTree: first }])
          // A raise of another kind keeps it, beside the size it names.
          yield* store.raiseAlarm({ ...alarm(a, "size 20 above this log's 5", 200), witnessSize: 20 })
          expect(yield* store.alarms).toEqual([{ ...alarm(a, "size 20 above this log's 5", 100), witnessSize: 20, refusedTree: first }])
          // A later refused tree replaces it, the detail unchanged.
          yield* store.raiseAlarm({ ...alarm(a, "size 20 above this log's 5", 300), refusedTree: later })
          expect(yield* store.alarms).toEqual([{ ...alarm(a, "size 20 above this log's 5", 100), witnessSize: 20, refusedTree: later }])
        }))
        if (adapter.durable) {
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(yield* store.alarms).toEqual([{ ...alarm(a, "size 20 above this log's 5", 100), witnessSize: 20, refusedTree: later }])
            yield* store.clearAlarm(a)
            yield* store.raiseAlarm(alarm(a, "422 to a request from size 0", 600))
            expect(yield* store.alarms).toEqual([alarm(a, "422 to a request from size 0", 600)])
          }))
        }
      }))
  })
}
