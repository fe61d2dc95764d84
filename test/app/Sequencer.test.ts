// The sequencer's commit (src/app/Sequencer.ts) over memory stores whose puts and appends
// a test can hold, release or fail:
//   - nothing is answered, accepted or refused, before its batch's bodies and then leaves
//     are durable, and a leaf is never appended before the body it names;
//   - a failed put or append answers the whole batch log_unavailable, refusals included
//     (they may rest on acceptances that never reached the log), and the state goes back
//     to the last committed one, so the same submissions are decided again from there;
//   - an append a later lease superseded answers nothing of its batch: the leadership ends
//     and the batch is handed on, to be decided by the next holder (here the same process,
//     whose MemoryCoordination grants it the next lease).

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryProjectionStoreLive } from "../../src/adapters/memory/MemoryProjectionStore.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { Sequencer, type WriteOutcome } from "../../src/app/Sequencer.js"
import { fromUtf8, toHex } from "../../src/domain/bytes.js"
import { decodeU64 } from "../../src/domain/encoding.js"
import type { Envelope } from "../../src/domain/envelope/envelope.js"
import { checkSubmission, type Submission } from "../../src/domain/write/submission.js"
import { BodyStore, type StoredBody } from "../../src/ports/BodyStore.js"
import { LeaseSuperseded, type LeaseFence } from "../../src/ports/LeaseFence.js"
import { LogStore, type AppendedLeaf } from "../../src/ports/LogStore.js"
import { StorageError } from "../../src/ports/StorageError.js"
import { accepted, envelopeFor, makeAgent, postPayload, writeRequestBody, type TestAgent } from "../support/agents.js"

const ORIGIN = "sequencer.test/aics"
const ctx = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

type Hook = Effect.Effect<void, StorageError>

/** What the stores saw, and what runs before each put and append (tests replace the hooks). */
interface Controls {
  /** Digests (hex) of the bodies whose put completed. */
  readonly durableBodies: Set<string>
  /** Puts and appends, in the order they started and ended. */
  readonly events: Array<string>
  /** Indexes of leaves appended while a body they name was not durable: must stay empty. */
  readonly orphanLeaves: Array<number>
  beforePut: Hook
  beforeAppend: Effect.Effect<void, StorageError | LeaseSuperseded>
  /** Opens every gate, so a failed test does not leave a stage waiting forever. */
  readonly openGates: Array<Effect.Effect<boolean>>
}

const newControls = (): Controls => ({
  durableBodies: new Set(),
  events: [],
  orphanLeaves: [],
  beforePut: Effect.void,
  beforeAppend: Effect.void,
  openGates: []
})

const controlledStores = (controls: Controls) => {
  let puts = 0
  let appends = 0
  const bodies = Layer.effect(BodyStore, Effect.map(BodyStore, (store) => BodyStore.of({
    ...store,
    put: (batch: ReadonlyArray<StoredBody>) =>
      Effect.gen(function*() {
        const n = ++puts
        controls.events.push(`put ${n}`)
        yield* Effect.suspend(() => controls.beforePut)
        yield* store.put(batch)
        for (const body of batch) controls.durableBodies.add(toHex(body.digest))
        controls.events.push(`put ${n} done`)
      })
  }))).pipe(Layer.provide(MemoryBodyStoreLive))
  const log = Layer.effect(LogStore, Effect.map(LogStore, (store) => LogStore.of({
    ...store,
    append: (start: number, leaves: ReadonlyArray<AppendedLeaf>, fence: LeaseFence) =>
      Effect.gen(function*() {
        const n = ++appends
        controls.events.push(`append ${n}`)
        leaves.forEach((leaf, i) => {
          const { envelope } = JSON.parse(fromUtf8(leaf.bytes)) as { envelope: Envelope }
          const named = envelope.payload["body_hash"]
          if (typeof named === "string" && !controls.durableBodies.has(toHex(decodeU64(named)!))) controls.orphanLeaves.push(start + i)
        })
        yield* Effect.suspend(() => controls.beforeAppend)
        yield* store.append(start, leaves, fence)
        controls.events.push(`append ${n} done`)
      })
  }))).pipe(Layer.provide(MemoryLogStoreLive))
  return Layer.mergeAll(bodies, log)
}

