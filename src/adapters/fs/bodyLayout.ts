// The on-disk layout of FsBodyStore: two append-only files in one folder, and a cache.
//
//   bodies  records back to back, each self-validating:
//             put      [u32 BE length][32-byte digest][length bytes]
//                      valid when SHA-256(bytes) = digest (put refuses bodies that do not
//                      hash to their digest, so every record it writes is valid);
//             removal  [u32 BE 0xFFFFFFFF][32-byte digest][u64 BE target][32-byte check]
//                      says the put record of that digest at byte `target` is removed;
//                      valid when check = SHA-256(digest || target) and target is before it.
//           A torn or zeroed record fails its check, so recovery finds where the valid
//           records end without trusting anything else.
//   index   one 44-byte entry per record, in the same order: [32-byte digest][u64 BE
//           offset][u32 BE length], where a removal has length 0xFFFFFFFF and its target as
//           offset. It is what the body index (bodyIndex.ts, `body-index.db`) is built
//           from instead of reading every body, and is derived from `bodies` alone:
//           recovery rebuilds its tail, and rebuilds all of it when the file is missing
//           (bodyCompact.ts relies on that).
//   body-index.db  a SQLite cache of `index` (bodySidecar.ts), which `index` rebuilds.

export const BODIES_FILE = "bodies"
export const INDEX_FILE = "index"
/** Suffix of the files a compaction writes before renaming them into place (bodyCompact.ts). */
export const COMPACT_SUFFIX = ".compact"

export const DIGEST_SIZE = 32
/** Length prefix and digest: the bytes before a put record's body. */
export const PUT_HEADER = 4 + DIGEST_SIZE
/** The length value that marks a removal record (and a removal index entry). */
export const REMOVAL_MARK = 0xffff_ffff
export const REMOVAL_RECORD_SIZE = 4 + DIGEST_SIZE + 8 + DIGEST_SIZE
export const INDEX_ENTRY_SIZE = DIGEST_SIZE + 8 + 4

/**
 * Largest body the store takes (the domain's largest, the charter document, is 1 MiB).
 * It bounds what a torn length prefix can make recovery read.
 */
export const MAX_BODY_SIZE = 16 * 1024 * 1024

/**
 * The most records written between two fsyncs: put and remove write in groups of at most
 * this many records, each group written and fdatasynced before the next, so after a crash
 * at most this many records at the end of the files can be torn. Recovery re-verifies that
 * many records and at most as many again (it cannot tell where the torn group starts), so
 * its cost is bounded by this constant rather than by the size of the store.
 */
export const MAX_UNSYNCED_RECORDS = 1024
/** A group also ends before it would pass this many bytes (a record larger than it is a group alone). */
export const MAX_GROUP_BYTES = 16 * 1024 * 1024

export type BodyRecord =
  | { readonly kind: "put"; readonly digest: Uint8Array; readonly bytes: Uint8Array }
  | { readonly kind: "removal"; readonly digest: Uint8Array; readonly target: number }

/** What the index says about one record. */
export type IndexEntry =
  | { readonly kind: "put"; readonly digest: Uint8Array; readonly offset: number; readonly length: number }
  | { readonly kind: "removal"; readonly digest: Uint8Array; readonly target: number }

// Byte-wise big-endian integers: encoding runs once per record on the write path, and
// decoding once per record read from the index, where a DataView per call would be most of the garbage.
const setUint32 = (into: Uint8Array, at: number, value: number): void => {
  into[at] = value >>> 24
  into[at + 1] = (value >>> 16) & 0xff
  into[at + 2] = (value >>> 8) & 0xff
  into[at + 3] = value & 0xff
}

/** Offsets are below 2^53, so a number holds them exactly; written as two 32-bit halves. */
const setUint64 = (into: Uint8Array, at: number, value: number): void => {
  setUint32(into, at, Math.floor(value / 2 ** 32))
  setUint32(into, at + 4, value % 2 ** 32)
}

export const getUint32 = (from: Uint8Array, at: number): number =>
  ((from[at]! << 24) >>> 0) + (from[at + 1]! << 16) + (from[at + 2]! << 8) + from[at + 3]!

export const getUint64 = (from: Uint8Array, at: number): number => getUint32(from, at) * 2 ** 32 + getUint32(from, at + 4)

export const recordSize = (record: BodyRecord): number =>
  record.kind === "put" ? PUT_HEADER + record.bytes.length : REMOVAL_RECORD_SIZE

/** The check of a removal record: SHA-256(digest || u64 target). */
export const removalCheck = (sha256: (data: Uint8Array) => Uint8Array, digest: Uint8Array, target: number): Uint8Array => {
  const input = new Uint8Array(DIGEST_SIZE + 8)
  input.set(digest, 0)
  setUint64(input, DIGEST_SIZE, target)
  return sha256(input)
}

/** Writes the record at `at`; returns the offset after it. */
export const encodeRecord = (
  into: Uint8Array,
  at: number,
  record: BodyRecord,
  sha256: (data: Uint8Array) => Uint8Array
): number => {
  into.set(record.digest, at + 4)
  if (record.kind === "put") {
    setUint32(into, at, record.bytes.length)
    into.set(record.bytes, at + PUT_HEADER)
  } else {
    setUint32(into, at, REMOVAL_MARK)
    setUint64(into, at + PUT_HEADER, record.target)
    into.set(removalCheck(sha256, record.digest, record.target), at + PUT_HEADER + 8)
  }
  return at + recordSize(record)
}

/** The index entry of `record`, stored at byte `offset` of `bodies`. */
export const entryOf = (record: BodyRecord, offset: number): IndexEntry =>
  record.kind === "put"
    ? { kind: "put", digest: record.digest, offset, length: record.bytes.length }
    : { kind: "removal", digest: record.digest, target: record.target }

/** Writes the index entry at `at`. */
export const encodeIndexEntry = (into: Uint8Array, at: number, entry: IndexEntry): void => {
  into.set(entry.digest, at)
  setUint64(into, at + DIGEST_SIZE, entry.kind === "put" ? entry.offset : entry.target)
  setUint32(into, at + DIGEST_SIZE + 8, entry.kind === "put" ? entry.length : REMOVAL_MARK)
}

/** Reads the index entry at `at` (the digest is a view into `from`). */
export const decodeIndexEntry = (from: Uint8Array, at: number): IndexEntry => {
  const digest = from.subarray(at, at + DIGEST_SIZE)
  const position = getUint64(from, at + DIGEST_SIZE)
  const length = getUint32(from, at + DIGEST_SIZE + 8)
  return length === REMOVAL_MARK
    ? { kind: "removal", digest, target: position }
    : { kind: "put", digest, offset: position, length }
}
