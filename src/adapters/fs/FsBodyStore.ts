// BodyStore on a local folder: an append-only log of self-validating records (bodyLayout.ts)
// and an index of them, written with positional I/O and made durable with fdatasync before
// a put or remove returns, like FsLogStore. A body costs one record in `bodies` and one
// 44-byte entry in `index`; a batch costs one write and one fdatasync per file, not one
// file, fsync and rename per body.
//
// Opening runs recovery (bodyRecovery.ts): without reading the bodies or the whole index, it
// verifies only the last 2 * MAX_UNSYNCED_RECORDS records at most, cuts a torn tail and
// syncs. Every record of an answered put or remove survives a crash or a power loss. Which
// body is where is the body index's (bodyIndex.ts): a SQLite sidecar, `body-index.db`,
// written after the records are durable, plus the records it has not applied yet, in
// memory. Nothing the store holds in memory grows with the number of bodies (issue 12).
// A `bodies` file found shorter than its index describes (damage, not a crash) opens too:
// the bodies past its end are the store's shortfallAtOpen, which app/BodyShortfall.ts
// reports, and every other is served.
//
// put(bodies):
//   1. refuses, before writing anything, a digest that is not 32 bytes, a body over
//      MAX_BODY_SIZE, and a body whose bytes do not hash to its digest: records are
//      validated by that hash at recovery, so a record that fails it would be cut as torn,
//      with everything after it;
//   2. drops duplicates within the batch, then (under the write lock) bodies already
//      stored: each candidate of the index is confirmed by the digest in its record;
//   3. appends the new records in groups (bodyAppend.ts): per group one positional write
//      per file at its committed end, then fdatasync of both in parallel;
//   4. after the last sync, moves the committed end and publishes the records to the index,
//      which makes them visible to get, and returns; the indexer writes them to the sidecar
//      later.
// get(digest) reads the record of each candidate of the index (one positional read) and
// returns the body of the one whose stored digest is the digest asked (getMany does so for
// many digests with one query of the index and one read call a round of candidates); the index only holds
// committed records, and bytes below the committed end never change, so reads take no lock
// and run alongside a write. has(digest) reads only each candidate's record header.
// remove(digests, fence) appends, for the whole batch at once, a removal record naming each
// put record it removes (one per stored copy; nothing for a body not stored), syncs them as
// a put does, then publishes the removals to the index: get answers none from then on, and
// after any reopen, since the index applies the removals (deleting the bodies' rows).
// The bytes stay in `bodies` until compactBodyStore (bodyCompact.ts) rewrites the files
// without them; it runs on a closed store (src/compactBodies.ts, the operator's command). The lease's fence is taken and not checked: one
// process writes the folder (below), and its sequencer keeps its own batches and retention
// apart and never loses its lease to another process (src/ports/BodyStore.ts).
//
// Writes are serialized by a semaphore and are uninterruptible once started, so a write
// never runs after its caller gave up, racing the next one at the same offset. If a write
// or sync fails, the page cache can no longer be trusted to match the disk (an fsync error
// may drop dirty pages), so the store refuses every later put and remove; reopening runs
// recovery on what the disk really holds.
//
// One process per folder: the store does not lock the folder against a second writer.

import { basename } from "node:path"
import { Effect, Layer, Option } from "effect"
import { equal, toHex } from "../../domain/bytes.js"
import { BodyStore, type StoredBody } from "../../ports/BodyStore.js"
import { Crypto } from "../../ports/Crypto.js"
import { StorageError } from "../../ports/StorageError.js"
import { appendRecords } from "./bodyAppend.js"
import { openBodyFiles } from "./bodyFiles.js"
import { BODIES_FILE, DIGEST_SIZE, MAX_BODY_SIZE, PUT_HEADER, type BodyRecord } from "./bodyLayout.js"
import { digestName, digestNames } from "./bodyName.js"
import { openBodyIndex } from "./bodyIndex.js"
import type { BodyLocation } from "./bodyTable.js"
import type { BodyEnd } from "./bodyRecovery.js"
import { headerDigest } from "./bodyScan.js"
import { readExactly, readRanges } from "./fileIo.js"

/** A digest as a string key (one character a byte), for deduplicating a batch. */
const latin1 = (digest: Uint8Array): string => Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString("latin1")

