// BodyStore in memory, for fast tests of the application layer: the same contract as
// FsBodyStore (digests of 32 bytes that hash the bytes, put idempotent, remove idempotent),
// without durability. remove takes the lease's fence without checking it: the store is one
// process's, whose sequencer keeps its own batches and retention apart and never loses its
// lease to another process (src/ports/BodyStore.ts).

import { Effect, Layer, Option } from "effect"
import { equal } from "../../domain/bytes.js"
import { BodyStore, type StoredBody } from "../../ports/BodyStore.js"
import { Crypto } from "../../ports/Crypto.js"
import { StorageError } from "../../ports/StorageError.js"
import { digestName, digestNames } from "../fs/bodyName.js"

export const MemoryBodyStoreLive: Layer.Layer<BodyStore, never, Crypto> = Layer.effect(BodyStore, Effect.gen(function*() {
  const { sha256 } = yield* Crypto
  const bodies = new Map<string, Uint8Array>()
  const getMany = (digests: ReadonlyArray<Uint8Array>) =>
    Effect.suspend(() => {
      const names = digestNames("get", digests)
      if (names instanceof StorageError) return Effect.fail(names)
      return Effect.succeed(names.map((name) => Option.map(Option.fromNullable(bodies.get(name)), (bytes) => bytes.slice())))
    })
  return BodyStore.of({
    put: (batch: ReadonlyArray<StoredBody>) =>
      Effect.suspend(() => {
        const named: Array<[string, Uint8Array]> = []
        for (const body of batch) {
          const name = digestName("put", body.digest)
          if (name instanceof StorageError) return Effect.fail(name)
          if (!equal(sha256(body.bytes), body.digest)) {
            return Effect.fail(new StorageError({ operation: "put", detail: `the bytes do not hash to ${name}` }))
          }
          named.push([name, body.bytes])
        }
        for (const [name, bytes] of named) if (!bodies.has(name)) bodies.set(name, bytes.slice())
        return Effect.void
      }),
    get: (digest) => Effect.map(getMany([digest]), ([body]) => body!),
    getMany,
    has: (digest) =>
      Effect.suspend(() => {
        const name = digestName("has", digest)
        return name instanceof StorageError ? Effect.fail(name) : Effect.succeed(bodies.has(name))
      }),
    remove: (digests) =>
      Effect.suspend(() => {
        const names = digestNames("remove", digests)
        if (names instanceof StorageError) return Effect.fail(names)
        for (const name of names) bodies.delete(name)
        return Effect.succeed("removed" as const)
      }),
    shortfallAtOpen: undefined
  })
}))
