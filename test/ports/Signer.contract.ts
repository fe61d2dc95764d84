// The Signer contract (src/ports/Signer.ts): two distinct Ed25519 keys, log and policy,
// whose 64-byte signatures verify with their 32-byte public keys under both Crypto
// adapters, since auditors check them with @noble while the server runs node:crypto.
// A durable adapter (FileKeys) gives the same keys when reopened; every new instance
// (a new data dir) gets keys of its own.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import fc from "fast-check"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { toHex, utf8 } from "../../src/domain/bytes.js"
import { Signer, type SigningKey } from "../../src/ports/Signer.js"

export interface SignerUnderTest {
  /**
   * A new signer with keys of its own (a new data dir...), removed when the scope closes,
   * and the layer that opens it. Building the layer again reopens the same keys when `durable`.
   */
  readonly fresh: Effect.Effect<Layer.Layer<Signer, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

type Keys = typeof Signer.Service

const open = (layer: Layer.Layer<Signer, unknown>) => Effect.provide(Signer, layer)

const publicKeysOf = (keys: Keys) => ({ log: toHex(keys.log.publicKey), policy: toHex(keys.policy.publicKey) })

/** Both Crypto adapters agree on the answer; returns it. */
const verifies = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean => {
  const byNode = nodeCrypto.ed25519.verify(publicKey, message, signature)
  expect(nobleCrypto.ed25519.verify(publicKey, message, signature)).toBe(byNode)
  return byNode
}

const MESSAGES = [new Uint8Array(0), Uint8Array.of(0), utf8("checkpoint\n42\n"), new Uint8Array(100_000).fill(7)]

const expectSignsWell = (key: SigningKey, other: SigningKey) =>
  Effect.gen(function*() {
    for (const message of MESSAGES) {
      const signature = yield* key.sign(message)
      expect(signature).toBeInstanceOf(Uint8Array)
      expect(signature).toHaveLength(64)
      expect(verifies(key.publicKey, message, signature)).toBe(true)
      // Not the other role's signature, and not a signature of another message.
      expect(verifies(other.publicKey, message, signature)).toBe(false)
      expect(verifies(key.publicKey, utf8("something else"), signature)).toBe(false)
      // Ed25519 signing is deterministic (RFC 8032 5.1.6).
      expect(toHex(yield* key.sign(message))).toBe(toHex(signature))
    }
  })

export const signerContract = (name: string, adapter: SignerUnderTest): void => {
  describe(`Signer contract: ${name}`, () => {
    it.scoped("holds two distinct 32-byte Ed25519 public keys", () =>
      Effect.gen(function*() {
        const keys = yield* open(yield* adapter.fresh)
        for (const key of [keys.log, keys.policy]) {
          expect(key.publicKey).toBeInstanceOf(Uint8Array)
          expect(key.publicKey).toHaveLength(32)
        }
        expect(toHex(keys.log.publicKey)).not.toBe(toHex(keys.policy.publicKey))
        // A key reads the same every time it is asked.
        expect(toHex(keys.log.publicKey)).toBe(toHex(keys.log.publicKey))
      }))

    it.scoped("signs with each key: 64 bytes that verify under node:crypto and @noble", () =>
      Effect.gen(function*() {
        const keys = yield* open(yield* adapter.fresh)
        yield* expectSignsWell(keys.log, keys.policy)
        yield* expectSignsWell(keys.policy, keys.log)
      }))

    it.scoped("signs any message, also concurrently", () =>
      Effect.gen(function*() {
        const keys = yield* open(yield* adapter.fresh)
        const messages = fc.sample(fc.uint8Array({ maxLength: 2_000 }), { numRuns: 100, seed: 7 })
        const signatures = yield* Effect.forEach(messages, (message, i) => (i % 2 === 0 ? keys.log : keys.policy).sign(message), {
          concurrency: "unbounded"
        })
        signatures.forEach((signature, i) => {
          const key = i % 2 === 0 ? keys.log : keys.policy
          expect(verifies(key.publicKey, messages[i]!, signature)).toBe(true)
        })
      }))

    it.scoped("a new signer has keys of its own", () =>
      Effect.gen(function*() {
        const a = publicKeysOf(yield* open(yield* adapter.fresh))
        const b = publicKeysOf(yield* open(yield* adapter.fresh))
        expect(new Set([a.log, a.policy, b.log, b.policy]).size).toBe(4)
      }))

    if (adapter.durable) {
      it.scoped("a reopened signer holds the same keys", () =>
        Effect.gen(function*() {
          const layer = yield* adapter.fresh
          const first = yield* open(layer)
          const message = utf8("signed before the reopen")
          const signature = yield* first.log.sign(message)
          const again = yield* open(layer)
          expect(publicKeysOf(again)).toEqual(publicKeysOf(first))
          expect(verifies(again.log.publicKey, message, signature)).toBe(true)
          expect(toHex(yield* again.log.sign(message))).toBe(toHex(signature))
          expect(publicKeysOf(yield* open(layer))).toEqual(publicKeysOf(first))
        }))
    }
  })
}
