// A process taking the lease settles what a dead sequencer left (docs/protocol.md section
// 14): submissions relayed and claimed by it but never answered. The one whose leaf the
// dead sequencer committed is answered from the log (its index, time and leaf hash); the
// one it never committed is decided again. Memory adapters, so the takeover is exact.

import { it } from "@effect/vitest"
import { Context, Duration, Effect, Either, Fiber, Layer, Option } from "effect"
import { describe, expect } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryProjectionStoreLive } from "../../src/adapters/memory/MemoryProjectionStore.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { Sequencer } from "../../src/app/Sequencer.js"
import { toHex } from "../../src/domain/bytes.js"
import { makeTreeHasher } from "../../src/domain/tlog/hasher.js"
import { decide } from "../../src/domain/write/decide.js"
import { emptyLogState } from "../../src/domain/write/logState.js"
import { relayedBytes } from "../../src/domain/write/relayed.js"
import { checkSubmission } from "../../src/domain/write/submission.js"
import { Coordination, type RelayedOutcome } from "../../src/ports/Coordination.js"
import { accepted, envelopeFor, makeAgent, postPayload, writeRequestBody, type TestAgent } from "../support/agents.js"

const ORIGIN = "takeover.test/aics"
const NOW = 1_795_000_000_000
const ctx = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

const post = (agent: TestAgent, text: string) => {
  const { payload, body } = postPayload(text)
  const envelope = envelopeFor(agent, ORIGIN, "post", payload)
  accepted(agent, envelope)
  return Either.getOrThrow(checkSubmission(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, ctx))
}

const shown = (outcome: RelayedOutcome) => (outcome._tag === "Accepted" ? { ...outcome, leafHash: toHex(outcome.leafHash) } : outcome)

describe("Sequencer takeover", () => {
  it.scopedLive("answers a dead sequencer's committed claim from the log and decides the other again", () =>
    Effect.gen(function*() {
      const stores = Layer.mergeAll(MemoryLogStoreLive, MemoryBodyStoreLive, LogHealth.layer, NodeRole.layer, MemoryCoordinationLive(), MemoryProjectionStoreLive).pipe(
        Layer.provideMerge(Layer.mergeAll(NodeCryptoLive, makeTestClock(NOW).layer))
      )
      const before = yield* Layer.build(Layer.provideMerge(LogWriter.layer, stores))
      const coordination = Context.get(before, Coordination)
      const writer = Context.get(before, LogWriter)

      const committed = post(makeAgent(`alice ${Math.random()}`), "committed before the crash")
      const lost = post(makeAgent(`bob ${Math.random()}`), "claimed, never committed")
      const first = yield* Effect.fork(coordination.relay(relayedBytes(committed)))
      yield* Effect.sleep(Duration.millis(20))
      const second = yield* Effect.fork(coordination.relay(relayedBytes(lost)))
      yield* Effect.sleep(Duration.millis(20))
      // The dead sequencer claimed both under its lease, and committed the first one's leaf only.
      const decided = Either.getOrThrow(decide(emptyLogState, committed, NOW - 5))
      yield* Effect.scoped(Effect.gen(function*() {
        const { fence } = yield* coordination.lease()
        expect((yield* coordination.claim(10, 0, fence)).length).toBe(2)
        yield* writer.append(0, [decided.entryBytes], fence)
      }))

      const sequencer = Context.get(yield* Layer.build(Sequencer.layer.pipe(Layer.provide(Layer.succeedContext(before)))), Sequencer)
      const hasher = makeTreeHasher(nodeCrypto.sha256)
      expect(shown(yield* Fiber.join(first))).toEqual(
        shown({ _tag: "Accepted", index: 0, logged: decided.logged, leafHash: hasher.leafHash(decided.entryBytes) }))
      const again = yield* Fiber.join(second)
      expect(again._tag === "Accepted" && again.index).toBe(1)
      expect((yield* sequencer.point).folded).toBe(2)
      // Nothing is left claimed and unanswered, under the lease the new sequencer holds.
      expect(yield* sequencer.betweenBatches((fence) => coordination.orphans(fence))).toEqual(Option.some([]))
    }))
})
