// The window a deposed sequencer used to leave, end to end through the app's services on
// PostgreSQL (docs/operations.md, "Retention"): node A sequences and its retention is due to
// delete an expired capsule's bytes D; A is held right before its remove; A's lease session
// is ended by the server (pg_terminate_backend) while A lives on; node B takes the lease and
// commits a leaf naming exactly D, whose put stores nothing since D is still there; then
// A's remove runs. Fenced by A's lease, it deletes nothing, and B's leaf keeps its body.
//
// Each step waits on a fact (A reached its remove, B sequences, B's write committed), so the
// order is exact. The nodes have clocks of their own: A's is past D's expiry, B's is not, so
// only A's retention wants D gone (B deleting D itself and storing it again would hide the
// window). Two nodes need several sessions: the real server only (test/support/pg.ts).

import { it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { describe, expect } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { PgBodyStoreLive } from "../../src/adapters/pg/PgBodyStore.js"
import { Bodies } from "../../src/app/Bodies.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { BodyStore } from "../../src/ports/BodyStore.js"
import { Coordination } from "../../src/ports/Coordination.js"
import { bodyServices, held, RETENTION_DAYS, seedStores, sequencing, storedBody, writeThrough } from "../support/bodyServices.js"
import { capsulePayload, ciphertext, claimPayload, makeAgent, PureLog } from "../support/identityAgents.js"
import { testDatabase } from "../support/pg.js"
import { pgNodeStores } from "../support/pgNode.js"
import { sessionOn, terminateLeaseSession } from "../support/pgSessions.js"

const db = testDatabase()

/** A BodyStore whose first remove waits, once it is reached, until the test lets it go. */
const removeHeldAt = (reached: Deferred.Deferred<void>, release: Deferred.Deferred<void>) =>
  Layer.effect(BodyStore, Effect.map(BodyStore, (store) => BodyStore.of({
    ...store,
    remove: (digests, fence) =>
      Effect.zipRight(Effect.zipRight(Deferred.succeed(reached, undefined), Deferred.await(release)), store.remove(digests, fence))
  }))).pipe(Layer.provide(PgBodyStoreLive))

/**
 * A's coordination, which grants A no lease once it lost one: deposed, a live node contends
 * for the lease again, and A could take it back before B does (B would then never sequence,
 * and the window this test opens would stay shut; it failed so about one run in six).
 */
const noLeaseAfterALoss = (coordination: typeof Coordination.Service): typeof Coordination.Service => {
  let lost = false
  return Coordination.of({
    ...coordination,
    lease: (heldElsewhere) => Effect.suspend(() =>
      lost ? Effect.never : Effect.tap(coordination.lease(heldElsewhere), (lease) => Effect.forkDaemon(Effect.zipRight(lease.lost, Effect.sync(() => void (lost = true))))))
  })
}

describe("retention on PostgreSQL when the sequencer is deposed without noticing", () => {
  it.scopedLive.runIf(db.multiSession)("deletes nothing once another node holds the lease, so the new leaf keeps its body", () =>
    Effect.gen(function*() {
      const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "deposed holder" })
      const [mallory, alice] = [makeAgent("deposed holder mallory"), makeAgent("deposed holder alice")]
      const expiring = capsulePayload("expiring", ciphertext("bytes that outlive their first capsule"))
      log.accept(mallory, "capsule", expiring.payload, expiring.body)
      log.accept(alice, "claim", claimPayload("alice", alice))
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)
      const [clockOfA, clockOfB] = [makeTestClock(log.now), makeTestClock(log.now)]

      // Node A, whose first remove the test holds, sequences the seeded log.
      const [reached, release] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
      const builtA = yield* Layer.build(pgNodeStores(db, url, clockOfA, { bodies: removeHeldAt(reached, release) }))
      const storesOfA = Context.add(builtA, Coordination, noLeaseAfterALoss(Context.get(builtA, Coordination)))
      yield* Effect.provide(seedStores(log, [storedBody(expiring.body)]), storesOfA)
      // A is stopped first at the end: were B stopped first, A would take the lease back
      // while the test's scope closes around it.
      const scopeOfA = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(scopeOfA, Exit.void))
      const a = yield* Layer.buildWithScope(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(storesOfA))), scopeOfA)
      yield* Effect.provide(sequencing, a)
      // Node B waits for the lease.
      const storesOfB = yield* Layer.build(pgNodeStores(db, url, clockOfB))
      const b = yield* Layer.build(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(storesOfB))))

      // The capsule expires on A's clock: A's retention passes its checks and stops at its remove.
      yield* clockOfA.set(log.now + RETENTION_DAYS * DAY_MS)
      const retention = yield* Effect.fork(Context.get(a, BodyLedger).reclaimNow)
      yield* Deferred.await(reached)

      // The server ends A's lease session; B takes the lease and names the same bytes again.
      yield* terminateLeaseSession(admin)
      yield* Effect.provide(sequencing, b)
      yield* clockOfB.set(log.now + DAY_MS)
      yield* writeThrough(b, mallory, "capsule", expiring.payload, expiring.body, clockOfB)
      expect(yield* held(storesOfB, expiring.body)).toEqual([true])

      // A's remove, under its old lease's fence, deletes nothing.
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(retention)).toBe(0)
      expect(yield* held(storesOfB, expiring.body)).toEqual([true])
      const digest = nodeCrypto.sha256(expiring.body)
      expect((yield* Context.get(b, Bodies).ofDigest(digest)).state).toBe("available")
      yield* Scope.close(scopeOfA, Exit.void)
    }))
})
