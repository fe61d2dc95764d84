// LogStore on a local folder: three append-only files (logLayout.ts) written with
// positional I/O, durable before an append returns (the files are open with O_DSYNC).
//
// Opening runs recovery (logRecovery.ts): the files may disagree after a crash, but only
// in the group of leaves that was being written, and recovery settles them on the longest
// prefix of whole, verified leaves, which contains every acknowledged batch. Its cost is
// bounded by MAX_UNSYNCED_LEAVES, not by the size of the log. Then it opens the findLeaf
// index, a SQLite file beside the three (leafFinder.ts), and indexes the leaves it lacks:
// the tail since it last caught up, not the log.
//
// append(start, leaves, fence):
//   - refuses a batch that does not start at the committed size or is malformed
//     (appendCheck.ts), before writing anything;
//   - writes the batch in groups of at most MAX_UNSYNCED_LEAVES leaves (one group for any
//     realistic batch): per group one buffer and one positional, synchronous-to-disk write
//     per file, the three in parallel (logAppend.ts). Group commit across callers is the
//     caller's job; it passes whole batches;
//   - only after the last write moves the committed end, which makes the batch visible to
//     reads and findLeaf, wakes the leaf indexer (which indexes the batch after the append
//     returned), and returns. The last leaves appended are also kept in memory
//     (recentEntries.ts) for the readers that follow the writer.
// Appends are serialized by a semaphore and are uninterruptible once started, so a write
// never runs after its caller gave up, racing the next append at the same offset. If a
// write or sync fails, the page cache can no longer be trusted to match the disk (an fsync
// error may drop dirty pages), so the store refuses every later append; reopening runs
// recovery on what the disk really holds.
//
// One process per folder: the store does not lock the folder against a second writer. So the
// lease's fence is taken and not checked: that process's sequencer is the only appender, and
// its lease is never lost to another process (src/ports/LogStore.ts).

import { Effect, Layer, Option } from "effect"
import { HASH_SIZE, makeTreeHasher, type Hash } from "../../domain/tlog/hasher.js"
import { Crypto } from "../../ports/Crypto.js"
import { LogStore, readEntryAndHashesInTurn, type AppendedLeaf } from "../../ports/LogStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { checkAppend } from "./appendCheck.js"
import { openLeafFinder } from "./leafFinder.js"
import { writeGroup, type LogEnd } from "./logAppend.js"
import { openLogFiles } from "./logFiles.js"
import { MAX_UNSYNCED_LEAVES } from "./logLayout.js"
import { readEntries, readHashes, readHashRange } from "./logReads.js"
import { recoverLog } from "./logRecovery.js"
import { makeRecentEntries } from "./recentEntries.js"

export const FsLogStoreLive = (directory: string): Layer.Layer<LogStore, StorageError, Crypto> =>
  Layer.scoped(
    LogStore,
    Effect.gen(function*() {
      const hasher = makeTreeHasher((yield* Crypto).sha256)
      const files = yield* openLogFiles(directory)
      let committed: LogEnd = yield* recoverLog(files, hasher)
      const finder = yield* openLeafFinder(directory, files.hashes, () => committed.size)
      let unusable: StorageError | undefined
      const recent = makeRecentEntries()

      const appends = yield* Effect.makeSemaphore(1)
      // Finalizers run in reverse order, so this one, added after the files were opened,
      // runs before they are closed: it waits for a running append, then refuses new ones.
      yield* Effect.addFinalizer(() =>
        appends.withPermits(1)(Effect.sync(() => {
          unusable = new StorageError({ operation: "append", detail: "the log store is closed" })
        }))
      )

      const writeBatch = (leaves: ReadonlyArray<AppendedLeaf>) =>
        Effect.gen(function*() {
          let end = committed
          for (let from = 0; from < leaves.length; from += MAX_UNSYNCED_LEAVES) {
            end = yield* writeGroup(files, end, leaves.slice(from, from + MAX_UNSYNCED_LEAVES))
          }
          // Durable: publish the new end, then let the indexer index up to it (findLeaf
          // scans what it has not indexed yet).
          const start = committed.size
          committed = end
          finder.wake()
          recent.add(start, leaves.map((leaf) => leaf.bytes))
        })

      const append = (start: number, leaves: ReadonlyArray<AppendedLeaf>) =>
        appends.withPermits(1)(Effect.uninterruptible(Effect.suspend(() => {
          if (unusable !== undefined) return Effect.fail(unusable)
          const refused = checkAppend(hasher, committed.size, start, leaves)
          if (refused !== undefined) return Effect.fail(refused)
          if (leaves.length === 0) return Effect.void
          return writeBatch(leaves).pipe(
            Effect.tapError((error) =>
              Effect.sync(() => {
                unusable = new StorageError({
                  operation: "append",
                  detail: `refusing appends after a failed write (${error.detail}); reopen the store`,
                  cause: error
                })
              })
            )
          )
        })))

      const findLeaf = (leafHash: Hash) =>
        Effect.suspend(() => (leafHash.length === HASH_SIZE ? finder.find(leafHash, committed.size) : Effect.succeed(Option.none<number>())))

      const reads = {
        readEntries: (from: number, to: number) =>
          Effect.suspend(() => {
            const kept = to <= committed.size ? recent.get(from, to) : undefined
            return kept !== undefined ? Effect.succeed(kept) : readEntries(files, committed, from, to)
          }),
        readHashes: (indexes: ReadonlyArray<number>) => Effect.suspend(() => readHashes(files, committed, indexes))
      }

      return LogStore.of({
        size: Effect.sync(() => committed.size),
        append,
        ...reads,
        readEntryAndHashes: readEntryAndHashesInTurn(reads),
        readHashRange: (from, to) => Effect.suspend(() => readHashRange(files, committed, from, to)),
        findLeaf
      })
    })
  )
