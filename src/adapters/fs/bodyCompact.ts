// Compacting a closed FsBodyStore: rewriting its two files (bodyLayout.ts) with only the
// bodies still stored, so that removed bodies (DM and capsule ciphertext past retention)
// really leave the disk, and removal records stop costing space and load time.
//
// It runs on a closed store (at start, before the store is opened, or from a maintenance
// command): it swaps the files under the store, so a store writing to the old ones
// meanwhile would lose its writes. A store open in this process makes it fail; one open in
// another process cannot be detected.
//
// The swap, step by step, with what a crash at each point leaves:
//   1. open the store's files and run recovery (bodyRecovery.ts), so both are settled and
//      synced, and the table says which put records are live;
//   2. scan the whole of `bodies`, verifying every record (compaction reads every byte
//      anyway; a damaged record stops it before anything is replaced), and copy each live
//      put record verbatim to `bodies.compact`, with its new index entry to
//      `index.compact`; fsync both. A crash up to here leaves the store as it was, plus
//      `.compact` files that the next open deletes (bodyFiles.ts);
//   3. unlink `index`, fsync the folder. Now an open finds no index and rebuilds it from
//      the old `bodies` by scanning it: the store as it was;
//   4. rename `bodies.compact` over `bodies`, fsync the folder. An open rebuilds the index
//      from the new `bodies`: the compacted store, from the same live bodies;
//   5. rename `index.compact` to `index`, fsync the folder. Done: the next open loads it.
// Every state in between opens to the same set of live bodies, the old files or the new.

import { constants } from "node:fs"
import { open, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { Crypto } from "../../ports/Crypto.js"
import { StorageError } from "../../ports/StorageError.js"
import { openBodyFiles } from "./bodyFiles.js"
import { BODIES_FILE, COMPACT_SUFFIX, encodeIndexEntry, INDEX_ENTRY_SIZE, INDEX_FILE } from "./bodyLayout.js"
import { recoverBodies } from "./bodyRecovery.js"
import { scanBodyRecords } from "./bodyScan.js"
import { attempt, syncFolder, writeFully } from "./fileIo.js"

export interface Compaction {
  /** Bodies kept. */
  readonly bodies: number
  /** Records dropped: removed bodies and the removal records themselves. */
  readonly dropped: number
  readonly bytesBefore: number
  readonly bytesAfter: number
}

/** Output is written in chunks of about this many bytes. */
const CHUNK = 4 * 1024 * 1024

/** An append-only output file written in large chunks. */
const makeOutput = (path: string) =>
  Effect.acquireRelease(
    attempt("compact", path, () => open(path, constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC, 0o644)),
    (handle) => attempt("close", path, () => handle.close()).pipe(Effect.ignore)
  ).pipe(Effect.map((handle) => {
    let chunk = new Uint8Array(CHUNK)
    let used = 0
    let written = 0
    const flush = async () => {
      await writeFully(handle, chunk.subarray(0, used), written)
      written += used
      used = 0
    }
    return {
      /** Appends the bytes (copied). */
      append: async (bytes: Uint8Array) => {
        if (used + bytes.length > chunk.length) await flush()
        if (bytes.length > chunk.length) chunk = new Uint8Array(bytes.length)
        chunk.set(bytes, used)
        used += bytes.length
      },
      /** Reserves `length` bytes at the end and returns the chunk and where they start. */
      reserve: async (length: number) => {
        if (used + length > chunk.length) await flush()
        const at = used
        used += length
        return { chunk, at }
      },
      /** Writes what is left and fsyncs (the file is new: its size is metadata a read needs). */
      finish: async () => {
        await flush()
        await handle.sync()
        return written
      }
    }
  }))

/** Compacts the closed store in `directory`; see the file comment for the crash safety. */
export const compactBodyStore = (directory: string): Effect.Effect<Compaction, StorageError, Crypto> =>
  Effect.scoped(Effect.gen(function*() {
    const { sha256 } = yield* Crypto
    const files = yield* openBodyFiles(directory, "compaction")
    const { end, table } = yield* recoverBodies(files, sha256)
    if (table.count() === end.records) {
      // Nothing removed: every record is a live body.
      return { bodies: end.records, dropped: 0, bytesBefore: end.bytes, bytesAfter: end.bytes }
    }

    // Step 2: copy the live records.
    const bodiesPath = join(files.root, BODIES_FILE)
    const indexPath = join(files.root, INDEX_FILE)
    const bodiesOut = yield* makeOutput(bodiesPath + COMPACT_SUFFIX)
    const indexOut = yield* makeOutput(indexPath + COMPACT_SUFFIX)
    let kept = 0
    let at = 0
    const scanned = yield* scanBodyRecords(files.bodies, sha256, 0, end.bytes, async (record) => {
      const entry = record.entry
      if (entry.kind !== "put") return
      if (!table.candidates(entry.digest).some((candidate) => candidate.offset === entry.offset)) return
      await bodiesOut.append(record.bytes)
      const slot = await indexOut.reserve(INDEX_ENTRY_SIZE)
      encodeIndexEntry(slot.chunk, slot.at, { ...entry, offset: at })
      at += record.size
      kept++
    })
    if (scanned.end !== end.bytes) {
      return yield* new StorageError({
        operation: "compact",
        detail: `the record at byte ${scanned.end} of ${end.bytes} is damaged; nothing was replaced`
      })
    }
    const bytesAfter = yield* attempt("compact", "syncing bodies.compact", bodiesOut.finish)
    yield* attempt("compact", "syncing index.compact", indexOut.finish)

    // Steps 3 to 5: the swap.
    yield* attempt("compact", `replacing the files in ${files.root}`, async () => {
      await rm(indexPath, { force: true })
      await syncFolder(files.root)
      await rename(bodiesPath + COMPACT_SUFFIX, bodiesPath)
      await syncFolder(files.root)
      await rename(indexPath + COMPACT_SUFFIX, indexPath)
      await syncFolder(files.root)
    })
    return { bodies: kept, dropped: end.records - kept, bytesBefore: end.bytes, bytesAfter }
  }))
