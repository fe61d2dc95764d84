// FsBodyStore's index of its bodies (digest -> where its put record is) over a SQLite
// sidecar, so that neither the store's memory nor its start grows with the number of
// bodies (issue 12), as the log's findLeaf index does (leafFinder.ts).
//
// The sidecar is a cache; the files are the truth:
//   - the sidecar (bodySidecar.ts, `body-index.db` beside `bodies` and `index`) holds the
//     state after records [0, indexed) of the `index` file, written only after those
//     records are durable: a crash can leave it behind the files, never ahead of what they
//     hold. Lagging is always safe, since its tail is applied again from the index file;
//   - at open, before recovery, it is checked against the index file: its meta row keeps
//     the file's bytes of record indexed-1, and a sidecar whose bytes the file does not
//     hold there (another store's, one of files compacted or restored from an older copy,
//     which hold fewer records) is moved aside, loudly, and rebuilt. Its rows are not only
//     added, so unlike the leaf index it cannot be trusted up to a shorter store: it may
//     lack the row of a body whose removal those files do not have. Recovery then checks
//     only the entries after it (bodyRecovery.ts); should recovery cut the files below
//     `indexed` (a `bodies` file cut short), the sidecar is emptied and rebuilt;
//   - every candidate, from the sidecar or the tail, is confirmed by the caller against
//     the digest stored in front of the body in its record, so a row can cost a read,
//     never a wrong body;
//   - at open it applies the tail [indexed, records), reading only that span of the index
//     file: after a clean close nothing, after a crash the few batches the indexer had not
//     reached, after the sidecar was lost the whole store (said loudly);
//   - then new records are applied by the indexer (sidecarIndexer.ts), after the write that
//     made them durable has returned. Meanwhile they are the tail, in memory: the puts after
//     `indexed` (a BodyTable, bodyTable.ts) and the removals after it (another, keyed by
//     their target). A lookup takes the sidecar's rows plus the tail's puts, minus the
//     tail's removals: a removal always names an earlier put, so this is exactly the live
//     set, and a body removed a moment ago is hidden at once, before the indexer deletes its
//     row. The tail holds at most what the indexer has not reached: a quarter second of
//     records, or INDEX_CHUNK. Should indexing fail (a full disk), the tail grows until it
//     works again, as the log's unindexed tail does, and says so.
// Readers need no lock against the indexer. It commits a span of records, then drops them
// from the tail and moves `indexed`, in one synchronous step; a lookup reads the tail first
// (synchronously, a copy) and the sidecar after (which waits for a running transaction).
// The commit comes before the drop, so whichever side of either the two reads fall on, a
// record is in one of them or both (candidates are merged by offset), and a removal in the
// tail copy hides a row the sidecar may no longer have: never a miss, never a removed body.

