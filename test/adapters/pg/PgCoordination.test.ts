// PgCoordination: the Coordination contract on PostgreSQL, and the relay of a holder
// deposed without noticing (src/ports/Coordination.ts, the fenced relay): its lease session
// ended by the server while its process lives on and still calls the relay with its fence.

import { it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import { describe, expect } from "vitest"
import { PgCoordinationLive } from "../../../src/adapters/pg/PgCoordination.js"
import { PgDatabaseLive } from "../../../src/adapters/pg/PgStorage.js"
import { type ClaimedSubmission, Coordination, type RelayedOutcome } from "../../../src/ports/Coordination.js"
import { coordinationContract } from "../../ports/Coordination.contract.js"
import { testDatabase } from "../../support/pg.js"
import { sessionOn, terminateLeaseSession } from "../../support/pgSessions.js"
import { coordinationOn } from "./open.js"

const db = testDatabase()

// Each build opens its own pools on the schema: a process of the deployment.
coordinationContract("PgCoordination", {
  fresh: (unclaimedTimeout) =>
    Effect.map(db.freshSchema, (url) =>
      PgCoordinationLive(url, { unclaimedTimeout }).pipe(Layer.provide(PgDatabaseLive(url, { maxConnections: db.maxConnections })))),
  severalProcesses: db.multiSession
})

const accepted: RelayedOutcome = { _tag: "Accepted", index: 0, logged: 1_700_000_000_000, leafHash: new Uint8Array(32).fill(1) }
const refused: RelayedOutcome = { _tag: "Refused", code: "seq_mismatch", detail: "decided twice", at: 1_700_000_000_001 }

/** Claims again until one submission is taken (the relay races with the claim). */
const claimedOne = <E>(claim: Effect.Effect<ReadonlyArray<ClaimedSubmission>, E>) =>
  Effect.repeat(
    Effect.tap(claim, (taken) => (taken.length === 1 ? Effect.void : Effect.sleep(Duration.millis(20)))),
    { until: (taken) => taken.length === 1 }
  )

describe("PgCoordination with a holder deposed without noticing", () => {
  it.scopedLive.runIf(db.multiSession)("neither hands back nor answers what the new holder took over, nor claims anew", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)
      const [a, b] = yield* Effect.forEach([0, 1], () => Effect.map(Layer.build(coordinationOn(db, url)), (ctx) => Context.get(ctx, Coordination)))
      const row = (id: string) =>
        Effect.map(admin<{ claimed_at: string | null; claimed_epoch: string | null; outcome: unknown }>`SELECT claimed_at, claimed_epoch, outcome
          FROM aics_relay WHERE id = ${id}`, (rows) => rows.map((r) => [r.claimed_at === null ? null : Number(r.claimed_at), r.claimed_epoch === null ? null : Number(r.claimed_epoch), r.outcome]))

      // A holds the lease and claims a submission B's process relayed; then A's lease
      // session ends and B takes the lease, while A lives on.
      const { fence: fenceOfA } = yield* a.lease
      const relayed = yield* Effect.fork(b.relay({ envelopeJcs: `{"n":1}`, body: null }))
      const claimed = yield* a.claim(1, 5, fenceOfA).pipe(claimedOne)
      yield* terminateLeaseSession(admin)
      const { fence: fenceOfB } = yield* b.lease
      const id = claimed[0]!.id
      expect((yield* b.orphans(fenceOfB)).map((o) => o.id)).toEqual([id])

      // A hands its claim back and answers it: B's claim stays B's, claimed and unanswered.
      yield* a.release([id], fenceOfA)
      yield* a.answer([{ id, outcome: refused }], fenceOfA)
      expect(yield* row(id)).toEqual([[5, fenceOfB.epoch, null]])

      // The same once B released it and claimed it again.
      yield* b.release([id], fenceOfB)
      expect(yield* row(id)).toEqual([[null, null, null]])
      expect((yield* b.claim(1, 6, fenceOfB)).map((c) => c.id)).toEqual([id])
      yield* a.release([id], fenceOfA)
      expect(yield* row(id)).toEqual([[6, fenceOfB.epoch, null]])

      // A claims nothing any more, even with a submission waiting.
      const waiting = yield* Effect.fork(b.relay({ envelopeJcs: `{"n":2}`, body: null }))
      yield* Effect.sleep(Duration.millis(100))
      expect(yield* a.claim(10, 6, fenceOfA)).toEqual([])
      expect(yield* a.orphans(fenceOfA)).toEqual([])
      const [next] = yield* b.claim(10, 6, fenceOfB).pipe(claimedOne)

      // B's answers are the ones its relaying process reads.
      yield* b.answer([{ id, outcome: accepted }, { id: next!.id, outcome: refused }], fenceOfB)
      const answer = yield* Fiber.join(relayed)
      expect(answer._tag === "Accepted" && answer.index).toBe(0)
      expect(yield* Fiber.join(waiting)).toEqual(refused)
    }))
})
