// Reads of the log that need Merkle arithmetic: roots and proofs at any size, each from
// O(log n) stored hashes (the plan-then-compute functions of src/domain/tlog), the upper
// levels of the tree from a cache of fixed size (hashCache.ts).

import { Context, Effect, Layer } from "effect"
import { consistencyProofFromHashes, consistencyProofIndexes } from "../domain/tlog/consistency.js"
import { makeTreeHasher, type Hash, type TreeHasher } from "../domain/tlog/hasher.js"
import { inclusionProofFromHashes, inclusionProofIndexes } from "../domain/tlog/inclusion.js"
import { treeHashFromHashes, treeHashIndexes } from "../domain/tlog/treeHash.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore, type BodyBesideLeaf, type EntryAndHashes } from "../ports/LogStore.js"
import { makeHashCache } from "./hashCache.js"
import type { StorageError } from "../ports/StorageError.js"

export class LogReader extends Context.Tag("aics/LogReader")<LogReader, {
  readonly hasher: TreeHasher
  /** RFC 9162 root of the first `size` leaves (size at most the committed size). */
  readonly rootAt: (size: number) => Effect.Effect<Hash, StorageError>
  /** Inclusion proof of leaf `index` in the tree of `size` leaves (index < size <= committed). */
  readonly inclusionProof: (index: number, size: number) => Effect.Effect<ReadonlyArray<Hash>, StorageError>
  /**
   * The entry bytes of leaf `index` and its inclusion proof in the tree of `size` leaves:
   * one read of the store for both (LogStore's readEntryAndHashes), the proof's hashes the
   * cache holds left out of it; with the body the leaf names when the store tells it in
   * that read (else `body` is undefined: ask the body store).
   */
  readonly entryWithProof: (index: number, size: number) => Effect.Effect<{
    readonly entry: Uint8Array
    readonly proof: ReadonlyArray<Hash>
    readonly body: BodyBesideLeaf | undefined
  }, StorageError>
  /** Consistency proof from `from` to `to` leaves (from <= to <= committed). */
  readonly consistencyProof: (from: number, to: number) => Effect.Effect<ReadonlyArray<Hash>, StorageError>
}>() {
  static readonly layer = Layer.effect(LogReader, Effect.gen(function*() {
    const store = yield* LogStore
    const crypto = yield* Crypto
    const hasher = makeTreeHasher(crypto.sha256)
    const readHashes = makeHashCache(store.readHashes)
    return {
      hasher,
      rootAt: (size) =>
        Effect.map(readHashes(treeHashIndexes(size)), (hashes) => treeHashFromHashes(hasher, size, hashes)),
      inclusionProof: (index, size) =>
        Effect.map(readHashes(inclusionProofIndexes(index, size)),
          (hashes) => inclusionProofFromHashes(hasher, index, size, hashes)),
      entryWithProof: (index, size) =>
        Effect.gen(function*() {
          let read: EntryAndHashes | undefined
          const hashes = yield* readHashes(inclusionProofIndexes(index, size), (missing) =>
            Effect.map(store.readEntryAndHashes(index, missing), (answer) => {
              read = answer
              return answer.hashes
            }))
          // Every hash was cached: the leaf (and its body) alone.
          const { entry, body } = read ?? (yield* store.readEntryAndHashes(index, []))
          return { entry, body, proof: inclusionProofFromHashes(hasher, index, size, hashes) }
        }),
      consistencyProof: (from, to) =>
        Effect.map(readHashes(consistencyProofIndexes(from, to)),
          (hashes) => consistencyProofFromHashes(hasher, from, to, hashes))
    }
  }))
}
