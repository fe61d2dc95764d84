// The app's body services (Bodies, BodyLedger and the Sequencer, LogWriter and projection
// they rest on) over in-memory stores and a clock the test moves, for tests of retention and body
// status. The stores, the coordination, the clock and the configuration are what several
// processes of one deployment share (docs/protocol.md section 14), the projection store
// included (as PostgreSQL nodes share its tables: retention's cursor is kept there); each
// process has its own writer, role, sequencer, projection service and ledger, so a test can
// run one or several over the same stores.

import { Context, Effect, Either, Layer, Option, Stream, SubscriptionRef } from "effect"
import { expect } from "vitest"
import type { ManualClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryProjectionStoreLive } from "../../src/adapters/memory/MemoryProjectionStore.js"
import { Bodies } from "../../src/app/Bodies.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { Charter } from "../../src/app/Charter.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { Projection } from "../../src/app/Projection.js"
import { Sequencer } from "../../src/app/Sequencer.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { StateReader } from "../../src/app/StateReader.js"
import { checkSubmission } from "../../src/domain/write/submission.js"
import { BodyStore, type StoredBody } from "../../src/ports/BodyStore.js"
import { Coordination } from "../../src/ports/Coordination.js"
import type { LeaseFence } from "../../src/ports/LeaseFence.js"
import { accepted, envelopeFor, writeRequestBody, type TestAgent } from "./agents.js"
import { ORIGIN, type PureLog } from "./identityAgents.js"

export const RETENTION_DAYS = 90

const settings: ServiceSettings = {
  dataDir: "/nonexistent", host: "127.0.0.1", port: 0, domain: "identity.test", origin: ORIGIN,
  mmdSeconds: 1, tileCheckSeconds: 30, publicUrl: "http://127.0.0.1:0", tileMirrors: [],
  authorities: ["127.0.0.1:0"], databaseUrl: undefined, databasePool: 1, checkWorkers: 0, ciphertextBudgetBytes: 1 << 30, ownerKid: undefined,
  noticePeriodSeconds: 0, contributions: { networks: [], evm: [], ledger: "/nonexistent", intentSeconds: 3600, claimSeconds: 0, allowHttp: false }
}

export const storedBody = (bytes: Uint8Array): StoredBody => ({ digest: nodeCrypto.sha256(bytes), bytes })

/** What a process needs besides its stores: the clock, the configuration and crypto. */
export const processBasics = (clock: ManualClock) =>
  Layer.merge(clock.layer, ServiceConfig.layer(settings)).pipe(Layer.provideMerge(NodeCryptoLive))

/** What the processes share: empty stores, one coordination, the clock and the configuration. */
export const sharedStores = (clock: ManualClock) =>
  Layer.mergeAll(MemoryLogStoreLive, MemoryBodyStoreLive, MemoryCoordinationLive(), MemoryProjectionStoreLive).pipe(Layer.provideMerge(processBasics(clock)))

/** Stores `bodies` and appends the log's leaves under the lease of `fence` (a writer of its own, gone when it is done). */
export const seedStoresUnder = (log: PureLog, bodies: ReadonlyArray<StoredBody>, fence: LeaseFence) =>
  Effect.gen(function*() {
    const writer = yield* LogWriter
    yield* (yield* BodyStore).put(bodies)
    yield* writer.append(yield* SubscriptionRef.get(writer.size), log.leaves.slice(yield* SubscriptionRef.get(writer.size)), fence)
  }).pipe(Effect.provide(Layer.provide(LogWriter.layer, LogHealth.layer)))

/** seedStoresUnder a sequencing lease of the stores' coordination, given up when it is done. */
export const seedStores = (log: PureLog, bodies: ReadonlyArray<StoredBody>) =>
  Effect.scoped(Effect.flatMap(Effect.flatMap(Coordination, (coordination) => coordination.lease()), ({ fence }) =>
    seedStoresUnder(log, bodies, fence)))

/** One process's body services over the shared stores; leaf 0 of `log` is its charter (retention RETENTION_DAYS). */
export const bodyServices = (log: PureLog) => {
  const charter = Layer.succeed(Charter, {
    envelope: undefined as never,
    terms: {
      origin: ORIGIN, instanceDomain: "identity.test", logVkey: "", policyKid: log.policy.kid, ownerKid: "",
      noticePeriodSeconds: 0, retentionDays: RETENTION_DAYS, mmdSeconds: 1
    },
    document: new Uint8Array(0),
    documentHash: new Uint8Array(32)
  })
  return Bodies.layer.pipe(
    Layer.provideMerge(BodyLedger.layer),
    Layer.provideMerge(StateReader.layer),
    Layer.provideMerge(Projection.layer),
    Layer.provideMerge(Sequencer.layer),
    Layer.provideMerge(charter),
    Layer.provideMerge(LogWriter.layer),
    Layer.provideMerge(Layer.mergeAll(LogHealth.layer, NodeRole.layer))
  )
}

/** One process over its own stores, seeded with the log's leaves and `bodies` before it starts. */
export const bodyApp = (log: PureLog, bodies: ReadonlyArray<StoredBody>, clock: ManualClock) =>
  bodyServices(log).pipe(Layer.provide(Layer.effectDiscard(seedStores(log, bodies))), Layer.provideMerge(sharedStores(clock)))

/** Waits until this process sequences the log: retention deletes only there. */
export const sequencing = Effect.flatMap(NodeRole, ({ leading }) => leading.changes.pipe(Stream.takeUntil((lead) => lead), Stream.runDrain))

const writeContext = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

/**
 * Writes an entry through a process's sequencer, as POST /v2/entries does after its checks; it
 * must be accepted. Signed at `clock`'s time when given (the process's, which the test moved),
 * as an agent signs when it writes: the sequencer refuses an envelope past its expires.
 */
export const writeThrough = (
  process: Context.Context<Sequencer>,
  agent: TestAgent,
  type: string,
  payload: Record<string, unknown>,
  body: Uint8Array,
  clock?: ManualClock
) =>
  Effect.gen(function*() {
    const envelope = envelopeFor(agent, ORIGIN, type, payload, clock === undefined ? {} : { created: Math.floor(clock.peek() / 1000) })
    const submission = Either.getOrThrow(checkSubmission(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, writeContext))
    const outcome = yield* Context.get(process, Sequencer).submit(submission)
    expect(outcome._tag).toBe("Accepted")
    accepted(agent, envelope)
  })

/** Whether the body store holds each of these bodies. */
export const held = (stores: Context.Context<BodyStore>, ...bodies: ReadonlyArray<Uint8Array>) =>
  Effect.forEach(bodies, (bytes) => Effect.map(Context.get(stores, BodyStore).get(nodeCrypto.sha256(bytes)), Option.isSome))
