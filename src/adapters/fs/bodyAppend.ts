// Writing FsBodyStore records (bodyLayout.ts) durably: the records are cut into groups of at
// most MAX_UNSYNCED_RECORDS records and MAX_GROUP_BYTES bytes (one group for any realistic
// batch); per group, one buffer per file, written at the committed end of that file by
// position, both files in parallel, and only then the next group. The files are open with
// O_DSYNC (fileIo.ts openStoreFile): a write returns once its bytes and the file size are
// on stable storage, as write + fdatasync would (the files' names were made durable when
// they were opened). The records are durable when the last write is done; recovery
// (bodyRecovery.ts) handles a crash before that.

import type { FileHandle } from "node:fs/promises"
import { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import {
  encodeIndexEntry,
  encodeRecord,
  entryOf,
  INDEX_ENTRY_SIZE,
  MAX_GROUP_BYTES,
  MAX_UNSYNCED_RECORDS,
  recordSize,
  type BodyRecord,
  type IndexEntry
} from "./bodyLayout.js"
import type { BodyFiles } from "./bodyFiles.js"
import type { BodyEnd } from "./bodyRecovery.js"
import { attempt, writeFully } from "./fileIo.js"

/** Durable on return: the file is open with O_DSYNC. */
const writeDurably = (handle: FileHandle, name: string, bytes: Uint8Array, position: number) =>
  attempt("write", `${name} at byte ${position}`, () => writeFully(handle, bytes, position))

/** Splits the records into groups within both bounds, in order. */
const groupsOf = (records: ReadonlyArray<BodyRecord>): Array<ReadonlyArray<BodyRecord>> => {
  const groups: Array<Array<BodyRecord>> = []
  let group: Array<BodyRecord> = []
  let bytes = 0
  for (const record of records) {
    const size = recordSize(record)
    if (group.length > 0 && (group.length === MAX_UNSYNCED_RECORDS || bytes + size > MAX_GROUP_BYTES)) {
      groups.push(group)
      group = []
      bytes = 0
    }
    group.push(record)
    bytes += size
  }
  if (group.length > 0) groups.push(group)
  return groups
}

/** Writes one group after `end` and syncs both files; returns the new end. */
const writeGroup = (
  files: BodyFiles,
  end: BodyEnd,
  records: ReadonlyArray<BodyRecord>,
  sha256: (data: Uint8Array) => Uint8Array,
  entries: Array<IndexEntry>
): Effect.Effect<BodyEnd, StorageError> => {
  const bodies = new Uint8Array(records.reduce((sum, record) => sum + recordSize(record), 0))
  const index = new Uint8Array(INDEX_ENTRY_SIZE * records.length)
  let at = 0
  records.forEach((record, i) => {
    const entry = entryOf(record, end.bytes + at)
    encodeIndexEntry(index, INDEX_ENTRY_SIZE * i, entry)
    entries.push(entry)
    at = encodeRecord(bodies, at, record, sha256)
  })
  return Effect.all(
    [
      writeDurably(files.bodies, "bodies", bodies, end.bytes),
      writeDurably(files.index, "index", index, INDEX_ENTRY_SIZE * end.records)
    ],
    { concurrency: "unbounded", discard: true }
  ).pipe(Effect.as({ records: end.records + records.length, bytes: end.bytes + bodies.length }))
}

/**
 * Appends the records after `end`, durably; returns the new end and the index entry of each
 * record (a put's entry says where its body now is). The caller serializes writes.
 */
export const appendRecords = (
  files: BodyFiles,
  end: BodyEnd,
  records: ReadonlyArray<BodyRecord>,
  sha256: (data: Uint8Array) => Uint8Array
): Effect.Effect<{ readonly end: BodyEnd; readonly entries: ReadonlyArray<IndexEntry> }, StorageError> =>
  Effect.gen(function*() {
    const entries: Array<IndexEntry> = []
    let next = end
    for (const group of groupsOf(records)) next = yield* writeGroup(files, next, group, sha256, entries)
    return { end: next, entries }
  })
