// Writing one group of leaves to FsLogStore's files (logLayout.ts) durably: one buffer per
// file, written at the committed end of that file by position. The files are open with
// O_DSYNC (fileIo.ts openStoreFile), so each write returns once its bytes and the file size
// are on stable storage, as write + fdatasync would. The three files are written in
// parallel; the group is durable only when all three writes are done, and recovery
// (logRecovery.ts) handles any crash before that.

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

/** Durable on return: the file is open with O_DSYNC. */
const writeDurably = (handle: FileHandle, name: string, bytes: Uint8Array, position: number) =>
  attempt("append", `${name} at byte ${position}`, () => writeFully(handle, bytes, position))

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
      writeDurably(files.leaves, "leaves", records, end.leavesEnd),
      writeDurably(files.offsets, "offsets", offsets, OFFSET_SIZE * end.size),
      writeDurably(files.hashes, "hashes", hashes, HASH_SIZE * storedHashCount(end.size))
    ],
    { concurrency: "unbounded", discard: true }
  ).pipe(Effect.as({ size: end.size + leaves.length, leavesEnd: end.leavesEnd + recordBytes }))
}
