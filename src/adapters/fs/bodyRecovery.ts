// Opening FsBodyStore after a clean stop or a crash: find the committed records, make the
// two files (bodyLayout.ts) agree on them, and build the in-memory table (bodyTable.ts) of
// the bodies they hold.
//
// What a crash can leave. put and remove write their records in groups of at most
// G = MAX_UNSYNCED_RECORDS records, each group written at the end of both files and both
// fdatasynced before the next group or the answer. So when the process is killed or the
// machine loses power, with c the number of records in fully synced groups (every record
// of every answered put and remove is among them):
//   - the first c records and c index entries are durable and right;
//   - after them each file may hold any part of the one group being written: nothing, a
//     prefix of it, or (power loss) its bytes with some pages missing or zeroed; never
//     more, because nothing else was written since the last fsync. In particular the index
//     holds at most c + G entries. (After a failed write the store writes nothing more
//     until it is reopened, so the group a failed write left is still the last one.)
//
// What recovery trusts and what it verifies.
//   1. t = max(0, floor(index length / 44) - G). By the bound above t <= c, so index
//      entries [0, t) and the records they describe are durable and are loaded into the
//      table without reading a body: that is what keeps opening cheap on a big store (it
//      reads 44 bytes a record instead of every body). The entries are still checked to
//      chain (each put's offset is where the previous record ends, each removal's target
//      is before it), and the record of entry t-1 is read and verified, to find where
//      record t starts and as a guard against a damaged disk.
//   2. Records are scanned forward from there, each verified by its digest (bodyScan.ts),
//      and applied to the table in order. Every record below c is valid, so the scan keeps
//      at least c records: no answered put or remove is lost. A record of the torn group
//      counts only if it is whole, and the first one that is not ends the scan, so the
//      store keeps a prefix of whole records. The scan reads at most 2G records: with the
//      domain's bodies (64 KiB of ciphertext at most) under 130 MiB, typically far less.
//   3. The files are cut or completed to exactly those records: `bodies` is truncated
//      after the last valid record, and index entries [t, n) are rewritten from the scan,
//      since any of them may be torn; a tail that already holds those bytes is left alone.
//   4. Both files are fdatasynced, even when nothing changed: the kept records of the torn
//      group may exist only in the page cache (a killed process's writes survive it
//      there), and from now on they are committed.
// A crash during recovery leaves a state of the same kind, so recovery simply runs again.
// A missing or empty index gives t = 0: the whole of `bodies` is scanned and the index
// rebuilt, which is how a compaction (bodyCompact.ts) hands over a new `bodies` file.
// When the trusted entries do not chain, or record t-1 is invalid, the index or the disk
// is damaged: opening fails with a StorageError instead of quietly dropping bodies.
//
// A `bodies` file cut short (a disk error, a copy or restore that stopped early; issue 13
// item 10) is not a failure: recovery compares the file's length with where the records the
// index describes end, which costs nothing more than the loading above, whatever the size
// of the log. The records that lie wholly inside the file are kept and served; those past
// its end are lost, and recovery answers their digests as the store's shortfall, in two
// parts. Those among the trusted entries were synced: lost for certain. Those of the last
// 2G entries may be a group a crash cut before its put was answered, which is no loss; the
// app (app/BodyShortfall.ts) tells the two apart by asking whether any leaf names them, since
// the sequencer appends a leaf only after its body is durable. The files are then cut to the
// kept records, as for a torn tail, so the store goes on writing after them.

import type { FileHandle } from "node:fs/promises"
import { Effect } from "effect"
import { equal } from "../../domain/bytes.js"
import type { BodyShortfall } from "../../ports/BodyStore.js"
import { StorageError } from "../../ports/StorageError.js"
import {
  decodeIndexEntry,
  encodeIndexEntry,
  INDEX_ENTRY_SIZE,
  MAX_BODY_SIZE,
  MAX_UNSYNCED_RECORDS,
  PUT_HEADER,
  REMOVAL_RECORD_SIZE,
  type IndexEntry
} from "./bodyLayout.js"
import type { BodyFiles } from "./bodyFiles.js"
import { scanBodyRecords, type ScannedRecord } from "./bodyScan.js"
import { makeBodyTable, type BodyTable } from "./bodyTable.js"
import { attempt, readInto, settleTail } from "./fileIo.js"

