// The GateSecrets contract (src/ports/GateSecrets.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { describe, expect } from "vitest"
import { GateSecrets } from "../../src/ports/GateSecrets.js"

export interface GateSecretsUnderTest {
  /** A new, empty store and the layer that opens it (again, when durable). */
  readonly fresh: Effect.Effect<Layer.Layer<GateSecrets, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

const withSecrets = <A, E>(layer: Layer.Layer<GateSecrets, unknown>, use: (s: typeof GateSecrets.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(GateSecrets, use).pipe(Effect.provide(layer)))

export const gateSecretsContract = (name: string, adapter: GateSecretsUnderTest): void => {
  describe(`GateSecrets contract: ${name}`, () => {
    it.scoped("stores a verifier per name and claim leaf, the first one for good", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withSecrets(layer, (secrets) => Effect.gen(function*() {
          expect(yield* secrets.get("carol", 7)).toBeUndefined()
          expect(yield* secrets.put("carol", 7, "scrypt$first")).toBe(true)
          expect(yield* secrets.put("carol", 7, "scrypt$second")).toBe(false)
          expect(yield* secrets.get("carol", 7)).toBe("scrypt$first")
          // Another claim leaf of the name (never in one log) and another name are other pairs.
          expect(yield* secrets.get("carol", 8)).toBeUndefined()
          expect(yield* secrets.put("dave", 7, "scrypt$dave")).toBe(true)
          expect(yield* secrets.get("dave", 7)).toBe("scrypt$dave")
        }))
      }))

    it.scoped("answers true to exactly one of concurrent puts of one pair", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withSecrets(layer, (secrets) => Effect.gen(function*() {
          const answers = yield* Effect.forEach([0, 1, 2, 3, 4, 5], (i) => secrets.put("erin", 3, `scrypt$${i}`), { concurrency: "unbounded" })
          expect(answers.filter((a) => a)).toHaveLength(1)
          expect(yield* secrets.get("erin", 3)).toBe(`scrypt$${answers.indexOf(true)}`)
        }))
      }))

    it.scoped("removes a pair's verifier, and removing none is fine", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withSecrets(layer, (secrets) => Effect.gen(function*() {
          yield* secrets.put("fred", 4, "scrypt$fred")
          yield* secrets.put("gina", 4, "scrypt$gina")
          yield* secrets.remove("fred", 4)
          expect(yield* secrets.get("fred", 4)).toBeUndefined()
          expect(yield* secrets.get("gina", 4)).toBe("scrypt$gina")
          yield* secrets.remove("fred", 4)
          yield* secrets.remove("nobody", 9)
        }))
        if (adapter.durable) {
          yield* withSecrets(layer, (secrets) => Effect.gen(function*() {
            expect(yield* secrets.get("fred", 4)).toBeUndefined()
          }))
        }
      }))

    if (adapter.durable) {
      it.scoped("keeps every verifier across a reopen", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          yield* withSecrets(layer, (secrets) => secrets.put("carol", 7, "scrypt$kept"))
          yield* withSecrets(layer, (secrets) => Effect.gen(function*() {
            expect(yield* secrets.get("carol", 7)).toBe("scrypt$kept")
            expect(yield* secrets.put("carol", 7, "scrypt$later")).toBe(false)
          }))
        }))
    }
  })
}
