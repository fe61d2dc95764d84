// The on-disk layout of FsLogStore: three append-only files in one folder.
//
//   leaves   records [u32 BE length][entry bytes][32-byte leaf hash], back to back. The
//            trailing leaf hash, SHA-256(0x00 || entry), makes every record self-validating:
//            a torn or zeroed record fails the check, so recovery can find where the valid
//            records end without trusting anything else.
//   offsets  u64 BE byte offset in `leaves` of each leaf's record, 8 bytes per leaf, so leaf
//            i is found with one 8-byte read instead of a scan.
//   hashes   32 bytes per stored hash, at its position in the storedHash.ts numbering.

import { HASH_SIZE } from "../../domain/tlog/hasher.js"

export const LEAVES_FILE = "leaves"
export const OFFSETS_FILE = "offsets"
export const HASHES_FILE = "hashes"

/** Largest entry (docs/spec/profile.md section 4: entry bundles prefix each entry with 2 bytes). */
export const MAX_ENTRY_SIZE = 65_535
/** Bytes a record adds around its entry: the length prefix and the leaf hash. */
export const RECORD_OVERHEAD = 4 + HASH_SIZE
export const OFFSET_SIZE = 8

/**
 * The most leaves written between two fsyncs. append splits larger batches into groups of
 * this many, each written and fsynced before the next, so after a crash at most this many
 * leaves at the end of the log can be torn. Recovery re-verifies that window (and one more
 * window, because it cannot tell where the torn group starts), so its cost is bounded by
 * this constant rather than by the size of the log.
 */
export const MAX_UNSYNCED_LEAVES = 1024

export const recordSize = (entryLength: number): number => RECORD_OVERHEAD + entryLength

/** Writes a record at `at`; returns the offset after it. */
export const encodeRecord = (into: Uint8Array, at: number, entry: Uint8Array, leafHash: Uint8Array): number => {
  const view = new DataView(into.buffer, into.byteOffset, into.byteLength)
  view.setUint32(at, entry.length)
  into.set(entry, at + 4)
  into.set(leafHash, at + 4 + entry.length)
  return at + recordSize(entry.length)
}

/** Offsets are below 2^53, so a number holds them exactly; written as two 32-bit halves. */
export const writeUint64 = (into: Uint8Array, at: number, value: number): void => {
  const view = new DataView(into.buffer, into.byteOffset, into.byteLength)
  view.setUint32(at, Math.floor(value / 2 ** 32))
  view.setUint32(at + 4, value % 2 ** 32)
}

export const readUint64 = (from: Uint8Array, at: number): number => {
  const view = new DataView(from.buffer, from.byteOffset, from.byteLength)
  return view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4)
}

export const readUint32 = (from: Uint8Array, at: number): number =>
  new DataView(from.buffer, from.byteOffset, from.byteLength).getUint32(at)
