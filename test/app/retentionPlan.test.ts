// Retention decides outside the sequencer's turn and deletes inside it (app/BodyLedger.ts,
// plan and retainTurn): a leaf committed in between may name the very bytes it decided to
// delete, so the turn then decides again on the log as it stands. Here the same capsule
// is written again exactly while retention reads the entries naming its bytes (the read
// answers what it found before the write): the bytes must stay, since the new capsule has
// not expired. Memory adapters, a clock the test moves.

import { Context, Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { Bodies } from "../../src/app/Bodies.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { ProjectionStore } from "../../src/ports/ProjectionStore.js"
import { bodyServices, held, RETENTION_DAYS, seedStores, sequencing, sharedStores, storedBody, writeThrough } from "../support/bodyServices.js"
import { capsulePayload, ciphertext, makeAgent, PureLog } from "../support/identityAgents.js"

describe("retention's decision and a leaf committed before its deletes", () => {
  it("decides again on the log as it stands, and keeps bytes the new leaf names", async () => {
    const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "retention plan" })
    const mallory = makeAgent("retention plan mallory")
    const capsule = capsulePayload("slot", ciphertext("written again while retention decides"))
    log.accept(mallory, "capsule", capsule.payload, capsule.body)
    const clock = makeTestClock(log.now)

    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const stores = yield* Layer.build(sharedStores(clock))
      yield* Effect.provide(seedStores(log, [storedBody(capsule.body)]), stores)
      // The projection store's reads of the entries naming a digest run `meanwhile` once,
      // after reading and before answering.
      let meanwhile: Effect.Effect<void> | undefined
      const projection = Context.get(stores, ProjectionStore)
      const interleaving = ProjectionStore.of({
        ...projection,
        list: (area, key, query) =>
          Effect.flatMap(projection.list(area, key, query), (page) => {
            const run = area === "bodyNaming" ? meanwhile : undefined
            if (run === undefined) return Effect.succeed(page)
            meanwhile = undefined
            return Effect.as(run, page)
          })
      })
      const scope = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
      const process = yield* Layer.buildWithScope(
        bodyServices(log).pipe(Layer.provide(Layer.succeedContext(Context.add(stores, ProjectionStore, interleaving)))),
        scope
      )
      yield* Effect.provide(sequencing, process)

      // The capsule expired; while retention reads what names its bytes, mallory writes it again.
      yield* clock.set(log.now + RETENTION_DAYS * DAY_MS)
      let rewritten = false
      meanwhile = Effect.orDie(Effect.map(writeThrough(process, mallory, "capsule", capsule.payload, capsule.body, clock), () => void (rewritten = true)))
      expect(yield* Context.get(process, BodyLedger).reclaimNow).toBe(0)
      expect(rewritten).toBe(true)
      expect(yield* held(stores, capsule.body)).toEqual([true])
      expect((yield* Context.get(process, Bodies).ofDigest(nodeCrypto.sha256(capsule.body))).state).toBe("available")

      // Once the second write, logged at that time, expires too, the bytes go.
      yield* clock.set(log.now + 2 * RETENTION_DAYS * DAY_MS)
      expect(yield* Context.get(process, BodyLedger).reclaimNow).toBe(1)
      expect(yield* held(stores, capsule.body)).toEqual([false])
    })))
  })
})
