// The ContributionIntents contract (src/ports/ContributionIntents.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, Option, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import type { ContributionIntent } from "../../src/domain/sup/contributions.js"
import { ContributionIntents } from "../../src/ports/ContributionIntents.js"

export interface ContributionIntentsUnderTest {
  /** A new, empty store and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<ContributionIntents, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const T = 1_767_225_600

export const intent = (id: string, over: Partial<ContributionIntent> = {}): ContributionIntent => ({
  intentId: id,
  name: "alice",
  network: "testnet",
  asset: "usdc",
  address: "addr-1",
  units: `5000${id.length}${id.charCodeAt(0)}`,
  amount: 5,
  created: T,
  expires: T + 3600,
  claimUntil: T + 7200,
  ...over
})

const withStore = <A, E>(layer: Layer.Layer<ContributionIntents, unknown>, use: (s: typeof ContributionIntents.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(ContributionIntents, use).pipe(Effect.provide(layer)))

export const contributionIntentsContract = (name: string, adapter: ContributionIntentsUnderTest): void => {
  describe(`ContributionIntents contract: ${name}`, () => {
    it.scoped("reserves, gets and records a credit", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.reserve(intent("a"), T)).toBe(true)
          expect(Option.getOrThrow(yield* store.get("a"))).toEqual({ intent: intent("a"), creditIndex: null })
          expect(Option.isNone(yield* store.get("zz"))).toBe(true)
          yield* store.credited("a", 42)
          expect(Option.getOrThrow(yield* store.get("a")).creditIndex).toBe(42)
        }))
      }))

    it.scoped("refuses a taken id, and units another intent of the network may still claim", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.reserve(intent("a", { units: "5000001" }), T)).toBe(true)
          expect(yield* store.reserve(intent("a", { units: "5000002" }), T)).toBe(false)
          // Same units, same network, while "a" is claimable (up to and including claim_until).
          expect(yield* store.reserve(intent("b", { units: "5000001" }), T + 7200)).toBe(false)
          expect(Option.isNone(yield* store.get("b"))).toBe(true)
          // Same units on another network: fine.
          expect(yield* store.reserve(intent("c", { units: "5000001", network: "othernet" }), T)).toBe(true)
          // Once "a" can no longer be claimed its units are free again.
          expect(yield* store.reserve(intent("d", { units: "5000001", created: T + 7201 }), T + 7201)).toBe(true)
          expect(Option.getOrThrow(yield* store.get("a")).intent.units).toBe("5000001")
        }))
      }))

    if (adapter.durable) {
      it.scoped("keeps intents and credits across reopens", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withStore(layer, (store) => Effect.gen(function*() {
            yield* store.reserve(intent("x", { units: "1" }), T)
            yield* store.reserve(intent("y", { units: "2" }), T)
            yield* store.credited("y", 7)
          }))
          yield* withStore(layer, (store) => Effect.gen(function*() {
            expect(Option.getOrThrow(yield* store.get("x"))).toEqual({ intent: intent("x", { units: "1" }), creditIndex: null })
            expect(Option.getOrThrow(yield* store.get("y")).creditIndex).toBe(7)
            expect(yield* store.reserve(intent("z", { units: "1" }), T)).toBe(false)
          }))
        }))
    }
  })
}