const sequencerWith = (controls: Controls, beforeSequencer: Layer.Layer<never, never, LogHealth> = Layer.empty, clock = makeTestClock(1_795_000_000_000)) =>
  Sequencer.layer.pipe(
    Layer.provideMerge(beforeSequencer),
    Layer.provideMerge(LogWriter.layer),
    Layer.provideMerge(Layer.mergeAll(LogHealth.layer, NodeRole.layer, MemoryCoordinationLive(), MemoryProjectionStoreLive)),
    Layer.provideMerge(controlledStores(controls)),
    Layer.provideMerge(Layer.mergeAll(NodeCryptoLive, clock.layer))
  )

const submission = (envelope: Envelope, body: Uint8Array | null): Submission =>
  Either.getOrThrow(checkSubmission(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, ctx))

/** The agent's next post, its chain advanced as if it will be accepted. */
const nextPost = (agent: TestAgent, text: string): Submission => {
  const { payload, body } = postPayload(text)
  const envelope = envelopeFor(agent, ORIGIN, "post", payload)
  accepted(agent, envelope)
  return submission(envelope, body)
}

const claim = (agent: TestAgent, name: string): Submission => {
  const envelope = envelopeFor(agent, ORIGIN, "claim", { name, x25519: agent.x25519 })
  accepted(agent, envelope)
  return submission(envelope, null)
}

/** A hook that waits until the test opens it, and tells the test when it was reached. */
const gate = (controls: Controls) => Effect.gen(function*() {
  const reached = yield* Deferred.make<void>()
  const open = yield* Deferred.make<void, StorageError>()
  controls.openGates.push(Deferred.succeed(open, undefined))
  const hook: Hook = Effect.zipRight(Deferred.succeed(reached, undefined), Deferred.await(open))
  return {
    hook,
    reached: Deferred.await(reached),
    release: Deferred.succeed(open, undefined),
    fail: (detail: string) => Deferred.fail(open, new StorageError({ operation: "test", detail }))
  }
})

const code = (outcome: WriteOutcome) => (outcome._tag === "Accepted" ? `accepted ${outcome.index}` : outcome.refusal.code)

/** Whether the fiber has ended, after letting every other fiber run. */
const isDone = <A>(fiber: Fiber.RuntimeFiber<A>) =>
  Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 50), Effect.map(Fiber.poll(fiber), (exit) => exit._tag === "Some"))

/**
 * Carol's post is committed while alice's and bob's claims of one name queue behind it, so
 * those two are decided together, one batch (alice's accepted, bob's refused name_taken),
 * whose append meets `secondAppend` first. Answers the claims and the fibers that submit them.
 */
const claimsBatchedBehindAPost = (controls: Controls, secondAppend: Effect.Effect<void, StorageError | LeaseSuperseded>) =>
  Effect.gen(function*() {
    const sequencer = yield* Sequencer
    const [carol, alice, bob] = ["carol", "alice", "bob"].map((name) => makeAgent(`${name} ${Math.random()}`))
    const held = yield* gate(controls)
    controls.beforePut = held.hook
    const first = yield* Effect.fork(sequencer.submit(nextPost(carol!, "first")))
    yield* held.reached
    controls.beforePut = Effect.void
    const claims = [claim(alice!, "shared"), claim(bob!, "shared")] as const
    const answers = yield* Effect.forEach(claims, (s) => Effect.fork(sequencer.submit(s)))
    yield* Effect.repeatN(Effect.yieldNow(), 50)
    expect(yield* sequencer.queued).toBe(2)
    let appends = 0
    controls.beforeAppend = Effect.suspend(() => (++appends === 2 ? secondAppend : Effect.void))
    yield* held.release
    expect(code(yield* Fiber.join(first))).toBe("accepted 0")
    return { claims, answers }
  })

