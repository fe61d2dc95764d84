// A restart of the body services costs the tail since the projection's last fold, not the
// log (issue 12, "Start-up independent of size"): the ledger's budget and retention read the
// projection store (app/BodyLedger.ts), so a process started over a store that has folded
// the whole log reads no leaf for them, and answers a body by digest, the budget and
// retention as the process before it did. The log store is wrapped to count the leaves
// read; the stores are shared by the two processes, one after the other, as a restart
// finds them. Memory adapters, a clock the test moves.

import { Context, Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { Bodies } from "../../src/app/Bodies.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { ProjectionStore } from "../../src/ports/ProjectionStore.js"
import { bodyServices, held, RETENTION_DAYS, seedStores, sequencing, sharedStores, storedBody } from "../support/bodyServices.js"
import { textBody } from "../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, makeAgent, PureLog } from "../support/identityAgents.js"

/** Capsules: the first repeats a post, the next 39 are written once, the rest rewrite the 39th. */
const CAPSULE_WRITES = 120

type Stores = Layer.Layer.Success<ReturnType<typeof sharedStores>>

describe("the body ledger across a restart", () => {
  it("reads no leaf at start, and answers bodies, the budget and retention as before", async () => {
    const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "ledger restart" })
    const [mallory, alice] = [makeAgent("ledger restart mallory"), makeAgent("ledger restart alice")]
    log.accept(alice, "claim", claimPayload("alice", alice))
    const text = textBody("a post that a capsule repeats")
    const bodies = [text.body]
    for (let i = 0; i < CAPSULE_WRITES; i++) {
      const ct = i === 0 ? text.body : ciphertext(`ledger restart ${Math.min(i, 39)}`)
      if (i > 0 && i < 40) bodies.push(ct)
      const capsule = capsulePayload(`slot ${i % 7}`, ct)
      log.accept(mallory, "capsule", capsule.payload, capsule.body)
      log.now += DAY_MS / 10
    }
    log.accept(alice, "post", { channel: "general", body_hash: text.body_hash, size: text.size }, text.body)
    const t0 = log.now
    const clock = makeTestClock(t0)
    const [shared, lone, rewritten] = [text.body, ciphertext("ledger restart 1"), ciphertext("ledger restart 39")]
    const digests = [shared, lone, rewritten].map((bytes) => nodeCrypto.sha256(bytes))

    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const stores = yield* Layer.build(sharedStores(clock))
      yield* Effect.provide(seedStores(log, bodies.map(storedBody)), stores)
      const start = (context: Context.Context<Stores>) =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const process = yield* Layer.buildWithScope(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(context))), scope)
          yield* Effect.provide(sequencing, process)
          return { process, stop: Scope.close(scope, Exit.void) }
        })
      /** What a process answers: each digest's status by digest, and the budget's live bytes. */
      const answers = (process: Context.Context<Bodies | BodyLedger>) =>
        Effect.gen(function*() {
          const statuses = yield* Effect.forEach(digests, (digest) => Context.get(process, Bodies).ofDigest(digest))
          return { statuses: statuses.map((s) => (s.state === "gone" ? s.status : s.state)), live: yield* Context.get(process, BodyLedger).liveBytes }
        })

      // The first process: the first 40 writes expire; retention deletes the lone ones.
      const first = yield* start(stores)
      yield* clock.set(t0 - CAPSULE_WRITES * DAY_MS / 10 + RETENTION_DAYS * DAY_MS + 4 * DAY_MS)
      yield* Context.get(first.process, BodyLedger).reclaimNow
      const before = yield* answers(first.process)
      // The post keeps the shared bytes; the lone capsule's went; one rewritten later stays.
      expect(before.statuses).toEqual(["available", { state: "expired", tombstone_index: null, reason_code: null, policy_index: 0 }, "available"])
      expect(yield* held(stores, shared, lone, rewritten)).toEqual([true, false, true])
      expect(before.live).toBeGreaterThan(0)
      const retained = yield* Effect.flatMap(ProjectionStore, (store) => store.retained("ciphertexts")).pipe(Effect.provide(stores))
      expect(retained).toBeGreaterThan(0)
      yield* first.stop

      // The second process over the same stores, counting the leaves it reads.
      let leavesRead = 0
      const logStore = Context.get(stores, LogStore)
      const counting = LogStore.of({
        ...logStore,
        readEntries: (from, to) => Effect.zipRight(Effect.sync(() => void (leavesRead += to - from)), logStore.readEntries(from, to))
      })
      const second = yield* start(Context.add(stores, LogStore, counting))
      const after = yield* answers(second.process)
      expect(after).toEqual(before)
      // Retention goes on from where the first process left it: nothing more is due.
      expect(yield* Context.get(second.process, BodyLedger).reclaimNow).toBe(0)
      expect(yield* Effect.flatMap(ProjectionStore, (store) => store.retained("ciphertexts")).pipe(Effect.provide(stores))).toBe(retained)
      // The start read one leaf of the whole log: the last folded one, checked against the store.
      expect(leavesRead).toBe(1)

      // Later, every capsule expired: the rewritten bytes go, the post keeps the shared ones.
      yield* clock.set(t0 + RETENTION_DAYS * DAY_MS)
      expect(yield* Context.get(second.process, BodyLedger).reclaimNow).toBeGreaterThan(0)
      expect(yield* held(stores, shared, lone, rewritten)).toEqual([true, false, false])
      expect(yield* Context.get(second.process, BodyLedger).liveBytes).toBe(0)
      expect(leavesRead).toBe(1)
      yield* second.stop
    })))
  })
})
