// The BodyStore contract (src/ports/BodyStore.ts), as tests every adapter must pass. The
// suite only talks to the port, through a layer the adapter's test file supplies, and
// removes under the fence of a lease that the store's own kind of deployment grants (what a
// later lease does to a remove needs several sessions: the PostgreSQL tests check it). Every
// check of a body asks get, getMany and has, so they answer alike through puts, removes and
// reopening.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, Option, type Layer, type Scope } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { toHex, utf8 } from "../../src/domain/bytes.js"
import { BodyStore, type StoredBody } from "../../src/ports/BodyStore.js"
import type { LeaseFence } from "../../src/ports/LeaseFence.js"

export interface BodyStoreUnderTest {
  /** A new, empty store, removed when the scope closes. */
  readonly fresh: Effect.Effect<FreshBodyStore, unknown, Scope.Scope>
  readonly durable: boolean
}

export interface FreshBodyStore {
  /** The layer that opens the store; building it again reopens the same store when `durable`. */
  readonly open: Layer.Layer<BodyStore, unknown>
  /** Takes the sequencing lease of the store's deployment, held until the scope closes; answers its fence. */
  readonly lease: Effect.Effect<LeaseFence, unknown, Scope.Scope>
}

type Store = typeof BodyStore.Service

const withStore = <A, E, R>(open: Layer.Layer<BodyStore, unknown>, use: (store: Store) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(BodyStore, use).pipe(Effect.provide(open))

const body = (text: string): StoredBody => {
  const bytes = utf8(text)
  return { digest: nodeCrypto.sha256(bytes), bytes }
}

/** get answers the bytes exactly when present, and getMany and has agree with it. */
const expectBody = (store: Store, expected: StoredBody, present: boolean) =>
  Effect.all([store.get(expected.digest), store.getMany([expected.digest]), store.has(expected.digest)]).pipe(Effect.map(([found, many, has]) => {
    expect(Option.map(found, toHex)).toEqual(present ? Option.some(toHex(expected.bytes)) : Option.none())
    expect(many.map((one) => Option.map(one, toHex))).toEqual([Option.map(found, toHex)])
    expect(has).toBe(present)
  }))

export const bodyStoreContract = (name: string, adapter: BodyStoreUnderTest): void => {
  describe(`BodyStore contract: ${name}`, () => {
    it.scoped("puts a batch and gets each body back", () =>
      Effect.gen(function*() {
        const { open } = yield* adapter.fresh
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const bodies = Array.from({ length: 40 }, (_, i) => body(`body ${i} `.repeat(i + 1)))
            const empty = { digest: nodeCrypto.sha256(new Uint8Array(0)), bytes: new Uint8Array(0) }
            yield* expectBody(store, bodies[0]!, false)
            yield* store.put([...bodies, empty])
            yield* store.put([])
            for (const b of bodies) yield* expectBody(store, b, true)
            yield* expectBody(store, empty, true)
            yield* expectBody(store, body("never put"), false)
          }))
      }))

    it.scoped("getMany answers each digest in the order asked, twice when asked twice, none when absent", () =>
      Effect.gen(function*() {
        const { open } = yield* adapter.fresh
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const bodies = Array.from({ length: 60 }, (_, i) => body(`page body ${i} `.repeat(1 + (i % 7))))
            yield* store.put(bodies)
            expect(yield* store.getMany([])).toEqual([])
            const absent = body("not on this page")
            const asked = [bodies[59]!, absent, bodies[3]!, bodies[3]!, ...bodies.slice(10, 40), absent]
            const found = yield* store.getMany(asked.map((b) => b.digest))
            expect(found.map((one) => Option.map(one, toHex))).toEqual(
              asked.map((b) => (b === absent ? Option.none() : Option.some(toHex(b.bytes)))))
          }))
      }))

    it.scoped("put refuses a body whose SHA-256 is not its digest, storing nothing of the batch", () =>
      Effect.gen(function*() {
        const { open } = yield* adapter.fresh
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const good = body("good")
            const lying = { digest: body("claimed").digest, bytes: utf8("other bytes") }
            const result = yield* Effect.either(store.put([good, lying]))
            expect(result._tag).toBe("Left")
            yield* expectBody(store, good, false)
            yield* expectBody(store, body("claimed"), false)
          }))
      }))

    it.scoped("put is idempotent, within a batch and across batches", () =>
      Effect.gen(function*() {
        const { open } = yield* adapter.fresh
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const a = body("a")
            yield* store.put([a, a])
            yield* store.put([a, body("b")])
            yield* expectBody(store, a, true)
            yield* expectBody(store, body("b"), true)
          }))
      }))

    it.scoped("remove under the current lease deletes a batch, idempotently, and a body can come back", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const [a, b, c] = [body("a"), body("b"), body("c")]
            yield* store.put([a, b, c])
            expect(yield* store.remove([a.digest, c.digest], fence)).toBe("removed")
            yield* expectBody(store, a, false)
            yield* expectBody(store, b, true)
            yield* expectBody(store, c, false)
            expect(yield* store.remove([a.digest, a.digest, body("never put").digest], fence)).toBe("removed")
            expect(yield* store.remove([], fence)).toBe("removed")
            yield* expectBody(store, b, true)
            yield* store.put([a])
            yield* expectBody(store, a, true)
          }))
      }))

    it.scoped("refuses digests that are not 32 bytes, removing nothing of a batch that holds one", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const short = { digest: new Uint8Array(31), bytes: utf8("x") }
            const kept = body("kept")
            yield* store.put([kept])
            const attempts = [store.put([short]), store.get(short.digest), store.getMany([kept.digest, short.digest]), store.has(short.digest), store.remove([kept.digest, short.digest], fence)]
            for (const attempt of attempts) {
              const error = yield* Effect.flip(attempt)
              expect(error._tag).toBe("StorageError")
            }
            yield* expectBody(store, kept, true)
          }))
      }))

    if (adapter.durable) {
      it.scoped("a reopened store has the same bodies", () =>
        Effect.gen(function*() {
          const { open, lease } = yield* adapter.fresh
          const fence = yield* lease
          const [a, b] = [body("kept"), body("removed")]
          yield* withStore(open, (store) =>
            Effect.gen(function*() {
              yield* store.put([a, b])
              expect(yield* store.remove([b.digest], fence)).toBe("removed")
            }))
          yield* withStore(open, (store) =>
            Effect.gen(function*() {
              yield* expectBody(store, a, true)
              yield* expectBody(store, b, false)
            }))
        }))
    }
  })
}
