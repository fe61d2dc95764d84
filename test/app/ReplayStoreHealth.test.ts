// The replay store watched for /healthz (app/ReplayStoreHealth.ts): over a store a test
// makes fail, its failure is reported (the store's message) from the first failed
// remember, one line logged however many fail; a remember that works ends it, with a line;
// with no remember after it, a failure is reported for REPLAY_FAILURE_REPORTED_MILLIS after
// the last one. The store it provides is the one below, answering the same.

import { it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Logger } from "effect"
import { describe, expect } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { REPLAY_FAILURE_REPORTED_MILLIS, ReplayStoreHealth } from "../../src/app/ReplayStoreHealth.js"
import { NonceStore } from "../../src/ports/NonceStore.js"
import { StorageError } from "../../src/ports/StorageError.js"

const NOW = 1_795_000_000_000
const DETAIL = "relation \"aics_nonces\" does not exist"

describe("ReplayStoreHealth", () => {
  it.effect("reports the store's failure until a remember works, or for a while after the last failure", () => {
    const lines: Array<string> = []
    const clock = makeTestClock(NOW)
    let failing = true
    const seen = new Set<string>()
    const below = Layer.succeed(NonceStore, NonceStore.of({
      remember: (keyid, nonce) =>
        failing
          ? Effect.fail(new StorageError({ operation: "remember", detail: DETAIL }))
          : Effect.sync(() => !seen.has(`${keyid} ${nonce}`) && seen.add(`${keyid} ${nonce}`) !== undefined)
    }))
    return Effect.gen(function*() {
      const context = yield* Layer.build(ReplayStoreHealth.layer.pipe(Layer.provide(Layer.merge(below, clock.layer))))
      const store = Context.get(context, NonceStore)
      const health = Context.get(context, ReplayStoreHealth)
      expect(yield* health.failure).toBeUndefined()

      // Failing: said at once, logged once.
      for (const nonce of ["n1", "n2", "n3"]) {
        const answer = yield* Effect.either(store.remember("k", nonce, NOW / 1000 + 600, NOW / 1000))
        expect(Either.isLeft(answer) && answer.left.detail).toBe(DETAIL)
      }
      expect(yield* health.failure).toBe(`remember: ${DETAIL}`)
      expect(lines).toEqual(["the replay store fails: signed requests are refused 503"])

      // Works again: ended at the first remember, which answers as the store does.
      failing = false
      expect(yield* store.remember("k", "n4", NOW / 1000 + 600, NOW / 1000)).toBe(true)
      expect(yield* store.remember("k", "n4", NOW / 1000 + 600, NOW / 1000)).toBe(false)
      expect(yield* health.failure).toBeUndefined()
      expect(lines.slice(1)).toEqual(["the replay store works again"])

      // A failure nothing tries again after: reported for a while, then no longer.
      failing = true
      yield* Effect.either(store.remember("k", "n5", NOW / 1000 + 600, NOW / 1000))
      yield* clock.advance(REPLAY_FAILURE_REPORTED_MILLIS)
      expect(yield* health.failure).toBe(`remember: ${DETAIL}`)
      yield* clock.advance(1)
      expect(yield* health.failure).toBeUndefined()
    }).pipe(
      Effect.scoped,
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push(Array.isArray(message) ? message.join(" ") : String(message)))))
    )
  })
})