describe("Sequencer commit", () => {
  it.scoped("refuses an envelope it would log at or after its expires, however long it waited: the writer of a lost answer can tell when the log can no longer take it", () => {
    const controls = newControls()
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      // The sequencer's clock is 1_795_000_000 s: an envelope admitted in time (its
      // expires then ahead) but decided only now, at its expires (envelopeFor's created +
      // 300), is too late.
      const late = makeAgent(`late ${Math.random()}`)
      const { payload, body } = postPayload("held in a queue past its expires")
      const expired = envelopeFor(late, ORIGIN, "post", payload, { created: 1_795_000_000 - 300 })
      expect(expired.expires).toBe(1_795_000_000)
      const outcome = yield* sequencer.submit(submission(expired, body))
      expect(code(outcome)).toBe("signature_expired")
      expect(outcome._tag === "Refused" && outcome.refusal.detail).toBe("the envelope's expires (1795000000) passed before the log could decide it (at 1795000000)")
      // One second younger, in time: accepted at the same seq.
      const inTime = envelopeFor(late, ORIGIN, "post", payload, { created: 1_795_000_001 - 300 })
      expect(code(yield* sequencer.submit(submission(inTime, body)))).toBe("accepted 0")
    }).pipe(Effect.provide(sequencerWith(controls)))
  })

  it.scoped("judges that deadline by its clock as it decides, not by the last leaf's logged: a node once an hour fast does not refuse every later write", () => {
    const controls = newControls()
    const clock = makeTestClock(1_795_003_600_000)
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      // A node an hour fast sequences a post: its leaf is logged an hour ahead.
      const fast = makeAgent(`fast ${Math.random()}`)
      const first = postPayload("written an hour ahead")
      expect(code(yield* sequencer.submit(submission(envelopeFor(fast, ORIGIN, "post", first.payload, { created: 1_795_003_600 - 10 }), first.body)))).toBe("accepted 0")
      // The clock set right: an envelope in time by it is accepted, though its expires is
      // before the last leaf's logged (which never goes back).
      yield* clock.set(1_795_000_000_000)
      const right = makeAgent(`right ${Math.random()}`)
      const second = postPayload("written on time")
      const inTime = envelopeFor(right, ORIGIN, "post", second.payload, { created: 1_795_000_000 - 10 })
      expect(inTime.expires * 1000).toBeLessThan(1_795_003_600_000)
      expect(code(yield* sequencer.submit(submission(inTime, second.body)))).toBe("accepted 1")
    }).pipe(Effect.provide(sequencerWith(controls, Layer.empty, clock)))
  })

  it.scoped("answers only after bodies then leaves are durable", () => {
    const controls = newControls()
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      const held = yield* gate(controls)
      controls.beforePut = held.hook
      const agents = Array.from({ length: 5 }, (_, i) => makeAgent(`answers ${i} ${Math.random()}`))
      const fibers = yield* Effect.forEach(agents, (agent) => Effect.fork(sequencer.submit(nextPost(agent, "hello"))))
      yield* held.reached
      for (const fiber of fibers) expect(yield* isDone(fiber)).toBe(false)
      yield* held.release
      const outcomes = yield* Effect.forEach(fibers, Fiber.join)
      expect(outcomes.map(code).sort()).toEqual(["accepted 0", "accepted 1", "accepted 2", "accepted 3", "accepted 4"])
      expect(controls.orphanLeaves).toEqual([])
      expect((yield* sequencer.point).folded).toBe(5)
    }).pipe(Effect.ensuring(Effect.suspend(() => Effect.all(controls.openGates))), Effect.provide(sequencerWith(controls)))
  })

  it.scoped("a failed append answers its whole batch log_unavailable, refusals too, and the state goes back", () => {
    const controls = newControls()
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      // The second append fails: alice's claim never reaches the log, so bob's refusal,
      // which rests on it, must not be answered either.
      const { claims: [aliceClaim, bobClaim], answers } = yield* claimsBatchedBehindAPost(controls,
        Effect.fail(new StorageError({ operation: "test", detail: "disk full" })))
      expect((yield* Effect.forEach(answers, Fiber.join)).map(code)).toEqual(["log_unavailable", "log_unavailable"])
      expect((yield* sequencer.point).folded).toBe(1)
      // From the committed state again: bob's claim is now first, alice's is refused.
      expect(code(yield* sequencer.submit(bobClaim))).toBe("accepted 1")
      expect(code(yield* sequencer.submit(aliceClaim))).toBe("name_taken")
      expect((yield* sequencer.point).folded).toBe(2)
      expect(controls.orphanLeaves).toEqual([])
    }).pipe(Effect.ensuring(Effect.suspend(() => Effect.all(controls.openGates))), Effect.provide(sequencerWith(controls)))
  })

  it.scoped("a superseded append answers nothing of its batch and hands it on to the next holder", () => {
    const controls = newControls()
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      // The second append finds a later lease: the store wrote nothing.
      const { answers } = yield* claimsBatchedBehindAPost(controls,
        Effect.fail(new LeaseSuperseded({ operation: "append", fence: { epoch: 1 } })))
      // Neither claim is answered log_unavailable: the next lease decides both anew, one
      // batch or two, so one takes the name at index 1 and the other is refused for it.
      const outcomes = (yield* Effect.forEach(answers, Fiber.join)).map(code)
      expect([...outcomes].sort()).toEqual(["accepted 1", "name_taken"])
      expect(controls.events.filter((e) => e.startsWith("append") && e.endsWith("done"))).toHaveLength(2)
      expect((yield* sequencer.point).folded).toBe(2)
      expect(controls.orphanLeaves).toEqual([])
    }).pipe(Effect.ensuring(Effect.suspend(() => Effect.all(controls.openGates))), Effect.provide(sequencerWith(controls)))
  })

  it.scoped("looks at the shared evidence of a divergence as it takes the lease: a log found diverged then accepts nothing", () => {
    const controls = newControls()
    // What a layer below adds (CosignatureCollector: a witness's stored alarm above the
    // log's size; Publisher: the checkpoint this node kept): here, evidence that is found.
    const evidence = Layer.effectDiscard(Effect.flatMap(LogHealth, (health) =>
      health.addRecheck(health.markDiverged("witness w cosigned size 20 of this origin, above this log's 0", "what its witnesses cosigned"))))
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      const outcome = yield* sequencer.submit(nextPost(makeAgent(`diverged ${Math.random()}`), "after the restore"))
      expect(outcome).toMatchObject({ _tag: "Refused", refusal: { code: "log_unavailable" } })
      expect(controls.events.filter((e) => e.startsWith("append"))).toEqual([])
      expect((yield* sequencer.point).folded).toBe(0)
      expect(yield* (yield* LogHealth).diverged).toContain("above this log's 0")
    }).pipe(Effect.provide(sequencerWith(controls, evidence)))
  })

  it.scoped("a failed put answers its batch log_unavailable and appends nothing of it", () => {
    const controls = newControls()
    return Effect.gen(function*() {
      const sequencer = yield* Sequencer
      const agent = makeAgent(`put fails ${Math.random()}`)
      const zero = nextPost(agent, "zero")
      const one = nextPost(agent, "one")
      controls.beforePut = Effect.fail(new StorageError({ operation: "test", detail: "no space for bodies" }))
      expect(code(yield* sequencer.submit(zero))).toBe("log_unavailable")
      expect(controls.events.filter((e) => e.startsWith("append"))).toEqual([])
      expect((yield* sequencer.point).folded).toBe(0)
      // The chain continues from the committed state: "zero" is accepted at index 0.
      controls.beforePut = Effect.void
      expect(code(yield* sequencer.submit(zero))).toBe("accepted 0")
      expect(code(yield* sequencer.submit(one))).toBe("accepted 1")
      expect(controls.orphanLeaves).toEqual([])
    }).pipe(Effect.provide(sequencerWith(controls)))
  })
})
