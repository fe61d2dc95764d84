// The NonceStore contract (src/ports/NonceStore.ts): a (keyid, nonce) pair is accepted once
// and refused while remembered, that is while now <= until; after until it may be forgotten
// and accepted again. An adapter that promises when it forgets (the memory store drops a
// pair at the minute boundary after until) says so, and the suite holds it to that too.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import fc from "fast-check"
import { NonceStore } from "../../src/ports/NonceStore.js"

export interface NonceStoreUnderTest {
  /** A new, empty store, removed when the scope closes, and the layer that opens it. */
  readonly fresh: Effect.Effect<Layer.Layer<NonceStore, unknown>, unknown, Scope.Scope>
  /** The time (Unix seconds) from which a pair remembered until `until` is surely forgotten. */
  readonly forgottenBy?: (until: number) => number
  /** fast-check runs of the model test (each one makes a fresh store). */
  readonly propertyRuns?: number
}

type Store = typeof NonceStore.Service

const withStore = <A, E, R>(adapter: NonceStoreUnderTest, use: (store: Store) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(adapter.fresh, (layer) => Effect.flatMap(NonceStore, use).pipe(Effect.provide(layer)))

// A Unix time in seconds of about now, fixed so runs are alike; 1_700_000_040 is on a minute.
const T = 1_700_000_040
const KEY = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"

export const nonceStoreContract = (name: string, adapter: NonceStoreUnderTest): void => {
  describe(`NonceStore contract: ${name}`, () => {
    it.scoped("accepts a pair once and refuses it while remembered", () =>
      withStore(adapter, (store) =>
        Effect.gen(function*() {
          const until = T + 900
          expect(yield* store.remember(KEY, "n1", until, T)).toBe(true)
          expect(yield* store.remember(KEY, "n1", until, T)).toBe(false)
          // Still refused up to and at `until`, whatever until a replay claims.
          for (const now of [T + 1, T + 59, T + 60, T + 61, T + 600, until - 1, until]) {
            expect(yield* store.remember(KEY, "n1", until, now)).toBe(false)
            expect(yield* store.remember(KEY, "n1", now + 5, now)).toBe(false)
          }
          // Another nonce of the key, or the nonce under another key, is another pair.
          expect(yield* store.remember(KEY, "n2", until, T)).toBe(true)
          expect(yield* store.remember(`${KEY}x`, "n1", until, T)).toBe(true)
          expect(yield* store.remember(KEY, "N1", until, T)).toBe(true)
        })))

    it.scoped("keeps pairs apart whose joined text is alike", () =>
      withStore(adapter, (store) =>
        Effect.gen(function*() {
          const until = T + 900
          const pairs: ReadonlyArray<readonly [string, string]> = [
            ["a", "b c"], ["a b", "c"], ["a b c", ""], ["", "a b c"], ["a\u0000b", "c"], ["a", "b\u0000c"], ["a:b", "c"], ["a", "b:c"]
          ]
          for (const [keyid, nonce] of pairs) expect(yield* store.remember(keyid, nonce, until, T)).toBe(true)
          for (const [keyid, nonce] of pairs) expect(yield* store.remember(keyid, nonce, until, T)).toBe(false)
        })))

    it.scoped("remembers many distinct pairs", () =>
      withStore(adapter, (store) =>
        Effect.gen(function*() {
          const count = 5_000
          const untilOf = (i: number) => T + 300 + (i % 700)
          for (let i = 0; i < count; i++) expect(yield* store.remember(KEY, `nonce-${i}`, untilOf(i), T)).toBe(true)
          for (let i = 0; i < count; i++) expect(yield* store.remember(KEY, `nonce-${i}`, untilOf(i), T + 299)).toBe(false)
        })))

    it.scoped("forgetting expired pairs keeps the ones still remembered", () =>
      withStore(adapter, (store) =>
        Effect.gen(function*() {
          expect(yield* store.remember(KEY, "short", T + 10, T)).toBe(true)
          expect(yield* store.remember(KEY, "long", T + 10_000, T)).toBe(true)
          const later = T + 5_000
          expect(yield* store.remember(KEY, "new", later + 100, later)).toBe(true)
          expect(yield* store.remember(KEY, "long", T + 10_000, later)).toBe(false)
          expect(yield* store.remember(KEY, "new", later + 100, later + 100)).toBe(false)
          expect(yield* store.remember(KEY, "long", T + 10_000, T + 10_000)).toBe(false)
        })))

    it.scoped("after until has passed, a pair may be accepted again, and is then remembered again", () =>
      withStore(adapter, (store) =>
        Effect.gen(function*() {
          const until = T + 900
          expect(yield* store.remember(KEY, "n", until, T)).toBe(true)
          const now = adapter.forgottenBy?.(until) ?? until + 3_600
          const again = yield* store.remember(KEY, "n", now + 900, now)
          if (adapter.forgottenBy !== undefined) expect(again).toBe(true)
          if (again) expect(yield* store.remember(KEY, "n", now + 900, now + 1)).toBe(false)
        })))

    if (adapter.forgottenBy !== undefined) {
      const forgottenBy = adapter.forgottenBy
      it.scoped("forgets a pair by the time the adapter promises", () =>
        withStore(adapter, (store) =>
          Effect.gen(function*() {
            // Untils on, just before and just after a minute boundary, and far apart.
            const untils = [T - 1, T, T + 1, T + 59, T + 60, T + 61, T + 3_600]
            for (const [i, until] of untils.entries()) {
              expect(yield* store.remember(KEY, `n${i}`, until, T - 600)).toBe(true)
            }
            // Visited in time order, as a real clock would: each pair still refused at its
            // until, and accepted again at the time the adapter promises to have forgotten it.
            const checks = untils.flatMap((until, i) => {
              const by = forgottenBy(until)
              expect(by).toBeGreaterThan(until)
              return [{ i, at: until, fresh: false }, { i, at: by, fresh: true }]
            }).sort((a, b) => a.at - b.at)
            for (const { i, at, fresh } of checks) {
              expect(yield* store.remember(KEY, `n${i}`, at + 600, at)).toBe(fresh)
            }
          })))
    }

    it.scoped("answers true exactly once to many concurrent remembers of one pair", () =>
      withStore(adapter, (store) =>
        Effect.gen(function*() {
          for (const round of [0, 1, 2]) {
            const answers = yield* Effect.all(
              Array.from({ length: 64 }, () => store.remember(KEY, `race-${round}`, T + 900, T)),
              { concurrency: "unbounded" }
            )
            expect(answers.filter((fresh) => fresh)).toHaveLength(1)
          }
          // Concurrent distinct pairs are all new.
          const distinct = yield* Effect.all(
            Array.from({ length: 64 }, (_, i) => store.remember(KEY, `distinct-${i}`, T + 900, T)),
            { concurrency: "unbounded" }
          )
          expect(distinct.every((fresh) => fresh)).toBe(true)
        })))

    it.scoped("matches a model over random sequences of remembers", () =>
      Effect.gen(function*() {
        const step = fc.record({
          keyid: fc.constantFrom("k1", "k2", "k1 x"),
          nonce: fc.constantFrom("n1", "n2", "x n1"),
          lifetime: fc.integer({ min: 0, max: 1_200 }),
          wait: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90 }), fc.integer({ min: 0, max: 2_000 }))
        })
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) =>
              Effect.runPromise(Effect.scoped(withStore(adapter, (store) =>
                Effect.gen(function*() {
                  // The until of each pair's last acceptance: what the port obliges the store to keep.
                  const model = new Map<string, number>()
                  let now = T
                  for (const s of steps) {
                    now += s.wait
                    const until = now + s.lifetime
                    const pair = JSON.stringify([s.keyid, s.nonce])
                    const kept = model.get(pair)
                    const fresh = yield* store.remember(s.keyid, s.nonce, until, now)
                    if (kept === undefined) expect(fresh).toBe(true)
                    else if (now <= kept) expect(fresh).toBe(false)
                    else if (adapter.forgottenBy !== undefined && now >= adapter.forgottenBy(kept)) expect(fresh).toBe(true)
                    if (fresh) model.set(pair, until)
                  }
                }))))
            ),
            { numRuns: adapter.propertyRuns ?? 100 }
          )
        )
      }))
  })
}
