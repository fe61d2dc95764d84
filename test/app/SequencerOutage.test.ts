// The sequencer while the log's storage fails (src/app/Sequencer.ts `health`;
// docs/operations.md "/healthz"): memory stores and a coordination that a test takes down,
// as a database outage does (every try for the lease fails, reading the log fails).
//   - health says storage_unavailable with the storage's cause while it fails, and, past
//     the takeover time, that this process has seen no process hold the lease; it says
//     neither once the storage answers again, by itself;
//   - the tries, every second, log one line when they start failing (the cause in one
//     line, no stack trace), a reminder once a minute, and one line when they work again:
//     `sequencing stopped` on the process that sequenced, another line on one that did not;
//   - a batch that cannot be written says storage_unavailable until a batch is written.

import { it } from "@effect/vitest"
import { Cause, Context, Deferred, Duration, Effect, Either, Layer, Stream } from "effect"
import { describe, expect } from "vitest"
import { makeTestClock, type ManualClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryProjectionStoreLive } from "../../src/adapters/memory/MemoryProjectionStore.js"
import { REMINDER_MILLIS } from "../../src/app/failureLines.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { NO_SEQUENCER_AFTER_MILLIS, Sequencer } from "../../src/app/Sequencer.js"
import { checkSubmission } from "../../src/domain/write/submission.js"
import { Coordination } from "../../src/ports/Coordination.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { StorageError } from "../../src/ports/StorageError.js"
import { envelopeFor, makeAgent, postPayload, writeRequestBody, type TestAgent } from "../support/agents.js"
import { logLines, withMessage } from "../support/logLines.js"
import { untilHolds } from "../support/poll.js"

const ORIGIN = "outage.test/aics"
const NOW = 1_795_000_000_000
const CAUSE = "cannot reach the database at 127.0.0.1:5432/aics: connect ECONNREFUSED 127.0.0.1:5432"

/** The database, as the test sets it: down, or held by another process (every try waits). */
interface Database {
  down: boolean
  heldElsewhere: boolean
  /** Only the appends fail (a full disk): the lease and the reads go on. */
  appendsFail: boolean
  /** Completed when the database goes down: a lease held then is lost, a wait for one fails. */
  wentDown: Deferred.Deferred<void>
  leaseTries: number
}

const failure = (operation: string) => new StorageError({ operation, detail: CAUSE })

/**
 * A process's sequencer over memory stores and a coordination the test takes down: while
 * down, every try for the lease fails at once, a lease held is lost, and reading the log's
 * size (a follower's catch-up) or appending fails. New leaves are announced every 20 ms, as
 * PgCoordination's poll does every second.
 */
const processOver = (database: Database, clock: ManualClock, logged: Layer.Layer<never>) =>
  Effect.gen(function*() {
    const coordination = Layer.effect(Coordination, Effect.map(Coordination, (inner) => Coordination.of({
      ...inner,
      lease: Effect.suspend(() => {
        database.leaseTries++
        if (database.down) return Effect.fail(failure("lease"))
        if (database.heldElsewhere) return Effect.zipRight(Deferred.await(database.wentDown), Effect.fail(failure("lease")))
        const wentDown = database.wentDown
        return Effect.map(inner.lease, (lease) => ({ ...lease, lost: Effect.race(lease.lost, Deferred.await(wentDown)) }))
      }),
      appended: Stream.repeatEffect(Effect.sleep(Duration.millis(20)))
    }))).pipe(Layer.provide(MemoryCoordinationLive()))
    const log = Layer.effect(LogStore, Effect.map(LogStore, (store) => LogStore.of({
      ...store,
      size: Effect.suspend(() => (database.down ? Effect.fail(failure("size")) : store.size)),
      append: (start, leaves, fence) =>
        Effect.suspend(() => (database.down || database.appendsFail ? Effect.fail(failure("append")) : store.append(start, leaves, fence)))
    }))).pipe(Layer.provide(MemoryLogStoreLive))
    const layer = Sequencer.layer.pipe(
      Layer.provideMerge(LogWriter.layer),
      Layer.provideMerge(Layer.mergeAll(LogHealth.layer, NodeRole.layer, coordination, MemoryProjectionStoreLive, MemoryBodyStoreLive, log)),
      Layer.provideMerge(Layer.mergeAll(NodeCryptoLive, clock.layer))
    )
    // The logger is the building fiber's, which the sequencer's fibers inherit.
    const context = yield* Layer.build(layer).pipe(Effect.provide(logged))
    return Context.get(context, Sequencer)
  })


