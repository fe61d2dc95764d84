// Reading spans of FsBodyStore's `index` file (bodyLayout.ts) without loading it: recovery
// (bodyRecovery.ts) and the body index (bodyIndex.ts) read only the entries they need, so
// neither their memory nor their reads grow with the store.

import type { FileHandle } from "node:fs/promises"
import type { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { decodeIndexEntry, INDEX_ENTRY_SIZE, PUT_HEADER, REMOVAL_RECORD_SIZE, type IndexEntry } from "./bodyLayout.js"
import { attempt, readInto } from "./fileIo.js"

/** Entries read per chunk when walking the file (2.75 MiB). */
export const CHUNK_ENTRIES = 1 << 16

/** The size in `bodies` of the record an entry describes. */
export const recordSizeOf = (entry: IndexEntry): number => (entry.kind === "put" ? PUT_HEADER + entry.length : REMOVAL_RECORD_SIZE)

export interface IndexSpan {
  /** The entries, in order; their digests are copies. */
  readonly entries: ReadonlyArray<IndexEntry>
  /** The file's bytes of the last entry (empty when there is none). */
  readonly lastBytes: Uint8Array
}

/** Entries [from, to) of the file, which must hold them (they are below its committed end). */
export const readIndexSpan = (index: FileHandle, from: number, to: number): Effect.Effect<IndexSpan, StorageError> =>
  attempt("read", `index entries [${from}, ${to})`, async () => {
    const bytes = new Uint8Array(INDEX_ENTRY_SIZE * Math.max(0, to - from))
    const read = await readInto(index, bytes, INDEX_ENTRY_SIZE * from)
    if (read !== bytes.length) throw new Error(`the index file ends after ${read} of ${bytes.length} bytes`)
    const entries: Array<IndexEntry> = []
    for (let at = 0; at < bytes.length; at += INDEX_ENTRY_SIZE) {
      const entry = decodeIndexEntry(bytes, at)
      entries.push({ ...entry, digest: entry.digest.slice() })
    }
    return { entries, lastBytes: bytes.slice(Math.max(0, bytes.length - INDEX_ENTRY_SIZE)) }
  })

/**
 * Visits entries [from, to) in order, a chunk at a time; stops early, answering false, when
 * `visit` answers false. The entry's digest is a view valid only during the visit.
 */
export const walkIndex = (
  index: FileHandle,
  from: number,
  to: number,
  visit: (entry: IndexEntry, number: number) => boolean
): Effect.Effect<boolean, StorageError> =>
  attempt("recover", `reading index entries [${from}, ${to})`, async () => {
    const buffer = new Uint8Array(CHUNK_ENTRIES * INDEX_ENTRY_SIZE)
    for (let start = from; start < to; start += CHUNK_ENTRIES) {
      const chunk = buffer.subarray(0, Math.min(CHUNK_ENTRIES, to - start) * INDEX_ENTRY_SIZE)
      if ((await readInto(index, chunk, INDEX_ENTRY_SIZE * start)) !== chunk.length) {
        throw new Error(`the index ends before entry ${start + chunk.length / INDEX_ENTRY_SIZE}`)
      }
      for (let at = 0; at < chunk.length; at += INDEX_ENTRY_SIZE) {
        if (!visit(decodeIndexEntry(chunk, at), start + at / INDEX_ENTRY_SIZE)) return false
      }
    }
    return true
  })

/**
 * Where record `k` starts in `bodies`: the end of the records of entries [0, k), as those
 * entries say. A put entry says where its record is; a removal entry names its target
 * instead, so the walk goes back to the last put before `k` and counts the removals after
 * it: it reads the run of removals before `k` (a retention batch at most), not the file.
 */
export const recordStart = (index: FileHandle, k: number): Effect.Effect<number, StorageError> =>
  attempt("recover", `locating record ${k}`, async () => {
    // Chunks that double from a few entries: mostly the entry before `k` is a put.
    let size = 16
    let removals = 0
    for (let end = k; end > 0; size = Math.min(2 * size, CHUNK_ENTRIES)) {
      const start = Math.max(0, end - size)
      const chunk = new Uint8Array(INDEX_ENTRY_SIZE * (end - start))
      if ((await readInto(index, chunk, INDEX_ENTRY_SIZE * start)) !== chunk.length) {
        throw new Error(`the index ends before entry ${end}`)
      }
      for (let at = chunk.length - INDEX_ENTRY_SIZE; at >= 0; at -= INDEX_ENTRY_SIZE) {
        const entry = decodeIndexEntry(chunk, at)
        if (entry.kind === "put") return entry.offset + recordSizeOf(entry) + removals * REMOVAL_RECORD_SIZE
        removals++
      }
      end = start
    }
    // Only removals before `k`: a damaged index (a removal names an earlier put); the
    // chaining check after this start says so.
    return removals * REMOVAL_RECORD_SIZE
  })
