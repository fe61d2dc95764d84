// Compacting a closed FsBodyStore: rewriting its two files (bodyLayout.ts) with only the
// bodies still stored, so that removed bodies (DM and capsule ciphertext past retention)
// really leave the disk, and removal records stop costing space and load time.
//
// It runs on a closed store: it swaps the files under the store, so a store writing to the
// old ones meanwhile would lose its writes. A store open in this process makes it fail; one
// open in another process cannot be detected here, which is why the operator's command
// (src/compactBodies.ts, on a stopped service) holds the data folder's lock meanwhile.
//
// The swap, step by step, with what a crash at each point leaves:
//   1. open the store's files, run recovery (bodyRecovery.ts), so both are settled and
//      synced, and bring the body index (bodyIndex.ts, `body-index.db`) up to date: it
//      says which put records are live;
//   2. scan the whole of `bodies`, verifying every record (compaction reads every byte
//      anyway; a damaged record stops it before anything is replaced), and copy each live
//      put record verbatim to `bodies.compact`, with its new index entry to
//      `index.compact`; fsync both. A crash up to here leaves the store as it was, plus
//      `.compact` files that the next open deletes (bodyFiles.ts);
//   3. close the body index and delete it, since its rows name offsets in the old
//      `bodies`; fsync the folder. An open finds no sidecar and rebuilds it from whichever
//      files it finds from here on (its check of the index file would refuse it anyway,
//      but a rebuild said as a rebuild, not as damage, is what a compaction means). Then
//      unlink `index`, fsync the folder. Now an open finds no index and rebuilds it from
//      the old `bodies` by scanning it: the store as it was;
//   4. rename `bodies.compact` over `bodies`, fsync the folder. An open rebuilds the index
//      from the new `bodies`: the compacted store, from the same live bodies;
//   5. rename `index.compact` to `index`, fsync the folder. Done: the next open loads it,
//      and builds the body index from it.
// Every state in between opens to the same set of live bodies, the old files or the new.

import { constants } from "node:fs"
import { open, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Runtime } from "effect"
import { Crypto } from "../../ports/Crypto.js"
import { StorageError } from "../../ports/StorageError.js"
import { openBodyFiles } from "./bodyFiles.js"
import { BODIES_FILE, COMPACT_SUFFIX, encodeIndexEntry, INDEX_ENTRY_SIZE, INDEX_FILE } from "./bodyLayout.js"
import { openBodyIndex } from "./bodyIndex.js"
import { BODY_INDEX_FILE } from "./bodySidecar.js"
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
    const runtime = yield* Effect.runtime<never>()
    const files = yield* openBodyFiles(directory, "compaction")
    const bodiesPath = join(files.root, BODIES_FILE)
    const indexPath = join(files.root, INDEX_FILE)

    // Steps 1 and 2, with the body index open; it is closed before the swap.
    const copied = yield* Effect.scoped(Effect.gen(function*() {
      const { end, index } = yield* openBodyIndex(files, sha256)
      if ((yield* index.count) === end.records) {
        // Nothing removed: every record is a live body.
        return { end, kept: end.records, bytesAfter: end.bytes, swap: false }
      }
      const bodiesOut = yield* makeOutput(bodiesPath + COMPACT_SUFFIX)
      const indexOut = yield* makeOutput(indexPath + COMPACT_SUFFIX)
      const isLive = (digest: Uint8Array, offset: number) =>
        Runtime.runPromise(runtime)(Effect.map(index.candidates([digest]), ([candidates]) => candidates!.some((candidate) => candidate.offset === offset)))
      let kept = 0
      let at = 0
      const scanned = yield* scanBodyRecords(files.bodies, sha256, 0, end.bytes, async (record) => {
        const entry = record.entry
        if (entry.kind !== "put" || !(await isLive(entry.digest, entry.offset))) return
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
      return { end, kept, bytesAfter, swap: true }
    }))
    const { end, kept, bytesAfter } = copied
    if (!copied.swap) return { bodies: kept, dropped: 0, bytesBefore: end.bytes, bytesAfter }

    // Steps 3 to 5: the swap, after the body index is deleted (see the header).
    const sidecarPath = join(files.root, BODY_INDEX_FILE)
    yield* attempt("compact", `replacing the files in ${files.root}`, async () => {
      for (const suffix of ["", "-wal", "-shm"]) await rm(sidecarPath + suffix, { force: true })
      await syncFolder(files.root)
      await rm(indexPath, { force: true })
      await syncFolder(files.root)
      await rename(bodiesPath + COMPACT_SUFFIX, bodiesPath)
      await syncFolder(files.root)
      await rename(indexPath + COMPACT_SUFFIX, indexPath)
      await syncFolder(files.root)
    })
    return { bodies: kept, dropped: end.records - kept, bytesBefore: end.bytes, bytesAfter }
  }))
