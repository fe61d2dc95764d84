// inFlightPerSubject (app/inFlightPerSubject.ts): at most `cap` effects of a subject run at
// once, the others start in arrival order as turns free up, other subjects never wait on
// it, an interrupted waiter or holder gives its turn on, and the table forgets a subject
// once nothing of it runs or waits.

import { Deferred, Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { inFlightPerSubject } from "../../src/app/inFlightPerSubject.js"

/** Lets every runnable fiber go as far as it can. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("requests in flight per subject", () => {
  it("runs at most cap of a subject at once, the rest in arrival order, other subjects unhindered", () =>
    Effect.runPromise(Effect.gen(function*() {
      const turns = inFlightPerSubject(2)
      const started: Array<string> = []
      const gates = new Map<string, Deferred.Deferred<void>>()
      const task = (subject: string, name: string) =>
        Effect.gen(function*() {
          const gate = yield* Deferred.make<void>()
          gates.set(name, gate)
          return yield* turns.run(subject)(Effect.zipRight(Effect.sync(() => void started.push(name)), Deferred.await(gate)))
        })
      const fibers = []
      for (const name of ["a1", "a2", "a3", "a4"]) {
        fibers.push(yield* Effect.fork(task("a", name)))
        yield* settle
      }
      fibers.push(yield* Effect.fork(task("b", "b1")))
      yield* settle
      expect(started).toEqual(["a1", "a2", "b1"])
      expect(turns.subjects()).toBe(2)

      yield* Deferred.succeed(gates.get("a2")!, undefined)
      yield* settle
      expect(started).toEqual(["a1", "a2", "b1", "a3"])
      yield* Deferred.succeed(gates.get("a1")!, undefined)
      yield* settle
      expect(started).toEqual(["a1", "a2", "b1", "a3", "a4"])

      for (const name of ["a3", "a4", "b1"]) yield* Deferred.succeed(gates.get(name)!, undefined)
      for (const fiber of fibers) yield* Fiber.join(fiber)
      expect(turns.subjects()).toBe(0)
    })))

  it("an interrupted holder or waiter gives its turn on, and nothing is left behind", () =>
    Effect.runPromise(Effect.gen(function*() {
      const turns = inFlightPerSubject(1)
      const started: Array<string> = []
      const run = (name: string) => turns.run("a")(Effect.zipRight(Effect.sync(() => void started.push(name)), Effect.never))
      const holder = yield* Effect.fork(run("holder"))
      yield* settle
      const waiter = yield* Effect.fork(run("waiter"))
      const last = yield* Effect.fork(run("last"))
      yield* settle
      expect(started).toEqual(["holder"])
      // The waiter leaves the queue before its turn: the holder's turn goes past it.
      yield* Fiber.interrupt(waiter)
      yield* Fiber.interrupt(holder)
      yield* settle
      expect(started).toEqual(["holder", "last"])
      yield* Fiber.interrupt(last)
      expect(turns.subjects()).toBe(0)
    })))

  it("a failure gives the turn back as a success does", () =>
    Effect.runPromise(Effect.gen(function*() {
      const turns = inFlightPerSubject(1)
      const failed = yield* Effect.either(turns.run("a")(Effect.fail("no")))
      expect(failed._tag).toBe("Left")
      expect(yield* turns.run("a")(Effect.succeed(7))).toBe(7)
      expect(turns.subjects()).toBe(0)
    })))
})