/** Until the lease has been tried `more` more times: each failed try is followed by a second's pause. */
const triesMore = (database: Database, more: number) =>
  Effect.suspend(() => {
    const target = database.leaseTries + more
    return untilHolds(`${more} more tries for the lease`, Effect.sync(() => database.leaseTries >= target))
  })


const newDatabase = Effect.map(Deferred.make<void>(), (wentDown): Database => ({ down: false, heldElsewhere: false, appendsFail: false, wentDown, leaseTries: 0 }))
const goDown = (database: Database) => Effect.suspend(() => {
  database.down = true
  return Deferred.succeed(database.wentDown, undefined)
})
const comeBack = (database: Database) => Effect.map(Deferred.make<void>(), (wentDown) => {
  database.wentDown = wentDown
  database.down = false
})

/** The agent's next post; its chain is left as it was (the tests' posts are refused but the last). */
const nextPost = (agent: TestAgent, text: string) => {
  const { payload, body } = postPayload(text)
  const envelope = envelopeFor(agent, ORIGIN, "post", payload)
  const submission = Either.getOrThrow(checkSubmission(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, {
    origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519
  }))
  return { submission }
}

describe("the sequencer while the log's storage fails", () => {
  it.scopedLive("a sequencing process: storage_unavailable and no_sequencer while it lasts, one line, a reminder a minute, then well again", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(NOW)
      const { lines, layer: logged } = logLines()
      const database = yield* newDatabase
      const sequencer = yield* processOver(database, clock, logged)
      yield* untilHolds("the process sequences", Effect.sync(() => withMessage(lines, "this process sequences the log").length === 1))
      expect(yield* sequencer.health).toEqual({ storageFailure: undefined, withoutSequencerSeconds: undefined })

      yield* goDown(database)
      yield* untilHolds("storage_unavailable", Effect.map(sequencer.health, (h) => h.storageFailure !== undefined))
      // The try for the lease, or the read of new leaves: whichever failed last.
      expect((yield* sequencer.health).storageFailure).toMatch(new RegExp(`^(lease|size): ${CAUSE}$`))
      // Within the takeover time a missing sequencer is not reported; past it, it is.
      expect((yield* sequencer.health).withoutSequencerSeconds).toBeUndefined()
      yield* clock.advance(NO_SEQUENCER_AFTER_MILLIS + 2_000)
      expect((yield* sequencer.health).withoutSequencerSeconds).toBe((NO_SEQUENCER_AFTER_MILLIS + 2_000) / 1000)

      // A try every second, one line: the cause in one line, no stack trace.
      yield* triesMore(database, 3)
      const stopped = withMessage(lines, "sequencing stopped")
      expect(stopped).toHaveLength(1)
      expect(stopped[0]!.level).toBe("ERROR")
      expect(stopped[0]!.annotations["error"]).toBe(`lease: ${CAUSE}`)
      expect(Cause.isEmpty(stopped[0]!.cause)).toBe(true)
      expect(withMessage(lines, "this process cannot try for the sequencing lease")).toEqual([])

      // A minute on, one reminder, saying for how long.
      yield* clock.advance(REMINDER_MILLIS)
      yield* triesMore(database, 2)
      const reminded = withMessage(lines, "sequencing stopped")
      expect(reminded).toHaveLength(2)
      expect(reminded[1]!.annotations["failing_seconds"]).toBe((NO_SEQUENCER_AFTER_MILLIS + 2_000 + REMINDER_MILLIS) / 1000)
      expect(Cause.isEmpty(reminded[1]!.cause)).toBe(true)

      // The storage answers again: the process sequences, and its health says nothing is wrong.
      yield* comeBack(database)
      yield* untilHolds("sequencing again", Effect.sync(() => withMessage(lines, "this process sequences the log").length === 2))
      expect(yield* sequencer.health).toEqual({ storageFailure: undefined, withoutSequencerSeconds: undefined })
      expect(withMessage(lines, "sequencing stopped")).toHaveLength(2)
    }), 30_000)

  it.scopedLive("a process that does not sequence: its tries and its reads of new leaves say so once each, and stop when the storage answers", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(NOW)
      const { lines, layer: logged } = logLines()
      const database = yield* newDatabase
      database.heldElsewhere = true
      const sequencer = yield* processOver(database, clock, logged)
      const elsewhere = "another process sequences the log: this one hands it its writes, serves reads, and takes over if it stops"
      yield* untilHolds("seeing the other sequencer", Effect.sync(() => withMessage(lines, elsewhere).length === 1))
      yield* clock.advance(NO_SEQUENCER_AFTER_MILLIS * 10)
      expect(yield* sequencer.health).toEqual({ storageFailure: undefined, withoutSequencerSeconds: undefined })

      yield* goDown(database)
      yield* triesMore(database, 3)
      const health = yield* sequencer.health
      expect(health.storageFailure).toMatch(new RegExp(`^(lease|size): ${CAUSE}$`))
      expect(health.withoutSequencerSeconds).toBeUndefined()
      yield* clock.advance(NO_SEQUENCER_AFTER_MILLIS + 1_000)
      expect((yield* sequencer.health).withoutSequencerSeconds).toBe(NO_SEQUENCER_AFTER_MILLIS / 1000 + 1)
      // Not "sequencing stopped": it did not sequence.
      expect(withMessage(lines, "sequencing stopped")).toEqual([])
      const cannotTry = withMessage(lines, "this process cannot try for the sequencing lease")
      expect(cannotTry).toHaveLength(1)
      expect(cannotTry[0]!.annotations["error"]).toBe(`lease: ${CAUSE}`)
      const readsFailed = withMessage(lines, "reading new leaves failed")
      expect(readsFailed).toHaveLength(1)
      expect(readsFailed[0]!.level).toBe("WARN")
      expect(readsFailed[0]!.annotations["error"]).toBe(`size: ${CAUSE}`)
      expect(Cause.isEmpty(readsFailed[0]!.cause)).toBe(true)

      yield* comeBack(database)
      yield* untilHolds("seeing the other sequencer again", Effect.sync(() => withMessage(lines, elsewhere).length === 2))
      yield* untilHolds("reading new leaves again", Effect.sync(() => withMessage(lines, "reading new leaves works again").length === 1))
      expect(yield* sequencer.health).toEqual({ storageFailure: undefined, withoutSequencerSeconds: undefined })
      expect(withMessage(lines, "this process cannot try for the sequencing lease")).toHaveLength(1)
      expect(withMessage(lines, "reading new leaves failed")).toHaveLength(1)
    }), 30_000)

  it.scopedLive("a batch that cannot be written: storage_unavailable until a batch is, one line however many fail", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(NOW)
      const { lines, layer: logged } = logLines()
      const database = yield* newDatabase
      const sequencer = yield* processOver(database, clock, logged)
      yield* untilHolds("the process sequences", Effect.sync(() => withMessage(lines, "this process sequences the log").length === 1))
      const alice = makeAgent(`alice ${Math.random()}`)
      database.appendsFail = true
      const refusedCodes: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const outcome = yield* sequencer.submit(nextPost(alice, `refused ${i}`).submission)
        refusedCodes.push(outcome._tag === "Refused" ? outcome.refusal.code : "accepted")
        // A failed batch ends the leadership, which is taken again at once.
        yield* untilHolds("sequencing again", Effect.sync(() => withMessage(lines, "this process sequences the log").length === i + 2))
      }
      database.appendsFail = false
      expect(refusedCodes).toEqual(["log_unavailable", "log_unavailable", "log_unavailable"])
      expect((yield* sequencer.health).storageFailure).toBe(`append: ${CAUSE}`)
      const failed = withMessage(lines, "a batch could not be made durable")
      expect(failed).toHaveLength(1)
      expect(failed[0]!.annotations["error"]).toBe(`append: ${CAUSE}`)
      expect(Cause.isEmpty(failed[0]!.cause)).toBe(true)

      expect((yield* sequencer.submit(nextPost(alice, "written").submission))._tag).toBe("Accepted")
      expect(yield* sequencer.health).toEqual({ storageFailure: undefined, withoutSequencerSeconds: undefined })
      expect(withMessage(lines, "batches are made durable again")).toHaveLength(1)
    }), 30_000)
})
