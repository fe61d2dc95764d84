// Opening FsBodyStore after a clean stop or a crash: find the committed records and make the
// two files (bodyLayout.ts) agree on them. Which bodies they hold is the body index's job
// (bodyIndex.ts, a SQLite sidecar): recovery reads no more of the files than the last
// records, a few entries around the records it must locate, and the entries the sidecar
// has not applied yet, so neither its memory nor its reads grow with the store.
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
//      entries [0, t) and the records they describe are durable and are trusted without
//      reading a body: that is what keeps opening cheap on a big store. Record t starts
//      where the records of entries [0, t) end, which the entries before it say (the last
//      put entry before t says where its record is; the removals after it have a fixed
//      size). Entries are checked to chain (each put's offset is where the previous record
//      ends, each removal's target is before it) only from `chainFrom`, the records the
//      body index has applied, up to t: the entries below it were checked when they were
//      applied, and are read again only when the sidecar is rebuilt (from 0, checked
//      then); the store answers from the sidecar, not from them. Checking them all would
//      read the whole file at every open, which is what the sidecar is there to avoid.
//      The record of entry t-1 is read and verified, to check where record t starts and as
//      a guard against a damaged disk.
//   2. Records are scanned forward from there, each verified by its digest (bodyScan.ts).
//      Every record below c is valid, so the scan keeps at least c records: no answered put or remove is lost. A record of the torn group
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
// item 10) is not a failure: recovery compares the file's length with where record t
// starts, and then with where the last entry's record ends, and only when the file is
// shorter does it look further. Records end in file order, so the entries whose records lie
// past the file's end are a suffix: its start is found by a binary search over the entries
// (where record k starts, for a few k), and only that suffix is read. Removals come after
// their target, so a removal of a lost body is in the suffix too, and takes it out of the
// loss (retention had deleted it), wherever in the suffix it is; a removal in the suffix
// of a kept body changes nothing.
// The records that lie wholly inside the file are kept and served; those past its end are
// lost, and recovery answers their digests as the store's shortfall, in two parts. Those
// among the trusted entries were synced: lost for certain. Those of the last 2G entries may
// be a group a crash cut before its put was answered, which is no loss; the app
// (app/BodyShortfall.ts) tells the two apart by asking whether any leaf names them, since
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
  type IndexEntry
} from "./bodyLayout.js"
import type { BodyFiles } from "./bodyFiles.js"
import { readIndexSpan, recordSizeOf, recordStart, walkIndex } from "./bodyIndexFile.js"
import { scanBodyRecords, type ScannedRecord } from "./bodyScan.js"
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
  /** Records the index described that the file did not hold whole (its `file` is left empty here). */
  readonly shortfall?: Omit<BodyShortfall, "file">
}

const damaged = (detail: string) => new StorageError({ operation: "recover", detail })

const lengthOf = (handle: FileHandle, name: string) => attempt("recover", `stat ${name}`, async () => (await handle.stat()).size)

/** Whether the entry can follow records ending at `end`. */
const chains = (entry: IndexEntry, end: number): boolean =>
  entry.kind === "put" ? entry.offset === end && entry.length <= MAX_BODY_SIZE : entry.target < end

/**
 * Step 1's check: trusted entries [from, to) chain on from `start`, where record `from`
 * starts; answers where record `to` starts.
 */
const checkChain = (index: FileHandle, from: number, to: number, start: number) =>
  Effect.gen(function*() {
    let end = start
    let broken = -1
    yield* walkIndex(index, from, to, (entry, number) => {
      if (!chains(entry, end)) {
        broken = number
        return false
      }
      end += recordSizeOf(entry)
      return true
    })
    if (broken >= 0) return yield* damaged(`index entry ${broken}, which was synced, does not follow the entries before it`)
    return end
  })

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
 * A file cut short inside the trusted records: how many of entries [0, trusted) describe
 * records wholly inside its first `fileLength` bytes (records only grow the file, so a
 * binary search finds the first that does not), and where those end.
 */
const keptBefore = (index: FileHandle, trusted: number, fileLength: number) =>
  Effect.gen(function*() {
    // Invariant: records [0, low) end within the file, records [0, high) do not.
    let low = 0
    let lowEnd = 0
    let high = trusted
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2)
      const end = yield* recordStart(index, middle)
      if (end <= fileLength) [low, lowEnd] = [middle, end]
      else high = middle
    }
    return { kept: low, end: lowEnd }
  })

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
      if (!chains(entry, end)) break
      if (end >= whole) noteLost(lost, entry)
      end += recordSizeOf(entry)
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

/**
 * Recovers the store's files. `chainFrom`: the entries below it are not checked to chain
 * again (the body index applied them; see step 1), 0 to check them all.
 */
export const recoverBodies = (
  files: BodyFiles,
  sha256: (data: Uint8Array) => Uint8Array,
  chainFrom = 0
): Effect.Effect<RecoveredBodies, StorageError> =>
  Effect.gen(function*() {
    const bodiesLength = yield* lengthOf(files.bodies, "bodies")
    const indexLength = yield* lengthOf(files.index, "index")

    // Step 1: the trusted entries, and where the record after them starts; those of a file
    // cut short (see the header) that lie past its end are lost.
    const trusted = Math.max(0, Math.floor(indexLength / INDEX_ENTRY_SIZE) - MAX_UNSYNCED_RECORDS)
    const from = Math.min(chainFrom, trusted)
    const described = yield* checkChain(files.index, from, trusted, yield* recordStart(files.index, from))
    const lost: LostPuts = new Map()
    let kept = trusted
    let keptEnd = described
    if (described > bodiesLength) {
      ;({ kept, end: keptEnd } = yield* keptBefore(files.index, trusted, bodiesLength))
      yield* walkIndex(files.index, kept, trusted, (entry) => {
        noteLost(lost, entry)
        return true
      })
    }
    if (kept > 0) {
      const [last] = (yield* readIndexSpan(files.index, kept - 1, kept)).entries
      const at = keptEnd - recordSizeOf(last!)
      let found: ScannedRecord | undefined
      const check = yield* scanBodyRecords(files.bodies, sha256, at, bodiesLength, (record) => {
        found = record
      }, 1)
      if (found === undefined || check.end !== keptEnd || found.entry.kind !== last!.kind || !equal(found.entry.digest, last!.digest)) {
        return yield* damaged(`record ${kept - 1}, which was synced, is not valid at byte ${at}`)
      }
    }
    // Step 2: every valid record after them, in order.
    const tail = growable()
    const scanned = yield* scanBodyRecords(files.bodies, sha256, keptEnd, bodiesLength, (record) => {
      const at = tail.reserve(INDEX_ENTRY_SIZE)
      encodeIndexEntry(tail.buffer(), at, record.entry)
    })

    // What the rest of the index describes past the verified records, read before step 3
    // rewrites it.
    const describedEnd = yield* describedTail(files.index, trusted, indexLength, described, kept < trusted ? 0 : scanned.end, lost)
    // The trusted entries' records end at `described`: a put before it was synced.
    const synced = [...lost].flatMap(([offset, digest]) => (offset < described ? [digest] : []))
    const unsynced = [...lost].flatMap(([offset, digest]) => (offset >= described ? [digest] : []))

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
    if (synced.length === 0 && unsynced.length === 0 && describedEnd <= scanned.end) return { end }
    return { end, shortfall: { heldBytes: bodiesLength, describedBytes: describedEnd, synced, unsynced } }
  })
