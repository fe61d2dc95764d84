// Retention with several processes on shared stores (docs/protocol.md section 14, section
// 9): only the process that sequences the log deletes bytes, between its batches and after
// reading every committed leaf. So a process whose ledger lags behind the log (between two
// notifications) never deletes bytes that a leaf it has not read names; the process that
// takes the lease over deletes what falls due, from a ledger built from the log; and one
// that finds leaves it did not write (deposed and not yet aware) deletes nothing. Memory
// adapters shared by two processes' services, so every step is exact.

import { Context, Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock, type ManualClock } from "../../src/adapters/clock/TestClock.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { bodyServices, held, RETENTION_DAYS, seedStores, seedStoresUnder, sequencing, sharedStores, storedBody, writeThrough } from "../support/bodyServices.js"
import { textBody } from "../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, makeAgent, PureLog } from "../support/identityAgents.js"

const RETENTION_MS = RETENTION_DAYS * DAY_MS

/**
 * Stores seeded with the log and `bodies`, and process A's services over them, sequencing;
 * `another` starts one more process (which waits for the lease: stop A before the test ends).
 */
const processes = (log: PureLog, bodies: ReadonlyArray<Uint8Array>, clock: ManualClock) =>
  Effect.gen(function*() {
    const shared = yield* Layer.build(sharedStores(clock))
    yield* Effect.provide(seedStores(log, bodies.map(storedBody)), shared)
    const processOver = (scope: Scope.Scope) => Layer.buildWithScope(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(shared))), scope)
    const scopeA = yield* Scope.make()
    const a = yield* processOver(scopeA)
    yield* Effect.provide(sequencing, a)
    return { shared, a, stopA: Scope.close(scopeA, Exit.void), another: Effect.flatMap(Effect.scope, processOver) }
  })

describe("retention on several processes", () => {
  it("deletes on the sequencing process only, from every leaf committed, and on its successor after a takeover", async () => {
    const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "several" })
    const [mallory, alice] = [makeAgent("several mallory"), makeAgent("several alice")]
    const text = textBody("posted on one process, repeated by a capsule")
    const [repeating, lone, later] = [capsulePayload("repeating", text.body), capsulePayload("lone", ciphertext("lone")), capsulePayload("later", ciphertext("later"))]
    log.accept(mallory, "capsule", repeating.payload, repeating.body)
    log.accept(mallory, "capsule", lone.payload, lone.body)
    log.accept(alice, "claim", claimPayload("alice", alice))
    const t0 = log.now
    const clock = makeTestClock(t0)

    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { shared, a, stopA, another } = yield* processes(log, [text.body, lone.body], clock)
      const b = yield* another

      // A post through A names the capsule's bytes; B has not read it (no notification yet).
      yield* clock.set(t0 + DAY_MS)
      yield* writeThrough(a, alice, "post", { channel: "general", body_hash: text.body_hash, size: text.size }, text.body, clock)

      // Both capsules expire. B does not sequence: it deletes nothing, whatever its ledger.
      yield* clock.set(t0 + RETENTION_MS)
      expect(yield* Context.get(b, BodyLedger).reclaimNow).toBe(0)
      expect(yield* held(shared, text.body, lone.body)).toEqual([true, true])
      // A deletes the lone capsule's bytes and keeps those the post names.
      yield* Context.get(a, BodyLedger).reclaimNow
      expect(yield* held(shared, text.body, lone.body)).toEqual([true, false])

      // A writes one more capsule and stops; B takes the lease over and reads what A wrote.
      yield* writeThrough(a, mallory, "capsule", later.payload, later.body, clock)
      yield* stopA
      yield* Effect.provide(sequencing, b)
      yield* clock.set(t0 + 2 * RETENTION_MS)
      yield* Context.get(b, BodyLedger).reclaimNow
      expect(yield* held(shared, text.body, later.body)).toEqual([true, false])
    })))
  })

  it("deletes nothing on a process that finds leaves it did not write", async () => {
    const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "deposed" })
    const [mallory, alice] = [makeAgent("deposed mallory"), makeAgent("deposed alice")]
    const lone = capsulePayload("lone", ciphertext("deposed lone"))
    log.accept(mallory, "capsule", lone.payload, lone.body)
    const clock = makeTestClock(log.now)

    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { shared, a } = yield* processes(log, [lone.body], clock)
      // Another writer appends behind A's back: A was deposed and has not noticed. That
      // writer holds a later lease than A's, which the memory stores take unchecked (A's
      // MemoryCoordination cannot grant it while A holds its own).
      log.accept(alice, "claim", claimPayload("alice", alice))
      yield* Effect.provide(seedStoresUnder(log, [], { epoch: Number.MAX_SAFE_INTEGER }), shared)
      yield* clock.set(log.now + RETENTION_MS)
      expect(yield* Context.get(a, BodyLedger).reclaimNow).toBe(0)
      expect(yield* held(shared, lone.body)).toEqual([true])
    })))
  })
})
