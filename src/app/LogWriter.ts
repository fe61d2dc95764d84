// The only way leaves enter the log. It keeps the tree's right edge (the frontier) in
// memory, so appending never reads the store: each batch costs its hashing and one durable
// LogStore.append. It refuses to write while the log is marked diverged (LogHealth),
// and it announces every new size so the publisher can wake up.
//
// With several processes on one database (docs/protocol.md section 14) another process may
// append: `refresh` reloads the frontier from the store's stored hashes (O(log n) reads)
// when the store has grown, and announces the new size like an append of its own. Every
// append carries the fence of the lease its caller writes under (the sequencer's, or the
// charter's at first start): a store shared by several processes appends nothing once a
// later lease exists, and the append fails with LeaseSuperseded, the frontier unchanged
// (src/ports/LogStore.ts; docs/operations.md, "The log's appends").

import { Context, Effect, Layer, Ref, SubscriptionRef } from "effect"
import { appendLeaf, frontierFromHashes, frontierIndexes, frontierRoot, type Frontier } from "../domain/tlog/frontier.js"
import { makeTreeHasher, type Hash } from "../domain/tlog/hasher.js"
import { Crypto } from "../ports/Crypto.js"
import type { LeaseFence, LeaseSuperseded } from "../ports/LeaseFence.js"
import { LogStore, type AppendedLeaf, type NamedBody } from "../ports/LogStore.js"
import { StorageError } from "../ports/StorageError.js"
import { LogHealth } from "./LogHealth.js"

export interface AppendResult {
  /** Index of the first leaf of the batch. */
  readonly start: number
  readonly leafHashes: ReadonlyArray<Hash>
}

export class LogWriter extends Context.Tag("aics/LogWriter")<LogWriter, {
  /** Committed size, updated after each durable append. */
  readonly size: SubscriptionRef.SubscriptionRef<number>
  /**
   * Durably appends the entries at the next indexes under the lease of `fence`; `start` must
   * be the current size. Fails with LeaseSuperseded, having appended nothing, once a later
   * lease exists.
   */
  readonly append: (
    start: number,
    entries: ReadonlyArray<Uint8Array>,
    fence: LeaseFence,
    /** The body each entry names, in the same order (undefined for none), for the store to keep beside the leaf. */
    named?: ReadonlyArray<NamedBody | undefined>
  ) => Effect.Effect<AppendResult, StorageError | LeaseSuperseded>
  /** Reloads the frontier if another process appended; answers the committed size. */
  readonly refresh: Effect.Effect<number, StorageError>
  /** Root of the committed tree, from the frontier (no store read). */
  readonly root: Effect.Effect<{ readonly size: number; readonly root: Hash }>
}>() {
  static readonly layer = Layer.effect(LogWriter, Effect.gen(function*() {
    const store = yield* LogStore
    const crypto = yield* Crypto
    const health = yield* LogHealth
    const hasher = makeTreeHasher(crypto.sha256)

    const initialSize = yield* store.size
    const frontier = yield* Ref.make<Frontier>(
      frontierFromHashes(initialSize, yield* store.readHashes(frontierIndexes(initialSize))))
    const size = yield* SubscriptionRef.make(initialSize)
    // One writer at a time: the frontier and the store's size move together.
    const lock = yield* Effect.makeSemaphore(1)

    const append = (start: number, entries: ReadonlyArray<Uint8Array>, fence: LeaseFence, named?: ReadonlyArray<NamedBody | undefined>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const diverged = yield* health.diverged
        if (diverged !== undefined) {
          return yield* new StorageError({ operation: "append", detail: `log refuses new leaves: ${diverged}` })
        }
        let next = yield* Ref.get(frontier)
        if (start !== next.size) {
          return yield* new StorageError({ operation: "append", detail: `append at ${start} but the log has ${next.size} leaves` })
        }
        const leaves: Array<AppendedLeaf> = []
        const leafHashes: Array<Hash> = []
        for (const [i, bytes] of entries.entries()) {
          const leafHash = hasher.leafHash(bytes)
          const step = appendLeaf(hasher, next, leafHash)
          next = step.frontier
          leaves.push({ bytes, hashes: step.stored, body: named?.[i] })
          leafHashes.push(leafHash)
        }
        yield* store.append(start, leaves, fence)
        yield* Ref.set(frontier, next)
        yield* SubscriptionRef.set(size, next.size)
        return { start, leafHashes }
      }))

    const refresh = lock.withPermits(1)(Effect.gen(function*() {
      const stored = yield* store.size
      const known = (yield* Ref.get(frontier)).size
      if (stored <= known) return known
      yield* Ref.set(frontier, frontierFromHashes(stored, yield* store.readHashes(frontierIndexes(stored))))
      yield* SubscriptionRef.set(size, stored)
      return stored
    }))

    return {
      size,
      append,
      refresh,
      root: Effect.map(Ref.get(frontier), (f) => ({ size: f.size, root: frontierRoot(hasher, f) }))
    }
  }))
}
