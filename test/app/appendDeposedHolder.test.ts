// The append of a sequencer deposed without noticing, end to end through the app's services
// on PostgreSQL (docs/operations.md, "The log's appends"): node A sequences and is held
// right before it appends a batch (its bodies already put, the batch decided); A's lease
// session is ended by the server (pg_terminate_backend) while A lives on; node B takes the
// lease, raising the epoch, with nothing of its own appended yet, so the head row alone
// would let A's batch in. Then A's append runs. Fenced by A's lease, it appends nothing;
// A stops sequencing and hands the submission on to B, which decides and appends it, and
// A's client is answered with B's outcome: the entry is in the log once, at the position A
// would have taken.
//
// Each step waits on a fact (A reached its append, B sequences), so the order is exact.
// Two nodes need several sessions: the real server only (test/support/pg.ts).

import { it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { describe, expect } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { PgLogStoreLive } from "../../src/adapters/pg/PgLogStore.js"
import { fromUtf8 } from "../../src/domain/bytes.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { bodyServices, RETENTION_DAYS, seedStores, sequencing, writeThrough } from "../support/bodyServices.js"
import { capsulePayload, ciphertext, makeAgent, PureLog } from "../support/identityAgents.js"
import { testDatabase } from "../support/pg.js"
import { pgNodeStores } from "../support/pgNode.js"
import { sessionOn, terminateLeaseSession } from "../support/pgSessions.js"

const db = testDatabase()

/** A LogStore whose first append waits, once it is reached, until the test lets it go; answers how it ended. */
const appendHeldAt = (reached: Deferred.Deferred<void>, release: Deferred.Deferred<void>, ended: Deferred.Deferred<Exit.Exit<void, unknown>>) =>
  Layer.effect(LogStore, Effect.map(LogStore, (store) => LogStore.of({
    ...store,
    append: (start, leaves, fence) =>
      Effect.gen(function*() {
        if (yield* Deferred.isDone(ended)) return yield* store.append(start, leaves, fence)
        yield* Deferred.succeed(reached, undefined)
        yield* Deferred.await(release)
        const exit = yield* Effect.exit(store.append(start, leaves, fence))
        yield* Deferred.succeed(ended, exit)
        return yield* exit
      })
  }))).pipe(Layer.provide(PgLogStoreLive))

describe("the log's append on PostgreSQL when the sequencer is deposed without noticing", () => {
  it.scopedLive.runIf(db.multiSession)("appends nothing once another node holds the lease, and the successor logs the entry", () =>
    Effect.gen(function*() {
      const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "deposed appender" })
      const mallory = makeAgent("deposed appender mallory")
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)

      // The log is seeded through B's stores: A's first append is the one the test holds.
      const storesOfB = yield* Layer.build(pgNodeStores(db, url, makeTestClock(log.now)))
      yield* Effect.provide(seedStores(log, []), storesOfB)
      const seeded = yield* Context.get(storesOfB, LogStore).size
      // Node A sequences the seeded log; then node B starts and waits for the lease.
      const [reached, release] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
      const ended = yield* Deferred.make<Exit.Exit<void, unknown>>()
      const storesOfA = yield* Layer.build(pgNodeStores(db, url, makeTestClock(log.now), { log: appendHeldAt(reached, release, ended) }))
      const a = yield* Layer.build(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(storesOfA))))
      yield* Effect.provide(sequencing, a)
      const b = yield* Layer.build(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(storesOfB))))

      // A decides a capsule and stops right before its append.
      const capsule = capsulePayload("deposed appender slot", ciphertext("bytes of a capsule A decided"))
      const writing = yield* Effect.fork(writeThrough(a, mallory, "capsule", capsule.payload, capsule.body))
      yield* Deferred.await(reached)

      // The server ends A's lease session; B takes the lease and raises the epoch.
      yield* terminateLeaseSession(admin)
      yield* Effect.provide(sequencing, b)
      expect(yield* Context.get(storesOfB, LogStore).size).toBe(seeded)

      // A's append, at the right position but under its old lease's fence, appends nothing.
      yield* Deferred.succeed(release, undefined)
      const appendOfA = yield* Deferred.await(ended)
      expect(Exit.isFailure(appendOfA) && appendOfA.cause._tag === "Fail" && appendOfA.cause.error).toMatchObject({ _tag: "LeaseSuperseded" })

      // The submission is not lost: A hands it to B, which logs it once; A answers accepted.
      yield* Fiber.join(writing)
      const logged = yield* Context.get(storesOfB, LogStore).readEntries(seeded, yield* Context.get(storesOfB, LogStore).size)
      expect(logged.map((leaf) => (JSON.parse(fromUtf8(leaf)) as { envelope: { kid: string; type: string } }).envelope))
        .toMatchObject([{ kid: mallory.kid, type: "capsule" }])
    }))
})
