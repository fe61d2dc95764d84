// Reading leaf records (logLayout.ts) forward from a known record boundary, checking each
// one: a sane length, the whole record inside the file, and the trailing leaf hash equal to
// SHA-256(0x00 || entry). The first record that fails ends the scan, because nothing after
// a torn record can be located without trusting its length. Reads go through a 1 MiB window
// so a scan costs a few large reads, not one per record.

import type { FileHandle } from "node:fs/promises"
import type { Effect } from "effect"
import { equal } from "../../domain/bytes.js"
import type { Hash, TreeHasher } from "../../domain/tlog/hasher.js"
import type { StorageError } from "../../ports/StorageError.js"
import { attempt, windowedReader } from "./fileIo.js"
import { MAX_ENTRY_SIZE, readUint32, recordSize } from "./logLayout.js"


export interface ScannedRecords {
  /** Byte offset of each valid record, in order. */
  readonly offsets: ReadonlyArray<number>
  /** Leaf hash of each valid record (verified against its entry). */
  readonly leafHashes: ReadonlyArray<Hash>
  /** Offset just after the last valid record: where the valid records end. */
  readonly end: number
}

/**
 * Scans valid records from `from` (a record boundary) while they stay inside the first
 * `fileLength` bytes, stopping at the first invalid one or after `limit` records.
 */
export const scanRecords = (
  handle: FileHandle,
  hasher: TreeHasher,
  from: number,
  fileLength: number,
  limit = Number.POSITIVE_INFINITY
): Effect.Effect<ScannedRecords, StorageError> =>
  attempt("recover", `scanning leaf records from byte ${from}`, async () => {
    const bytesAt = windowedReader(handle, from, fileLength)

    const offsets: Array<number> = []
    const leafHashes: Array<Hash> = []
    let at = from
    while (offsets.length < limit) {
      const header = await bytesAt(at, 4)
      if (header === undefined) break
      const length = readUint32(header, 0)
      if (length > MAX_ENTRY_SIZE) break
      const record = await bytesAt(at, recordSize(length))
      if (record === undefined) break
      const leafHash = hasher.leafHash(record.subarray(4, 4 + length))
      if (!equal(leafHash, record.subarray(4 + length))) break
      offsets.push(at)
      leafHashes.push(leafHash)
      at += recordSize(length)
    }
    return { offsets, leafHashes, end: at }
  })