/** The committed end of the two files. */
export interface BodyEnd {
  /** Records (and index entries). */
  readonly records: number
  /** Length of `bodies`: where the next record goes. */
  readonly bytes: number
}

export interface RecoveredBodies {
  readonly end: BodyEnd
  readonly table: BodyTable
  /** Records the index described that the file did not hold whole (its `file` is left empty here). */
  readonly shortfall?: Omit<BodyShortfall, "file">
}

/** Index entries read per chunk while loading (2.75 MiB). */
const CHUNK_ENTRIES = 1 << 16

const damaged = (detail: string) => new StorageError({ operation: "recover", detail })

const lengthOf = (handle: FileHandle, name: string) => attempt("recover", `stat ${name}`, async () => (await handle.stat()).size)

/** Applies one record, in log order, to the table. */
export const applyEntry = (table: BodyTable, entry: IndexEntry): void => {
  if (entry.kind === "put") table.add(entry.digest, entry.offset, entry.length)
  // A removal's target is a live body when it is written; forgetting an absent one is a no-op.
  else table.remove(entry.digest, entry.target)
}

interface Loaded {
  /** Entries whose records lie wholly inside the file: all of them unless it is short. */
  readonly kept: number
  /** Where record `kept` starts. */
  readonly end: number
  /** Record kept-1, when kept > 0. */
  readonly last?: { readonly at: number; readonly entry: IndexEntry }
  /** Where the records of all the trusted entries end. */
  readonly described: number
}

/**
 * The put records the index describes past the file's end, by offset; a later removal of
 * one takes it out (its body was deleted anyway, so it is no loss).
 */
type LostPuts = Map<number, Uint8Array>

/** Notes one entry describing a record past the file's end. */
const noteLost = (lost: LostPuts, entry: IndexEntry): void => {
  if (entry.kind === "put") lost.set(entry.offset, entry.digest.slice())
  else lost.delete(entry.target)
}

/**
 * Step 1: loads the trusted entries [0, count) into the table, checking that they chain;
 * those whose records end past `fileLength` go to `lost` instead.
 */
const loadTrusted = (index: FileHandle, count: number, table: BodyTable, fileLength: number, lost: LostPuts) =>
  attempt("recover", "loading the body index", async (): Promise<Loaded | StorageError> => {
    const buffer = new Uint8Array(CHUNK_ENTRIES * INDEX_ENTRY_SIZE)
    let end = 0
    let kept = 0
    let described = 0
    let last: Loaded["last"]
    for (let from = 0; from < count; from += CHUNK_ENTRIES) {
      const chunk = buffer.subarray(0, Math.min(CHUNK_ENTRIES, count - from) * INDEX_ENTRY_SIZE)
      if ((await readInto(index, chunk, from * INDEX_ENTRY_SIZE)) !== chunk.length) {
        return damaged(`the index ends before entry ${from + chunk.length / INDEX_ENTRY_SIZE}`)
      }
      for (let at = 0; at < chunk.length; at += INDEX_ENTRY_SIZE) {
        const entry = decodeIndexEntry(chunk, at)
        const number = from + at / INDEX_ENTRY_SIZE
        if (entry.kind === "put" ? entry.offset !== described || entry.length > MAX_BODY_SIZE : entry.target >= described) {
          return damaged(`index entry ${number}, which was synced, does not follow the entries before it`)
        }
        const next = described + (entry.kind === "put" ? PUT_HEADER + entry.length : REMOVAL_RECORD_SIZE)
        // Records only grow the file, so once one passes its end every later one does.
        if (kept === number && next <= fileLength) {
          applyEntry(table, entry)
          last = { at: described, entry }
          kept++
          end = next
        } else {
          noteLost(lost, entry)
        }
        described = next
      }
    }
    // The last entry's digest is a view into the reused buffer: keep a copy.
    return { kept, end, described, ...(last === undefined ? {} : { last: { at: last.at, entry: { ...last.entry, digest: last.entry.digest.slice() } } }) }
  }).pipe(Effect.flatMap((loaded) => (loaded instanceof StorageError ? Effect.fail(loaded) : Effect.succeed(loaded))))

/**
 * The untrusted index entries [from, indexLength) that chain on from `start` (a torn or
 * garbage entry does not, and ends them): where their records end, and each one whose
 * record starts at or after `whole` (the end of the records the scan verified) noted lost.
 */