import { join } from "node:path"
import type { Scope } from "effect"
import { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { equal } from "../../domain/bytes.js"
import { INDEX_ENTRY_SIZE, type IndexEntry } from "./bodyLayout.js"
import type { BodyFiles } from "./bodyFiles.js"
import { readIndexSpan } from "./bodyIndexFile.js"
import { recoverBodies, type RecoveredBodies } from "./bodyRecovery.js"
import { BODY_INDEX_FILE, bodyPrefix, openBodySidecar, type BodySidecar } from "./bodySidecar.js"
import { makeBodyTable, type BodyLocation } from "./bodyTable.js"
import { attempt, readInto } from "./fileIo.js"
import { catchUpAtOpen, forkIndexer, INDEX_CHUNK } from "./sidecarIndexer.js"

export interface BodyIndex {
  /**
   * For each digest, where the put records of the stored bodies whose digest starts like
   * it are: candidates, to confirm by the digest stored in each record.
   */
  readonly candidates: (digests: ReadonlyArray<Uint8Array>) => Effect.Effect<ReadonlyArray<ReadonlyArray<BodyLocation>>, StorageError>
  /** Makes records just committed (their entries, in order) visible, and wakes the indexer. */
  readonly publish: (entries: ReadonlyArray<IndexEntry>) => void
  /** Committed records the sidecar has not applied yet: the tail held in memory. */
  readonly unindexed: () => number
  /** Bodies stored (a count over the whole sidecar: for compaction, not the request path). */
  readonly count: Effect.Effect<number, StorageError>
}

export interface OpenedBodies extends RecoveredBodies {
  readonly index: BodyIndex
}

/** Why the sidecar cannot be this store's, or undefined: its last record must be the index file's. */
const checkAgainst = (files: BodyFiles) => (sidecar: BodySidecar) =>
  Effect.gen(function*() {
    const { indexed, lastEntry } = yield* sidecar.meta
    if (indexed === 0) return undefined
    const bytes = new Uint8Array(INDEX_ENTRY_SIZE)
    const read = yield* attempt("open", "reading the index file", () => readInto(files.index, bytes, INDEX_ENTRY_SIZE * (indexed - 1)))
    if (read < bytes.length) return `it applies ${indexed} records, more than the index file holds`
    return lastEntry !== undefined && equal(lastEntry, bytes) ? undefined : `its record ${indexed - 1} is not this store's`
  })

/**
 * Recovers the store's files (bodyRecovery.ts) and opens their index, which has applied
 * every committed record when this returns (or holds the rest as its tail, if it could not).
 */
export const openBodyIndex = (
  files: BodyFiles,
  sha256: (data: Uint8Array) => Uint8Array
): Effect.Effect<OpenedBodies, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const sidecar = yield* openBodySidecar(join(files.root, BODY_INDEX_FILE), checkAgainst(files))
    let indexed = (yield* sidecar.meta).indexed
    const recovered = yield* recoverBodies(files, sha256, indexed)
    let records = recovered.end.records
    if (indexed > records) {
      yield* Effect.logWarning(`body index: it applies ${indexed} records, more than the ${records} recovery kept; emptied, and rebuilt from the index file`)
      yield* sidecar.clear
      indexed = 0
    }

    // The tail: puts after `indexed`, and removals after it by their target.
    let tailPuts = makeBodyTable()
    let tailRemovals = makeBodyTable()
    const smallTable = tailPuts.memory()
    const addToTail = (entry: IndexEntry) => {
      if (entry.kind === "put") tailPuts.add(entry.digest, entry.offset, entry.length)
      else tailRemovals.add(entry.digest, entry.target, 0)
    }
    const dropFromTail = (entry: IndexEntry) => {
      if (entry.kind === "put") tailPuts.remove(entry.digest, entry.offset)
      else tailRemovals.remove(entry.digest, entry.target)
    }

    /** Applies records [indexed, target) in transactions of INDEX_CHUNK; one runs at a time. */
    const catchUp = (target: number) =>
      Effect.gen(function*() {
        while (indexed < target) {
          const to = Math.min(target, indexed + INDEX_CHUNK)
          const span = yield* readIndexSpan(files.index, indexed, to)
          // The swap (see the header): committed, then the tail and the count in memory move
          // at once, even if the indexer is interrupted (the store closing) as it commits.
          yield* Effect.uninterruptible(Effect.tap(sidecar.record(indexed, span.entries, span.lastBytes), () => {
            for (const entry of span.entries) dropFromTail(entry)
            indexed = to
          }))
        }
        // A table keeps the size its largest batch gave it: once empty, a small one again.
        if (tailPuts.count() === 0 && tailPuts.memory() > smallTable) tailPuts = makeBodyTable()
        if (tailRemovals.count() === 0 && tailRemovals.memory() > smallTable) tailRemovals = makeBodyTable()
      })

    const stopped = yield* catchUpAtOpen({
      from: indexed,
      to: records,
      catchUp: Effect.suspend(() => catchUp(records)),
      reached: () => indexed,
      name: "body index",
      units: "records",
      unit: "record",
      store: "the body store",
      meanwhile: "the rest is held in memory until the indexer catches up"
    })
    if (stopped) {
      // Lookups need every record: the rest goes to the tail, a chunk at a time.
      for (let from = indexed; from < records; from += INDEX_CHUNK) {
        for (const entry of (yield* readIndexSpan(files.index, from, Math.min(records, from + INDEX_CHUNK))).entries) addToTail(entry)
      }
    }

    const wake = yield* forkIndexer({
      backlog: () => records - indexed,
      catchUp: Effect.suspend(() => catchUp(records)),
      failing: (error) => `body index: cannot index past record ${indexed} (${error.detail}); the records after it are held in memory, and the next write retries`,
      resumed: () => `body index: indexing again, up to record ${indexed}`
    })

    const candidates = (digests: ReadonlyArray<Uint8Array>) =>
      Effect.suspend(() => {
        // The tail first, before anything yields (see the header).
        const tail = digests.map((digest) => ({
          puts: tailPuts.candidates(digest),
          removed: new Set(tailRemovals.candidates(digest).map((removal) => removal.offset))
        }))
        const prefixes = digests.map(bodyPrefix)
        return Effect.map(sidecar.candidates(prefixes), (rows) =>
          tail.map(({ puts, removed }, i) => {
            const found = new Map<number, BodyLocation>()
            for (const location of [...(rows.get(String(prefixes[i])) ?? []), ...puts]) {
              if (!removed.has(location.offset)) found.set(location.offset, location)
            }
            return [...found.values()]
          }))
      })

    const publish = (entries: ReadonlyArray<IndexEntry>) => {
      for (const entry of entries) addToTail(entry)
      records += entries.length
      wake()
    }

    const count = Effect.map(sidecar.count, (rows) => rows + tailPuts.count() - tailRemovals.count())

    return { ...recovered, index: { candidates, publish, unindexed: () => records - indexed, count } }
  })
