// The ContributionIntents contract (src/ports/ContributionIntents.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, Option, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { MAX_OPEN_INTENTS, type ContributionIntent } from "../../src/domain/sup/contributions.js"
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
          expect(yield* store.reserve(intent("a"), T)).toBe("reserved")
          expect(Option.getOrThrow(yield* store.get("a"))).toEqual({ intent: intent("a"), creditIndex: null })
          expect(Option.isNone(yield* store.get("zz"))).toBe(true)
          yield* store.credited("a", 42)
          expect(Option.getOrThrow(yield* store.get("a")).creditIndex).toBe(42)
        }))
      }))

    it.scoped("refuses a taken id, and units another intent of the network can still receive", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.reserve(intent("a", { units: "5000001" }), T)).toBe("reserved")
          expect(yield* store.reserve(intent("a", { units: "5000002" }), T)).toBe("taken")
          // Same units, same network, while "a" can receive a transfer (up to and including expires).
          expect(yield* store.reserve(intent("b", { units: "5000001" }), T + 3600)).toBe("taken")
          expect(Option.isNone(yield* store.get("b"))).toBe(true)
          // Same units on another network: fine.
          expect(yield* store.reserve(intent("c", { units: "5000001", network: "othernet" }), T)).toBe("reserved")
          // Once "a" expired its units are free again, though it can still be claimed.
          expect(yield* store.reserve(intent("d", { units: "5000001", created: T + 3601, expires: T + 7201 }), T + 3601)).toBe("reserved")
          expect(Option.getOrThrow(yield* store.get("a")).intent.units).toBe("5000001")
        }))
      }))

    it.scoped("caps the intents of one name and network that can receive a transfer", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          for (let i = 0; i < MAX_OPEN_INTENTS; i++) expect(yield* store.reserve(intent(`open${i}`, { units: String(100 + i) }), T)).toBe("reserved")
          expect(yield* store.reserve(intent("one-more", { units: "99" }), T)).toBe("too_many")
          expect(Option.isNone(yield* store.get("one-more"))).toBe(true)
          // Another name, or another network: their own cap.
          expect(yield* store.reserve(intent("bob", { units: "99", name: "bob" }), T)).toBe("reserved")
          expect(yield* store.reserve(intent("elsewhere", { units: "99", network: "othernet" }), T)).toBe("reserved")
          // Once they expired, the name may make intents again.
          expect(yield* store.reserve(intent("later", { units: "98", created: T + 3601, expires: T + 7201 }), T + 3601)).toBe("reserved")
        }))
      }))

    it.scoped("does not count an intent with no name (its claim names the name) towards any cap, and keeps its null name", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          for (let i = 0; i <= MAX_OPEN_INTENTS; i++) expect(yield* store.reserve(intent(`anon${i}`, { units: String(200 + i), name: null }), T)).toBe("reserved")
          expect(Option.getOrThrow(yield* store.get("anon0")).intent.name).toBeNull()
          // Its units are held all the same.
          expect(yield* store.reserve(intent("same-units", { units: "200" }), T)).toBe("taken")
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
            expect(yield* store.reserve(intent("z", { units: "1" }), T)).toBe("taken")
          }))
        }))
    }
  })
}
