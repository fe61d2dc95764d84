// The sequencer while the log's storage fails (src/app/Sequencer.ts `health`;
// docs/operations.md "/healthz"): memory stores and a coordination that a test takes down,
// as a database outage does (every try for the lease fails, reading the log fails).
//   - health says storage_unavailable with the storage's cause while it fails, and, past
//     the takeover time, that this process has seen no process hold the lease; it says
//     neither once the storage answers again, by itself;
//   - the tries, every second, log one line when they start failing (the cause in one
//     line, no stack trace), a reminder once a minute, and one line when they work again:
//     `sequencing stopped` on the process that sequenced, another line on one that did not;
//   - a batch that cannot be written says storage_unavailable until a batch is written;
//   - a batch whose write does not end (a disk that stalls, a database that stops answering
//     mid-statement) says storage_unavailable once it has gone on past
//     BATCH_WRITE_STALLED_MILLIS, and /healthz (app/ServiceHealth.ts, over this sequencer)
//     DEGRADED, until it ends; from memory, while the append is still blocked.

import { it } from "@effect/vitest"
import { Cause, Context, Deferred, Duration, Effect, Either, Fiber, Layer, Option, Stream } from "effect"
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
import { BATCH_WRITE_STALLED_MILLIS, NO_SEQUENCER_AFTER_MILLIS, Sequencer } from "../../src/app/Sequencer.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { CosignatureCollector } from "../../src/app/CosignatureCollector.js"
import { LogStatus } from "../../src/app/LogStatus.js"
import { Projection } from "../../src/app/Projection.js"
import { ReplayStoreHealth } from "../../src/app/ReplayStoreHealth.js"
import { serviceHealth } from "../../src/app/ServiceHealth.js"
import { StateReader } from "../../src/app/StateReader.js"
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
  /** Set: every try for the lease fails after this long (a database that went silent, far away: its bound is long). */
  triesUnansweredFor: Duration.Duration | undefined
  /** Only the appends fail (a full disk): the lease and the reads go on. */
  appendsFail: boolean
  /** Set: every append waits for it before it writes (a disk that stalls), and counts itself in `appendsWaiting`. */
  appendsWait: Deferred.Deferred<void> | undefined
  appendsWaiting: number
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
    const coordination = Layer.effect(Coordination, Effect.map(Coordination, (inner) => {
      const lease = (heldElsewhere: Effect.Effect<void> = Effect.void) =>
        Effect.suspend(() => {
          database.leaseTries++
          if (database.down) return Effect.fail(failure("lease"))
          const unanswered = database.triesUnansweredFor
          if (unanswered !== undefined) return Effect.zipRight(Effect.sleep(unanswered), Effect.fail(failure("lease")))
          if (database.heldElsewhere) return Effect.zipRight(heldElsewhere, Effect.zipRight(Deferred.await(database.wentDown), Effect.fail(failure("lease"))))
          const wentDown = database.wentDown
          return Effect.map(inner.lease(heldElsewhere), (lease) => ({ ...lease, lost: Effect.race(lease.lost, Deferred.await(wentDown)) }))
        })
      return Coordination.of({
        ...inner,
        lease,
        appended: Stream.repeatEffect(Effect.sleep(Duration.millis(20)))
      })
    })).pipe(Layer.provide(MemoryCoordinationLive()))
    const log = Layer.effect(LogStore, Effect.map(LogStore, (store) => LogStore.of({
      ...store,
      size: Effect.suspend(() => (database.down ? Effect.fail(failure("size")) : store.size)),
      append: (start, leaves, fence) =>
        Effect.suspend(() => {
          if (database.down || database.appendsFail) return Effect.fail(failure("append"))
          const wait = database.appendsWait
          if (wait === undefined) return store.append(start, leaves, fence)
          database.appendsWaiting++
          return Effect.zipRight(Deferred.await(wait), store.append(start, leaves, fence))
        })
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


const newDatabase = Effect.map(Deferred.make<void>(), (wentDown): Database => ({ down: false, heldElsewhere: false, triesUnansweredFor: undefined, appendsFail: false, appendsWait: undefined, appendsWaiting: 0, wentDown, leaseTries: 0 }))
const goDown = (database: Database) => Effect.suspend(() => {
  database.down = true
  return Deferred.succeed(database.wentDown, undefined)
})
const comeBack = (database: Database) => Effect.map(Deferred.make<void>(), (wentDown) => {
  database.wentDown = wentDown
  database.down = false
})

/**
 * /healthz over this sequencer (app/ServiceHealth.ts), every other service it reads well: a
 * log of one published leaf, no witnesses, nothing held.
 */
const healthzOver = (sequencer: Sequencer["Type"]) =>
  serviceHealth.pipe(Effect.provide(Layer.mergeAll(
    Layer.succeed(Sequencer, sequencer),
    Layer.succeed(ReplayStoreHealth, { failure: Effect.succeed(undefined) }),
    Layer.succeed(LogStatus, { current: Effect.succeed({
      size: 1, publishedSize: 1, lagEntries: 0, lagSeconds: 0, mmdSeconds: 1, publishError: undefined, diverged: undefined, tilesStalled: false
    }) } as unknown as LogStatus["Type"]),
    Layer.succeed(BodyLedger, { exhausted: Effect.succeed(false) } as unknown as BodyLedger["Type"]),
    Layer.succeed(StateReader, { resident: Effect.succeed({ governance: { freeze: { frozenIndex: null } } }) } as unknown as StateReader["Type"]),
    Layer.succeed(Projection, { foldError: Effect.succeed(undefined) } as unknown as Projection["Type"]),
    Layer.succeed(CosignatureCollector, { status: Effect.succeed({
      quorum: 0, cosigningLatest: 0, latestSize: 1, belowQuorumSeconds: 0, belowQuorum: false, witnesses: []
    }) } as unknown as CosignatureCollector["Type"])
  )))

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

  // A try the storage leaves unanswered for a while (a database that went silent, far away:
  // its bound is several seconds) is not another process holding the lease. The sequencer
  // used to infer that from a try that had not failed within 2 s, and said for a moment
  // that another process sequences before it said storage_unavailable.
  it.scopedLive("a process whose tries fail only after a while: storage_unavailable, and never that another process sequences", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(NOW)
      const { lines, layer: logged } = logLines()
      const database = yield* newDatabase
      database.triesUnansweredFor = Duration.millis(2_500)
      const sequencer = yield* processOver(database, clock, logged)
      const elsewhere = "another process sequences the log: this one hands it its writes, serves reads, and takes over if it stops"
      yield* untilHolds("storage_unavailable", Effect.map(sequencer.health, (h) => h.storageFailure !== undefined))
      expect((yield* sequencer.health).storageFailure).toBe(`lease: ${CAUSE}`)
      expect(withMessage(lines, elsewhere)).toEqual([])
      // The next try too, past its end (the third begins a second after it failed).
      yield* untilHolds("a third try", Effect.sync(() => database.leaseTries >= 3), 15_000)
      expect(withMessage(lines, elsewhere)).toEqual([])
      const cannotTry = withMessage(lines, "this process cannot try for the sequencing lease")
      expect(cannotTry).toHaveLength(1)
      expect(cannotTry[0]!.annotations["error"]).toBe(`lease: ${CAUSE}`)
      expect((yield* sequencer.health).storageFailure).toBe(`lease: ${CAUSE}`)
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

  it.scopedLive("a batch whose write does not end: storage_unavailable, /healthz DEGRADED, once it has gone on past the bound, and OK once it ends", () =>
    Effect.gen(function*() {
      const clock = makeTestClock(NOW)
      const { lines, layer: logged } = logLines()
      const database = yield* newDatabase
      const sequencer = yield* processOver(database, clock, logged)
      const healthz = yield* healthzOver(sequencer)
      yield* untilHolds("the process sequences", Effect.sync(() => withMessage(lines, "this process sequences the log").length === 1))
      const alice = makeAgent(`alice ${Math.random()}`)
      const release = yield* Deferred.make<void>()
      // Released whatever happens: the batch cannot be interrupted, and the scope waits for it.
      yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
      database.appendsWait = release
      const submitted = yield* Effect.fork(sequencer.submit(nextPost(alice, "stalled").submission))
      yield* untilHolds("the batch's append under way", Effect.sync(() => database.appendsWaiting === 1))

      // Within the bound a write is only taking its time.
      yield* clock.advance(BATCH_WRITE_STALLED_MILLIS)
      expect(yield* healthz).toMatchObject({ status: "OK", reasons: [] })
      // Past it, the batch still unfinished is the storage not answering: said from memory,
      // with when it began, while the append is still blocked.
      yield* clock.advance(2_000)
      const since = new Date(NOW).toISOString()
      expect((yield* sequencer.health).storageFailure).toBe(`the batch writing since ${since} has not finished (7 s)`)
      const stalled = yield* healthz
      expect(stalled.status).toBe("DEGRADED")
      expect(stalled.reasons).toEqual([`storage_unavailable: the batch writing since ${since} has not finished (7 s)`])
      expect(Option.isNone(yield* Fiber.poll(submitted))).toBe(true)

      // The append ends: the write is accepted, and nothing is said any more.
      yield* Deferred.succeed(release, undefined)
      expect((yield* Fiber.join(submitted))._tag).toBe("Accepted")
      expect(yield* healthz).toMatchObject({ status: "OK", reasons: [] })
      expect(yield* sequencer.health).toEqual({ storageFailure: undefined, withoutSequencerSeconds: undefined })
    }), 30_000)
})
