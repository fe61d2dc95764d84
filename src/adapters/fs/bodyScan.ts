// Reading FsBodyStore records (bodyLayout.ts) forward from a known record boundary,
// checking each one: a known kind, a sane length, the whole record inside the file, and its
// check (SHA-256 of a put record's bytes equal to its digest; a removal's check hash, and a
// target before it). The first record that fails ends the scan, because nothing after a
// torn record can be located without trusting its length. Reads go through a 1 MiB window
// so a scan costs a few large reads, not one per record. The visitor may be asynchronous
// (compaction writes as it scans); the scan waits for it.

import type { FileHandle } from "node:fs/promises"
import type { Effect } from "effect"
import { equal } from "../../domain/bytes.js"
import type { StorageError } from "../../ports/StorageError.js"
import {
  DIGEST_SIZE,
  getUint32,
  getUint64,
  MAX_BODY_SIZE,
  PUT_HEADER,
  REMOVAL_MARK,
  REMOVAL_RECORD_SIZE,
  removalCheck,
  type IndexEntry
} from "./bodyLayout.js"
import { attempt, windowedReader } from "./fileIo.js"


export interface ScannedRecord {
  /** What the record says, as its index entry; the digest is a copy. */
  readonly entry: IndexEntry
  /** Where the record starts in `bodies`. */
  readonly at: number
  /** Its size in bytes. */
  readonly size: number
  /** The whole record, a view valid only during the visit. */
  readonly bytes: Uint8Array
}

export interface ScanEnd {
  /** Valid records seen. */
  readonly count: number
  /** Offset just after the last valid record: where the valid records end. */
  readonly end: number
}

/**
 * Visits the valid records from `from` (a record boundary) while they stay inside the
 * first `fileLength` bytes, stopping at the first invalid one or after `limit` records.
 */
export const scanBodyRecords = (
  handle: FileHandle,
  sha256: (data: Uint8Array) => Uint8Array,
  from: number,
  fileLength: number,
  visit: (record: ScannedRecord) => void | Promise<void>,
  limit = Number.POSITIVE_INFINITY
): Effect.Effect<ScanEnd, StorageError> =>
  attempt("recover", `scanning body records from byte ${from}`, async () => {
    const bytesAt = windowedReader(handle, from, fileLength)

    let count = 0
    let at = from
    while (count < limit) {
      const header = await bytesAt(at, PUT_HEADER)
      if (header === undefined) break
      const length = getUint32(header, 0)
      let record: ScannedRecord
      if (length === REMOVAL_MARK) {
        const bytes = await bytesAt(at, REMOVAL_RECORD_SIZE)
        if (bytes === undefined) break
        const digest = bytes.slice(4, PUT_HEADER)
        const target = getUint64(bytes, PUT_HEADER)
        if (target >= at || !equal(removalCheck(sha256, digest, target), bytes.subarray(PUT_HEADER + 8))) break
        record = { entry: { kind: "removal", digest, target }, at, size: REMOVAL_RECORD_SIZE, bytes }
      } else {
        if (length > MAX_BODY_SIZE) break
        const bytes = await bytesAt(at, PUT_HEADER + length)
        if (bytes === undefined) break
        const digest = bytes.slice(4, PUT_HEADER)
        if (!equal(sha256(bytes.subarray(PUT_HEADER)), digest)) break
        record = { entry: { kind: "put", digest, offset: at, length }, at, size: PUT_HEADER + length, bytes }
      }
      const visited = visit(record)
      if (visited !== undefined) await visited
      count++
      at += record.size
    }
    return { count, end: at }
  })

/** Digest bytes of a record header read from `bodies` (4-byte length, then the digest). */
export const headerDigest = (header: Uint8Array): Uint8Array => header.subarray(4, 4 + DIGEST_SIZE)