const describedTail = (index: FileHandle, from: number, indexLength: number, start: number, whole: number, lost: LostPuts) =>
  attempt("recover", "reading the index tail", async () => {
    const bytes = new Uint8Array(Math.max(0, indexLength - from * INDEX_ENTRY_SIZE))
    const read = await readInto(index, bytes, from * INDEX_ENTRY_SIZE)
    let end = start
    for (let at = 0; at + INDEX_ENTRY_SIZE <= read; at += INDEX_ENTRY_SIZE) {
      const entry = decodeIndexEntry(bytes, at)
      if (entry.kind === "put" ? entry.offset !== end || entry.length > MAX_BODY_SIZE : entry.target >= end) break
      if (end >= whole) noteLost(lost, entry)
      end += entry.kind === "put" ? PUT_HEADER + entry.length : REMOVAL_RECORD_SIZE
    }
    return end
  })

/** A byte buffer that grows by doubling, for the rebuilt index tail. */
const growable = () => {
  let bytes = new Uint8Array(64 * INDEX_ENTRY_SIZE)
  let length = 0
  return {
    reserve: (extra: number): number => {
      if (length + extra > bytes.length) {
        const bigger = new Uint8Array(Math.max(2 * bytes.length, length + extra))
        bigger.set(bytes.subarray(0, length))
        bytes = bigger
      }
      const at = length
      length += extra
      return at
    },
    buffer: () => bytes,
    bytes: () => bytes.subarray(0, length)
  }
}


export const recoverBodies = (
  files: BodyFiles,
  sha256: (data: Uint8Array) => Uint8Array
): Effect.Effect<RecoveredBodies, StorageError> =>
  Effect.gen(function*() {
    const bodiesLength = yield* lengthOf(files.bodies, "bodies")
    const indexLength = yield* lengthOf(files.index, "index")

    // Step 1: the trusted entries, and where the record after them starts; those of a file
    // cut short (see the header) that lie past its end are lost.
    const trusted = Math.max(0, Math.floor(indexLength / INDEX_ENTRY_SIZE) - MAX_UNSYNCED_RECORDS)
    const table = makeBodyTable(trusted)
    const lost: LostPuts = new Map()
    const loaded = yield* loadTrusted(files.index, trusted, table, bodiesLength, lost)
    const kept = loaded.kept
    if (loaded.last !== undefined) {
      const last = loaded.last
      let found: ScannedRecord | undefined
      const check = yield* scanBodyRecords(files.bodies, sha256, last.at, bodiesLength, (record) => {
        found = record
      }, 1)
      if (found === undefined || check.end !== loaded.end || found.entry.kind !== last.entry.kind || !equal(found.entry.digest, last.entry.digest)) {
        return yield* damaged(`record ${kept - 1}, which was synced, is not valid at byte ${last.at}`)
      }
    }
    const synced = [...lost.values()]
    lost.clear()

    // Step 2: every valid record after them, applied in order.
    const tail = growable()
    const scanned = yield* scanBodyRecords(files.bodies, sha256, loaded.end, bodiesLength, (record) => {
      applyEntry(table, record.entry)
      const at = tail.reserve(INDEX_ENTRY_SIZE)
      encodeIndexEntry(tail.buffer(), at, record.entry)
    })

    // What the rest of the index describes past the verified records, read before step 3
    // rewrites it.
    const described = yield* describedTail(files.index, trusted, indexLength, loaded.described, kept < trusted ? 0 : scanned.end, lost)
    const unsynced = [...lost.values()]

    // Step 3: the index tail from the verified records, and `bodies` cut after them.
    yield* settleTail(files.index, "index", INDEX_ENTRY_SIZE * kept, tail.bytes(), indexLength)
    if (bodiesLength !== scanned.end) {
      yield* attempt("recover", "truncating bodies", () => files.bodies.truncate(scanned.end))
    }

    // Step 4: make what recovery kept and changed durable before anything is served.
    yield* Effect.all(
      [files.bodies, files.index].map((handle) => attempt("recover", "fdatasync", () => handle.datasync())),
      { concurrency: "unbounded", discard: true }
    )
    const end = { records: kept + scanned.count, bytes: scanned.end }
    if (synced.length === 0 && unsynced.length === 0 && described <= scanned.end) return { end, table }
    return { end, table, shortfall: { heldBytes: bodiesLength, describedBytes: described, synced, unsynced } }
  })
