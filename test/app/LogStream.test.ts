// LogStream's follower (src/app/LogStream.ts): it reads new leaves into the ring only while a
// stream is open, so a node nobody watches pays no read a leaf; a stream opened later still
// gets every leaf it asks for, from the store before the ring and from memory after.

import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, SubscriptionRef, TestClock } from "effect"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogStream } from "../../src/app/LogStream.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { Publisher } from "../../src/app/Publisher.js"
import { utf8 } from "../../src/domain/bytes.js"
import { LogStore } from "../../src/ports/LogStore.js"

const unused = Effect.dieMessage("not used by LogStream")

/** A log whose store counts the leaves read from it; `awaitCoverage` as the publisher's (never by default). */
const setup = (
  awaitCoverage: Publisher["Type"]["awaitCoverage"] = () => Effect.as(Effect.never, Option.none()),
  diverged: string | undefined = undefined
) => Effect.gen(function*() {
  const size = yield* SubscriptionRef.make(0)
  const reads: Array<[number, number]> = []
  const store = LogStore.of({
    size: SubscriptionRef.get(size),
    readEntries: (from: number, to: number) =>
      Effect.sync(() => {
        reads.push([from, to])
        return Array.from({ length: to - from }, (_, i) => utf8(JSON.stringify({ index: from + i })))
      }),
    append: () => unused,
    readHashes: () => unused,
    readEntryAndHashes: () => unused,
    readHashRange: () => unused
  } as unknown as LogStore["Type"])
  const writer = { size } as unknown as LogWriter["Type"]
  const publisher = { awaitCoverage } as unknown as Publisher["Type"]
  const context = yield* Layer.build(LogStream.layer.pipe(
    Layer.provide(Layer.mergeAll(Layer.succeed(LogStore, store), Layer.succeed(LogWriter, writer), Layer.succeed(Publisher, publisher),
      Layer.succeed(LogHealth, { diverged: Effect.succeed(diverged) } as unknown as LogHealth["Type"])))
  ))
  const stream = context.unsafeMap.get(LogStream.key) as LogStream["Type"]
  /** Lets the follower run until the stream's live end is `n` (bounded, so a bug fails rather than hangs). */
  const headReaches = (n: number) =>
    Effect.gen(function*() {
      for (let i = 0; i < 1_000 && (yield* stream.head) !== n; i++) yield* Effect.yieldNow()
      expect(yield* stream.head).toBe(n)
    })
  const leavesRead = () => reads.reduce((sum, [from, to]) => sum + to - from, 0)
  return { size, stream, headReaches, leavesRead, reads }
})

describe("LogStream", () => {
  it.scoped("reads no leaf while no stream is open, and every later leaf once while one is", () =>
    Effect.gen(function*() {
      const { size, stream, headReaches, leavesRead, reads } = yield* setup()
      yield* SubscriptionRef.set(size, 300)
      yield* headReaches(300)
      expect(leavesRead()).toBe(0)

      // A stream opens and resumes from leaf 100: what is before the ring comes from the
      // store, what the log gains from memory, each new leaf read once.
      const events = yield* stream.watching(Effect.gen(function*() {
        yield* SubscriptionRef.set(size, 700)
        yield* headReaches(700)
        expect(leavesRead()).toBe(400)
        const fromRing = yield* stream.page(300, 400)
        expect(fromRing.map((e) => e.index)).toEqual(Array.from({ length: 400 }, (_, i) => 300 + i))
        expect(leavesRead()).toBe(400)
        return yield* stream.page(100)
      }))
      expect(events.map((e) => e.index)).toEqual(Array.from({ length: 64 }, (_, i) => 100 + i))
      expect(reads.at(-1)).toEqual([100, 164])

      // Closed again: the log grows and nothing is read.
      const before = leavesRead()
      yield* SubscriptionRef.set(size, 1_000)
      yield* headReaches(1_000)
      expect(leavesRead()).toBe(before)
    }))

  it.scoped("rests when the publisher has nothing newer at once (a diverged log), rather than spin", () =>
    Effect.gen(function*() {
      let asked = 0
      yield* setup(() => Effect.sync(() => void asked++).pipe(Effect.as(Option.none())), "the log diverged")
      for (let i = 0; i < 1_000; i++) yield* Effect.yieldNow()
      // The test clock stands still: one ask, then the pause.
      expect(asked).toBe(1)
      yield* TestClock.adjust("1 second")
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow()
      expect(asked).toBe(2)
    }))

  it.scoped("looks again at once after a quiet wait ends with nothing", () =>
    Effect.gen(function*() {
      let asked = 0
      yield* setup(() => Effect.sync(() => void asked++).pipe(Effect.zipRight(Effect.sleep("30 seconds")), Effect.as(Option.none())))
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow()
      expect(asked).toBe(1)
      yield* TestClock.adjust("30 seconds")
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow()
      expect(asked).toBe(2)
    }))
})
