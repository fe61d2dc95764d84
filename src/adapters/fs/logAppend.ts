// Writing one group of leaves to FsLogStore's files (logLayout.ts) durably: one buffer per
// file, written at the committed end of that file by position, then fdatasync. The three
// files are written and synced in parallel; the group is durable only when all three
// syncs are done, and recovery (logRecovery.ts) handles any crash before that.
// fdatasync is enough: it also flushes the file size, the only metadata a read needs.

import type { FileHandle } from "node:fs/promises"
import { Effect } from "effect"
import { HASH_SIZE } from "../../domain/tlog/hasher.js"
import { storedHashCount } from "../../domain/tlog/storedHash.js"
import type { AppendedLeaf } from "../../ports/LogStore.js"
import type { StorageError } from "../../ports/StorageError.js"
import { attempt, writeFully } from "./fileIo.js"
import type { LogFiles } from "./logFiles.js"
import { encodeRecord, OFFSET_SIZE, recordSize, writeUint64 } from "./logLayout.js"

export interface LogEnd {
  readonly size: number
  readonly leavesEnd: number
}

const writeAndSync = (handle: FileHandle, name: string, bytes: Uint8Array, position: number) =>
  attempt("append", `${name} at byte ${position}`, async () => {
    await writeFully(handle, bytes, position)
    await handle.datasync()
  })

/** Appends the leaves after `end` and syncs; returns the new end. The caller checked the batch. */
export const writeGroup = (
  files: LogFiles,
  end: LogEnd,
  leaves: ReadonlyArray<AppendedLeaf>
): Effect.Effect<LogEnd, StorageError> => {
  let recordBytes = 0
  let hashCount = 0
  for (const leaf of leaves) {
    recordBytes += recordSize(leaf.bytes.length)
    hashCount += leaf.hashes.length
  }
  const records = new Uint8Array(recordBytes)
  const offsets = new Uint8Array(OFFSET_SIZE * leaves.length)
  const hashes = new Uint8Array(HASH_SIZE * hashCount)
  let recordAt = 0
  let hashAt = 0
  leaves.forEach((leaf, i) => {
    writeUint64(offsets, OFFSET_SIZE * i, end.leavesEnd + recordAt)
    recordAt = encodeRecord(records, recordAt, leaf.bytes, leaf.hashes[0]!)
    for (const hash of leaf.hashes) {
      hashes.set(hash, hashAt)
      hashAt += HASH_SIZE
    }
  })
  return Effect.all(
    [
      writeAndSync(files.leaves, "leaves", records, end.leavesEnd),
      writeAndSync(files.offsets, "offsets", offsets, OFFSET_SIZE * end.size),
      writeAndSync(files.hashes, "hashes", hashes, HASH_SIZE * storedHashCount(end.size))
    ],
    { concurrency: "unbounded", discard: true }
  ).pipe(Effect.as({ size: end.size + leaves.length, leavesEnd: end.leavesEnd + recordBytes }))
}
