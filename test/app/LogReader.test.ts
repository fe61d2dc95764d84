// LogReader's entryWithProof (src/app/LogReader.ts): the leaf and the inclusion proof that
// readEntries and inclusionProof give, in one read of the store (readEntryAndHashes), the
// hashes the cache already holds left out of that read.

import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { LogReader } from "../../src/app/LogReader.js"
import { toHex } from "../../src/domain/bytes.js"
import { inclusionProofIndexes, verifyInclusion } from "../../src/domain/tlog/inclusion.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { soleProcessLease } from "../support/leases.js"
import { entryBytes, LogModel } from "../ports/LogStore.contract.js"

describe("LogReader.entryWithProof", () => {
  it.scoped("answers readEntries' leaf and inclusionProof's proof, reading the store once, and only the leaf (with its body, where the store tells it) when every hash is cached", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      // The memory store, with its reads written down.
      const counted = Layer.effect(LogStore, Effect.map(LogStore, (store) => LogStore.of({
        ...store,
        readEntries: (from, to) => Effect.zipRight(Effect.sync(() => calls.push(`entries ${from}`)), store.readEntries(from, to)),
        readHashes: (indexes) => Effect.zipRight(Effect.sync(() => calls.push(`hashes ${indexes.length}`)), store.readHashes(indexes)),
        readEntryAndHashes: (index, hashes) =>
          Effect.zipRight(Effect.sync(() => calls.push(`entry and hashes ${index} ${hashes.length}`)), store.readEntryAndHashes(index, hashes))
      }))).pipe(Layer.provide(MemoryLogStoreLive))
      const services = yield* Layer.build(Layer.provideMerge(LogReader.layer, counted).pipe(Layer.provide(NodeCryptoLive)))
      const store = services.unsafeMap.get(LogStore.key) as typeof LogStore.Service
      const reader = services.unsafeMap.get(LogReader.key) as typeof LogReader.Service

      const model = new LogModel()
      const size = 37
      yield* store.append(0, model.add(Array.from({ length: size }, (_, seed) => entryBytes(seed, 20 + seed))), yield* soleProcessLease)

      // Nothing cached yet: one read brings the leaf and every stored hash of the proof.
      const { entry, proof } = yield* reader.entryWithProof(5, size)
      expect(calls).toEqual([`entry and hashes 5 ${inclusionProofIndexes(5, size).length}`])
      expect(toHex(entry)).toBe(toHex(model.entries[5]!))
      // Asked again, the proof's hashes are all cached: the leaf alone is read, no hash.
      calls.length = 0
      const again = yield* reader.entryWithProof(5, size)
      expect(calls).toEqual(["entry and hashes 5 0"])
      // The memory store keeps no body beside its leaves: the caller asks the body store.
      expect(again.body).toBeUndefined()
      expect(toHex(again.entry)).toBe(toHex(entry))
      expect(again.proof.map(toHex)).toEqual(proof.map(toHex))

      // Every leaf: what readEntries and inclusionProof answer, a proof that verifies.
      const root = yield* reader.rootAt(size)
      for (let index = 0; index < size; index++) {
        const read = yield* reader.entryWithProof(index, size)
        expect(toHex(read.entry)).toBe(toHex((yield* store.readEntries(index, index + 1))[0]!))
        expect(read.proof.map(toHex)).toEqual((yield* reader.inclusionProof(index, size)).map(toHex))
        expect(verifyInclusion(reader.hasher, index, size, reader.hasher.leafHash(read.entry), read.proof, root)).toBe(true)
      }
    }))
})