export const FsBodyStoreLive = (directory: string): Layer.Layer<BodyStore, StorageError, Crypto> =>
  Layer.scoped(
    BodyStore,
    Effect.gen(function*() {
      const { sha256 } = yield* Crypto
      const files = yield* openBodyFiles(directory)
      const recovered = yield* openBodyIndex(files, sha256)
      const index = recovered.index
      let committed: BodyEnd = recovered.end
      let unusable: StorageError | undefined

      const writes = yield* Effect.makeSemaphore(1)
      // Finalizers run in reverse order, so this one, added after the files were opened,
      // runs before they are closed: it waits for a running write, then refuses new ones.
      yield* Effect.addFinalizer(() =>
        writes.withPermits(1)(Effect.sync(() => {
          unusable = new StorageError({ operation: "put", detail: "the body store is closed" })
        }))
      )

      /** The put records among `candidates` that hold this digest (normally none or one). */
      const confirmed = (digest: Uint8Array, candidates: ReadonlyArray<BodyLocation>) =>
        Effect.filter(candidates, (candidate) =>
          Effect.map(
            readExactly(files.bodies, PUT_HEADER, candidate.offset, "bodies"),
            (header) => equal(headerDigest(header), digest)
          ))

      /** Offsets of the put records that hold each digest: one lookup in the index for all. */
      const storedCopies = (digests: ReadonlyArray<Uint8Array>) =>
        Effect.flatMap(index.candidates(digests), (candidates) =>
          Effect.forEach(digests, (digest, i) =>
            Effect.map(confirmed(digest, candidates[i]!), (copies) => copies.map((copy) => copy.offset))))

      /** Appends the records, then publishes them; a failure makes the store refuse writes. */
      const commit = (operation: string, records: ReadonlyArray<BodyRecord>) =>
        appendRecords(files, committed, records, sha256).pipe(
          Effect.tap(({ end, entries }) =>
            Effect.sync(() => {
              // Durable: publish (no read can run in between); the indexer takes the
              // records into the sidecar after this returns.
              committed = end
              index.publish(entries)
            })
          ),
          Effect.tapError((error) =>
            Effect.sync(() => {
              unusable = new StorageError({
                operation,
                detail: `refusing writes after a failed write (${error.detail}); reopen the store`,
                cause: error
              })
            })
          ),
          Effect.asVoid
        )

      /** Runs a write under the lock, uninterruptibly, unless the store refuses writes. */
      const locked = <A>(write: Effect.Effect<A, StorageError>) =>
        writes.withPermits(1)(Effect.uninterruptible(Effect.suspend(() => (unusable !== undefined ? Effect.fail(unusable) : write))))

      const put = (bodies: ReadonlyArray<StoredBody>) =>
        Effect.suspend(() => {
          const unique = new Map<string, StoredBody>()
          for (const body of bodies) {
            if (body.digest.length !== DIGEST_SIZE) return Effect.fail(digestName("put", body.digest) as StorageError)
            if (body.bytes.length > MAX_BODY_SIZE) {
              return Effect.fail(new StorageError({ operation: "put", detail: `body ${toHex(body.digest)} has ${body.bytes.length} bytes, more than ${MAX_BODY_SIZE}` }))
            }
            // A copy: the bytes written must be the bytes hashed, whatever the caller does
            // with its array while the put waits for the lock.
            const bytes = body.bytes.slice()
            if (!equal(sha256(bytes), body.digest)) {
              return Effect.fail(new StorageError({ operation: "put", detail: `the bytes of body ${toHex(body.digest)} do not hash to its digest` }))
            }
            unique.set(latin1(body.digest), { digest: body.digest.slice(), bytes })
          }
          if (unique.size === 0) return Effect.void
          return locked(Effect.gen(function*() {
            // A body with no candidate in the index is new, which is the common case and
            // costs no read of `bodies` (the batch costs one query of the sidecar, whose
            // pages are mostly cached); one with candidates is new unless a candidate's
            // record holds it.
            const batch = [...unique.values()]
            const copies = yield* storedCopies(batch.map((body) => body.digest))
            const fresh = batch.filter((_, i) => copies[i]!.length === 0)
            if (fresh.length === 0) return
            yield* commit("put", fresh.map((body): BodyRecord => ({ kind: "put", digest: body.digest, bytes: body.bytes })))
          }))
        })

      /**
       * Each digest's body: the record of its first candidate whose stored digest is the
       * digest. The candidates are tried in rounds, each round one readRanges of every
       * digest's next candidate (a page's fifty bodies in one read call's worth of work);
       * a digest whose 8-byte prefix another body shares may need a second round.
       */
      const getMany = (digests: ReadonlyArray<Uint8Array>) =>
        Effect.suspend(() => {
          const names = digestNames("get", digests)
          if (names instanceof StorageError) return Effect.fail(names)
          return Effect.gen(function*() {
            const candidates = yield* index.candidates(digests)
            const found: Array<Option.Option<Uint8Array>> = digests.map(() => Option.none())
            let tried = 0
            for (let pending = digests.map((_, i) => i); pending.length > 0; tried++) {
              pending = pending.filter((i) => candidates[i]!.length > tried)
              const records = yield* readRanges(files.bodies, pending.map((i) => {
                const candidate = candidates[i]![tried]!
                return { position: candidate.offset, length: PUT_HEADER + candidate.length }
              }), "bodies")
              pending = pending.filter((i, r) => {
                if (!equal(headerDigest(records[r]!), digests[i]!)) return true
                found[i] = Option.some(records[r]!.subarray(PUT_HEADER))
                return false
              })
            }
            return found
          })
        })

      const get = (digest: Uint8Array) => Effect.map(getMany([digest]), ([body]) => body!)

      // The same confirmation as remove's: one record header a candidate, never the bytes.
      const has = (digest: Uint8Array) =>
        Effect.suspend(() => {
          const name = digestName("has", digest)
          if (name instanceof StorageError) return Effect.fail(name)
          return Effect.map(storedCopies([digest]), ([copies]) => copies!.length > 0)
        })

      const remove = (digests: ReadonlyArray<Uint8Array>) =>
        Effect.suspend(() => {
          const names = digestNames("remove", digests)
          if (names instanceof StorageError) return Effect.fail(names)
          // Once each: two removal records of one copy would name a record already removed.
          const targets = new Map(names.map((name, i) => [name, digests[i]!.slice()]))
          return locked(Effect.gen(function*() {
            const removals: Array<BodyRecord> = []
            const list = [...targets.values()]
            const copies = yield* storedCopies(list)
            list.forEach((target, i) => {
              // Not stored: removing is idempotent, and a removal only ever names a live record.
              for (const offset of copies[i]!) removals.push({ kind: "removal", digest: target, target: offset })
            })
            if (removals.length > 0) yield* commit("remove", removals)
            return "removed" as const
          }))
        })

      // Named relative to the data folder, whose child this folder is: /healthz shows it.
      const shortfallAtOpen = recovered.shortfall === undefined ? undefined : { ...recovered.shortfall, file: `${basename(files.root)}/${BODIES_FILE}` }
      return BodyStore.of({ put, get, getMany, has, remove, shortfallAtOpen })
    })
  )
