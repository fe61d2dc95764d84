// Opening FsLogStore after a clean stop or a crash: find the committed size n and make the
// three files (logLayout.ts) agree on it.
//
// What a crash can leave. append writes one group of at most MAX_UNSYNCED_LEAVES leaves at
// the end of each file, fdatasyncs all three, and only then goes on or acknowledges. So
// when the process is killed or the machine loses power, with c the number of leaves in
// fully synced groups (every acknowledged batch is among them):
//   - the first c records, c offsets and storedHashCount(c) hashes are durable and right;
//   - after them each file may hold any part of the one group being written: nothing, a
//     prefix of it, or (power loss) its bytes with some pages missing or zeroed; never
//     more, because nothing else was written since the last fsync. In particular the
//     offsets file holds at most c + MAX_UNSYNCED_LEAVES entries.
//
// What recovery trusts and what it verifies.
//   1. t = max(0, floor(offsets length / 8) - MAX_UNSYNCED_LEAVES). By the bound above
//      t <= c, so offsets [0, t), the records they point at and the hashes
//      [0, storedHashCount(t)) are durable and are trusted without being read: that is
//      what keeps opening cheap on a large log. The record of leaf t-1 is still read and
//      verified, to find where record t starts and as a guard against a damaged disk.
//   2. Records are scanned forward from there, each verified by its trailing leaf hash
//      (recordScan.ts); n = t + the number of valid records. Every record below c is
//      valid, so n >= c: no acknowledged leaf is lost. A record of the torn group counts
//      only if it is whole, and the first one that is not ends the scan, so the log keeps
//      a prefix of whole leaves. The scan reads at most 2 * MAX_UNSYNCED_LEAVES records.
//   3. The files are cut or completed to exactly n leaves:
//      - leaves is truncated after record n-1, dropping a torn tail;
//      - offsets [t, n) are rewritten from the scan, since any of them may be torn;
//      - hashes [storedHashCount(t), storedHashCount(n)) are recomputed: the frontier of
//        size t is read from its stored hashes (trusted by step 1) and appendLeaf over the
//        verified leaf hashes of t..n-1 yields every later stored hash. Hash bytes beyond
//        the trusted prefix are never trusted: a torn hash looks like any other hash.
//      A tail that already holds exactly those bytes is left as it is.
//   4. All three files are fdatasynced, even when nothing changed: the records of the torn
//      group that recovery kept may exist only in the page cache (a killed process's writes
//      survive it there), and from now on they are committed leaves.
// A crash during recovery leaves a state of the same kind (recovery writes only leaves
// below c + MAX_UNSYNCED_LEAVES), so recovery simply runs again on the next open.
// When the trusted part itself is inconsistent (record t-1 invalid, the hashes file
// shorter than storedHashCount(t)), the disk lost acknowledged data: opening fails with a
// StorageError instead of quietly shortening the log.

import type { FileHandle } from "node:fs/promises"
import { Effect } from "effect"
import { appendLeaf, frontierFromHashes, frontierIndexes } from "../../domain/tlog/frontier.js"
import { HASH_SIZE, type TreeHasher } from "../../domain/tlog/hasher.js"
import { storedHashCount } from "../../domain/tlog/storedHash.js"
import { StorageError } from "../../ports/StorageError.js"
import { attempt, readExactly, settleTail } from "./fileIo.js"
import type { LogFiles } from "./logFiles.js"
import { MAX_UNSYNCED_LEAVES, OFFSET_SIZE, readUint64, writeUint64 } from "./logLayout.js"
import { scanRecords } from "./recordScan.js"

export interface RecoveredLog {
  /** Committed leaves. */
  readonly size: number
  /** Length of the leaves file: where the next record goes. */
  readonly leavesEnd: number
}

const damaged = (detail: string) => new StorageError({ operation: "recover", detail })

const lengthOf = (handle: FileHandle, name: string) => attempt("recover", `stat ${name}`, async () => (await handle.stat()).size)


