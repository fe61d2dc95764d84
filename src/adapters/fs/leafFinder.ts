// FsLogStore's findLeaf (leaf hash -> first leaf index) over an index on disk, so that
// neither its memory nor the store's start grows with the log (issue 12).
//
// The index is a cache; the log's files are the truth. As Sunlight keeps its dedup cache:
//   - the sidecar (leafSidecar.ts, `leaf-index.db` beside the log's files) holds the leaf
//     hashes' 8-byte prefixes of leaves [0, indexed), written only after those leaves are
//     durable: it indexes leaves below the store's committed end, never the batch being
//     written, so a crash can leave it behind the log but never ahead of what the log holds;
//   - it is never trusted beyond the log's size: at open `indexed` is lowered to the size
//     if above it (a log restored from an older backup than the sidecar), and a lookup only
//     asks for leaves below both;
//   - a candidate is only a prefix match: every answer is confirmed against the full leaf
//     hash stored in the hashes file, so a stale or foreign row can cost a read, never a
//     wrong answer. What a bad sidecar could cost is a missed leaf, so at open the row of
//     the last leaf it claims is checked against the log's leaf hash, and a sidecar without
//     it (another log's) is moved aside as a damaged one is, and rebuilt;
//   - at open it indexes the tail [indexed, size), reading only that span of the hashes
//     file: after a clean close nothing, after a crash the few batches the indexer had not
//     reached, after the sidecar was lost the whole log (said loudly);
//   - then new leaves are indexed by a fiber of their own (sidecarIndexer.ts), after the
//     append that made them durable has returned: the append's caller does not wait for
//     SQLite. Woken by an append, it lets leaves gather for INDEX_LINGER, then indexes
//     everything committed by then, in transactions of up to INDEX_CHUNK leaves. A lookup meanwhile asks the sidecar
//     for leaves below `indexed` and scans the unindexed tail [indexed, size) in the hashes
//     file (a quarter second of leaves, still in the page cache), so findLeaf sees a leaf
//     from the moment its append returns. Should indexing fail (a full disk), it says so
//     once, the tail stays scanned, and the next append retries.
// This is safe off the append's path because nothing depends on the index being current:
// it only ever lags the log, and what it lacks is read from the log itself.

import type { FileHandle } from "node:fs/promises"
import { join } from "node:path"
import type { Scope } from "effect"
import { Effect, Option } from "effect"
import { equal } from "../../domain/bytes.js"
import { HASH_SIZE, type Hash } from "../../domain/tlog/hasher.js"
import { storedHashIndex } from "../../domain/tlog/storedHash.js"
import type { StorageError } from "../../ports/StorageError.js"
import { readExactly } from "./fileIo.js"
import { readLeafHashes } from "./leafHashes.js"
import { LEAF_INDEX_FILE, leafPrefix, type LeafSidecar, openLeafSidecar } from "./leafSidecar.js"
import { catchUpAtOpen, forkIndexer, INDEX_CHUNK } from "./sidecarIndexer.js"

export interface LeafFinder {
  /** The first leaf below `size` with this leaf hash. */
  readonly find: (leafHash: Hash, size: number) => Effect.Effect<Option.Option<number>, StorageError>
  /** Says that leaves were committed: the indexer catches up with `committedSize()`. */
  readonly wake: () => void
}

/**
 * The finder of the log in `directory` whose hashes file is `hashes` and whose committed
 * size, after recovery, is `committedSize()`; it indexes up to that size before it returns.
 */
export const openLeafFinder = (
  directory: string,
  hashes: FileHandle,
  committedSize: () => number
): Effect.Effect<LeafFinder, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const leafHashAt = (leaf: number) => readExactly(hashes, HASH_SIZE, HASH_SIZE * storedHashIndex(0, leaf), "hashes")
    const sidecar: LeafSidecar = yield* openLeafSidecar(join(directory, LEAF_INDEX_FILE), (opened) =>
      Effect.gen(function*() {
        const last = Math.min(yield* opened.indexed, committedSize()) - 1
        if (last < 0) return undefined
        const held = yield* opened.holds(leafPrefix(yield* leafHashAt(last)), last)
        return held ? undefined : `it lacks leaf ${last} of this log`
      }))

    // Written only when the sidecar claims more than the log holds; should that fail (a full
    // disk), the count in memory is cut all the same and indexing waits for a restart.
    yield* sidecar.clamp(committedSize()).pipe(Effect.catchAll((error) =>
      Effect.logError(`leaf index: cannot cut its count back to the log's ${committedSize()} leaves (${error.detail})`)))
    let indexed = Math.min(yield* sidecar.indexed, committedSize())

    /** Indexes leaves [indexed, target) in transactions of INDEX_CHUNK; one runs at a time. */
    const catchUp = (target: number) =>
      Effect.gen(function*() {
        while (indexed < target) {
          const to = Math.min(target, indexed + INDEX_CHUNK)
          const leafHashes = yield* readLeafHashes(hashes, indexed, to)
          // The count in memory moves with the committed one, even if the indexer is
          // interrupted (the store closing) as the transaction commits.
          yield* Effect.uninterruptible(Effect.tap(sidecar.record(indexed, leafHashes), () => {
            indexed = to
          }))
        }
      })

    yield* catchUpAtOpen({
      from: indexed,
      to: committedSize(),
      catchUp: Effect.suspend(() => catchUp(committedSize())),
      reached: () => indexed,
      name: "leaf index",
      units: "leaves",
      unit: "leaf",
      store: "the log",
      meanwhile: "findLeaf reads the rest from the hashes file until the indexer catches up"
    })

    const wake = yield* forkIndexer({
      backlog: () => committedSize() - indexed,
      catchUp: Effect.suspend(() => catchUp(committedSize())),
      failing: (error) => `leaf index: cannot index past leaf ${indexed} (${error.detail}); findLeaf reads the leaves after it from the hashes file, and the next append retries`,
      resumed: () => `leaf index: indexing again, up to leaf ${indexed}`
    })

    const find = (leafHash: Hash, size: number) =>
      Effect.gen(function*() {
        // Read before anything yields: the sidecar holds every leaf below it from now on.
        const below = Math.min(indexed, size)
        for (const candidate of yield* sidecar.candidates(leafPrefix(leafHash), below)) {
          if (equal(yield* leafHashAt(candidate), leafHash)) return Option.some(candidate)
        }
        for (let from = below; from < size; from += INDEX_CHUNK) {
          const found = (yield* readLeafHashes(hashes, from, Math.min(size, from + INDEX_CHUNK))).findIndex((hash) => equal(hash, leafHash))
          if (found >= 0) return Option.some(from + found)
        }
        return Option.none<number>()
      })

    return { find, wake }
  })
