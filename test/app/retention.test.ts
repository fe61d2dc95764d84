// Retention with a controlled clock (service.md "Body status", docs/protocol.md section 9):
// a DM's ciphertext is available until retention_days after it was logged, expired (410,
// policy_index 0) from exactly that millisecond, and its bytes are then deleted from the
// body store; the leaf stays. Runs the app's own services on in-memory adapters.

import { Effect, Layer, SubscriptionRef } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { Bodies } from "../../src/app/Bodies.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { Charter } from "../../src/app/Charter.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { Sequencer } from "../../src/app/Sequencer.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { BodyStore } from "../../src/ports/BodyStore.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { ciphertext, claimPayload, dmPayload, makeAgent, ORIGIN, PureLog } from "../support/identityAgents.js"

const RETENTION_DAYS = 90

const settings: ServiceSettings = {
  dataDir: "/nonexistent", host: "127.0.0.1", port: 0, domain: "identity.test", origin: ORIGIN,
  mmdSeconds: 1, tileCheckSeconds: 30, publicUrl: "http://127.0.0.1:0", tileMirrors: [],
  authorities: ["127.0.0.1:0"], databaseUrl: undefined, databasePool: 1, checkWorkers: 0, ciphertextBudgetBytes: 1 << 30, ownerKid: undefined,
  noticePeriodSeconds: 0, contributions: { networks: [], ledger: "/nonexistent", intentSeconds: 3600, claimSeconds: 0, allowHttp: false }
}

describe("ciphertext retention", () => {
  it("keeps a DM's ciphertext until the boundary, expires it exactly there, then deletes the bytes", async () => {
    // A log with a charter (retention 90 days), two names, a grant and one DM.
    const log = new PureLog({ retentionDays: RETENTION_DAYS })
    const alice = makeAgent("retention alice")
    const bob = makeAgent("retention bob")
    log.accept(alice, "claim", claimPayload("alice", alice))
    const bobClaim = log.accept(bob, "claim", claimPayload("bobby", bob))
    const grant = log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
    const ct = ciphertext("for bob")
    const dm = dmPayload(bob.kid, grant, bobClaim, ct)
    const dmIndex = log.accept(alice, "dm", dm.payload, dm.body)
    const digest = nodeCrypto.sha256(ct)
    const logged = log.now
    const boundary = logged + RETENTION_DAYS * DAY_MS

    const clock = makeTestClock(logged)
    const base = Layer.mergeAll(
      MemoryLogStoreLive, MemoryBodyStoreLive, LogHealth.layer, NodeRole.layer, MemoryCoordinationLive(), clock.layer, ServiceConfig.layer(settings)
    )
      .pipe(Layer.provideMerge(NodeCryptoLive))
    const charter = Layer.succeed(Charter, {
      envelope: undefined as never,
      terms: {
        origin: ORIGIN, instanceDomain: "identity.test", logVkey: "", policyKid: log.policy.kid, ownerKid: "",
        noticePeriodSeconds: 0, retentionDays: RETENTION_DAYS, mmdSeconds: 1
      },
      document: new Uint8Array(0),
      documentHash: new Uint8Array(32)
    })
    // The leaves go in first; then the services that fold and follow the log start.
    const seeded = Layer.effectDiscard(Effect.gen(function*() {
      const writer = yield* LogWriter
      yield* (yield* BodyStore).put([{ digest, bytes: ct }])
      yield* writer.append(yield* SubscriptionRef.get(writer.size), log.leaves)
    }))
    const app = Bodies.layer.pipe(
      Layer.provideMerge(BodyLedger.layer),
      Layer.provideMerge(Sequencer.layer),
      Layer.provideMerge(charter),
      Layer.provide(seeded),
      Layer.provideMerge(LogWriter.layer),
      Layer.provideMerge(base)
    )

    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const bodies = yield* Bodies
      const ledger = yield* BodyLedger
      const store = yield* BodyStore
      expect(yield* (yield* LogStore).size).toBe(log.leaves.length)

      // One millisecond before the boundary: available, and retention deletes nothing.
      yield* clock.set(boundary - 1)
      expect((yield* bodies.ofDigest(digest)).state).toBe("available")
      expect(yield* ledger.expireNow).toBe(0)
      expect((yield* store.get(digest))._tag).toBe("Some")

      // At the boundary: expired with the charter as its policy, whatever the store holds.
      yield* clock.set(boundary)
      const atBoundary = yield* bodies.ofDigest(digest)
      expect(atBoundary).toEqual({ state: "gone", status: { state: "expired", tombstone_index: null, reason_code: null, policy_index: 0 } })
      expect(yield* bodies.ofEntry({ index: dmIndex, type: "dm", logged }, digest)).toEqual(atBoundary)
      expect(yield* ledger.liveBytes).toBe(ct.length)

      // Retention deletes the bytes; the leaf stays and still names them.
      expect(yield* ledger.expireNow).toBe(1)
      expect((yield* store.get(digest))._tag).toBe("None")
      expect(yield* ledger.liveBytes).toBe(0)
      expect((yield* (yield* LogStore).readEntries(dmIndex, dmIndex + 1)).length).toBe(1)
      expect((yield* bodies.ofDigest(digest)).state).toBe("gone")
    }).pipe(Effect.provide(app))))
  })
})