export const recoverLog = (files: LogFiles, hasher: TreeHasher): Effect.Effect<RecoveredLog, StorageError> =>
  Effect.gen(function*() {
    const leavesLength = yield* lengthOf(files.leaves, "leaves")
    const offsetsLength = yield* lengthOf(files.offsets, "offsets")
    const hashesLength = yield* lengthOf(files.hashes, "hashes")

    // Step 1: the trusted prefix, and where the record after it starts.
    const trusted = Math.max(0, Math.floor(offsetsLength / OFFSET_SIZE) - MAX_UNSYNCED_LEAVES)
    let scanFrom = 0
    if (trusted > 0) {
      const offset = readUint64(yield* readExactly(files.offsets, OFFSET_SIZE, OFFSET_SIZE * (trusted - 1), "offsets"), 0)
      const last = yield* scanRecords(files.leaves, hasher, offset, leavesLength, 1)
      if (last.offsets.length !== 1) {
        return yield* damaged(`leaf ${trusted - 1}, which was synced, has no valid record at byte ${offset}: the log's files disagree ` +
          `(a damaged disk, or a copy of a running service's files taken out of order; restore a copy made while it was stopped or from a snapshot: docs/operations.md "Backups and restores")`)
      }
      scanFrom = last.end
    }
    const trustedHashes = storedHashCount(trusted)
    if (hashesLength < HASH_SIZE * trustedHashes) {
      return yield* damaged(`the hashes file holds ${Math.floor(hashesLength / HASH_SIZE)} hashes, fewer than the ${trustedHashes} synced ones`)
    }

    // Step 2: every valid record after it.
    const scanned = yield* scanRecords(files.leaves, hasher, scanFrom, leavesLength)
    const size = trusted + scanned.offsets.length

    // Step 3: offsets and hashes for leaves [trusted, size), from the verified records.
    const offsetsTail = new Uint8Array(OFFSET_SIZE * scanned.offsets.length)
    scanned.offsets.forEach((offset, i) => writeUint64(offsetsTail, OFFSET_SIZE * i, offset))
    const positions = frontierIndexes(trusted)
    const frontierBytes = yield* Effect.forEach(positions, (position) =>
      readExactly(files.hashes, HASH_SIZE, HASH_SIZE * position, "hashes"))
    let frontier = frontierFromHashes(trusted, frontierBytes)
    const hashesTail = new Uint8Array(HASH_SIZE * (storedHashCount(size) - trustedHashes))
    let at = 0
    for (const leafHash of scanned.leafHashes) {
      const step = appendLeaf(hasher, frontier, leafHash)
      frontier = step.frontier
      for (const hash of step.stored) {
        hashesTail.set(hash, at)
        at += HASH_SIZE
      }
    }

    yield* settleTail(files.offsets, "offsets", OFFSET_SIZE * trusted, offsetsTail, offsetsLength)
    yield* settleTail(files.hashes, "hashes", HASH_SIZE * trustedHashes, hashesTail, hashesLength)
    if (leavesLength !== scanned.end) {
      yield* attempt("recover", "truncating leaves", () => files.leaves.truncate(scanned.end))
    }

    // Leaves the offsets named that were not whole: the group a crash cut short (never an
    // acknowledged one), or the tail of a copy taken while the service wrote. Said, so that
    // neither goes unnoticed.
    const named = Math.floor(offsetsLength / OFFSET_SIZE)
    if (size < named) {
      yield* Effect.logWarning(`log: the offsets named ${named} leaves, the last ${named - size} with no whole record (a write cut short by a crash, or a copy taken while the service wrote); the log holds ${size}`)
    }

    // Step 4: make what recovery kept and changed durable before anything is served.
    yield* Effect.all(
      [files.leaves, files.offsets, files.hashes].map((handle) => attempt("recover", "fdatasync", () => handle.datasync())),
      { concurrency: "unbounded", discard: true }
    )
    return { size, leavesEnd: scanned.end }
  })
