// The ciphertext budget and retention, read from the projection store (issue 12: nothing
// that grows with the log lives in process memory, and a start costs the tail since the
// last fold, not the log). The fold keeps what they read (domain/write/applyEntry.ts):
// `ciphertexts`, every DM and capsule ciphertext in log order with its digest, expiry, size
// and the bytes of all the ciphertext before it (a resident counter keeps the total), and
// `bodyNaming`, every entry naming each digest. This process holds only the budget's
// cursor in that list and the last total it read (retention's cursor is in the store);
// the status of a body fetched by digest reads `bodyNaming` too (Bodies).
//
// Retention (docs/spec/service.md item 10, "Body status"; docs/protocol.md section 9): a ciphertext
// logged at t expires at t + retention_days (the body status says `expired` from that
// moment on, whether or not the bytes are gone yet). The body store keeps one copy of a
// body per digest, so other entries may name the same bytes: a public post, the charter,
// a later ciphertext. A background task therefore deletes bytes only when no entry that
// names their digest needs them any more (domain/bodyRetention.ts). It deletes on the
// process that sequences the log, between two batches (Sequencer.betweenBatches), on a
// decision taken on the projection holding every leaf committed (taken before, and taken
// again there if a leaf was committed since): no batch can then name the bytes between
// the decision and the deletion (a batch that names bytes already stored writes nothing
// to the body store). Each turn's deletes are one remove fenced by the lease this process
// sequences by: if a successor holds the lease (this process was deposed and has not
// noticed yet), the store deletes nothing and answers "superseded", and the turn stops
// without moving the cursor, leaving its ciphertexts for the successor (docs/operations.md,
// "Retention").
//
// Its work is the `ciphertexts` list itself: `logged` never goes backwards
// (domain/write/decide.ts) and retention_days is leaf 0's term, so log order is expiry
// order, and a turn takes the ciphertexts from the retention cursor on until one is not
// yet due. Each is decided by reading the entries naming its digest newest first
// (domain/bodyRetention.ts NamingScan): only the digest's newest entry decides, so bytes
// written many times are decided once, when their last write expires, and a public entry
// keeps them for good. The leaf stays.
//
// Where retention stands is kept in the projection store beside `folded`
// (ProjectionStore.retained), written after each turn's remove succeeded: a restart, and on
// PostgreSQL the node that sequences next, go on from there, so nothing walks the log's
// ciphertext again. It only moves forward, and deleting is idempotent, so two turns that
// overlap (a deposed node's and its successor's) at worst decide some ciphertexts twice. A
// rebuilt projection (a new state.db, another layout) starts it at 0 again: its first turns
// then re-decide the ciphertext once, as the rebuild folds the log once.
//
// Budget: the bytes of ciphertext not yet expired and not hidden, on every process: the
// total counter less the bytes before the first ciphertext not yet expired (`before` of
// that element), found at start by a binary search over the list's expiries, then followed
// forward as time passes, and less the ciphertext a tombstone hid that has not expired yet
// (its bytes are deleted, or kept only for another entry that counts them itself). The
// tombstones are resident state; this process keeps, beside each one that hid ciphertext
// still unexpired, that ciphertext's size and expiry, so the part of the budget they hide
// costs a lookup per tombstone once, and nothing that grows with the log. When adding a new ciphertext would pass AICS_CIPHERTEXT_BUDGET_BYTES, writes
// of new ciphertext are refused and /healthz says DEGRADED, until retention frees room or
// the operator raises the budget.

import { Context, Duration, Effect, HashMap, Layer, Option, Stream, SubscriptionRef } from "effect"
import { type NamingScan, SCAN_START, scanDeletes, scanSettled, scanWith, TOMBSTONE_SCAN_START } from "../domain/bodyRetention.js"
import type { BodyEntry } from "../domain/bodyStatus.js"
import { decodeU64 } from "../domain/encoding.js"
import { tombstoneOf, tombstonesFrom } from "../domain/governance/tombstones.js"
import type { CiphertextRecord } from "../domain/write/logState.js"
import { BodyStore } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import type { LeaseFence } from "../ports/LeaseFence.js"
import { LogStore } from "../ports/LogStore.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"
import { Charter } from "./Charter.js"
import { elementsFrom, newestUntil, positionFrom } from "./listReads.js"
import { LogWriter } from "./LogWriter.js"
import { NodeRole } from "./NodeRole.js"
import { Sequencer } from "./Sequencer.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { StateReader } from "./StateReader.js"

/** Ciphertexts (and tombstones) decided per turn between two batches, so retention never holds writes up for long. */
const DECIDE_CHUNK = 64
/** Ciphertexts read at once while the budget's cursor follows the time. */
const COUNT_PAGE = 256
/** Entries naming a digest read at once (most digests have one or two). */
export const NAMING_PAGE = 16

/** The list of ciphertext, one sequence (stateAreas.ts). */
const CIPHERTEXTS = ["ciphertexts", ""] as const

/** Where the budget counts from: the first ciphertext not yet expired, and the bytes of all before it. */
interface BudgetCursor {
  readonly position: number
  readonly bytes: number
}

const expiryOf = (record: CiphertextRecord): number => record.expiresAt
const indexOf = (record: CiphertextRecord): number => record.index

export class BodyLedger extends Context.Tag("aics/BodyLedger")<BodyLedger, {
  /** Bytes of ciphertext not yet expired and not hidden by a tombstone. */
  readonly liveBytes: Effect.Effect<number>
  /** Whether `size` more bytes fit in the budget now. */
  readonly fits: (size: number) => Effect.Effect<boolean>
  /** Whether the budget is exhausted (nothing more of a useful size fits). */
  readonly exhausted: Effect.Effect<boolean>
  /**
   * Counts out of the budget the ciphertext expired by now and, on the process that
   * sequences the log, deletes the bytes no entry needs any more (expired, or hidden by a
   * tombstone); answers how many digests it deleted.
   */
  readonly reclaimNow: Effect.Effect<number>
}>() {
  static readonly layer = Layer.scoped(BodyLedger, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const log = yield* LogStore
    const projection = yield* ProjectionStore
    const reader = yield* StateReader
    const bodies = yield* BodyStore
    const writer = yield* LogWriter
    const sequencer = yield* Sequencer
    const { leading } = yield* NodeRole
    const clock = yield* Clock
    const { retentionDays } = (yield* Charter).terms

    // The last total read: what the budget answers while the projection cannot be read.
    let total = 0
    let counted: BudgetCursor | undefined
    // The ciphertext a tombstone hid, not yet expired, by its leaf; the tombstones looked at are those logged before `hiddenFrom`.
    const hidden = new Map<number, Pick<CiphertextRecord, "size" | "expiresAt">>()
    let hiddenFrom = 0
    let hiddenBytes = 0
    const budgetLock = yield* Effect.makeSemaphore(1)

    /** Bytes of all the ciphertext committed, expired or not. */
    const totalBytes = reader.resident.pipe(
      Effect.map((resident) => (total = resident.counters.ciphertextBytes)),
      Effect.orElseSucceed(() => total)
    )

    /** The budget's cursor at `now`, by a binary search over the list's expiries: log2 of its length in reads. */
    const cursorAt = (now: number): Effect.Effect<BudgetCursor, StorageError> =>
      Effect.gen(function*() {
        // Expired means now >= expiresAt; expiries are whole milliseconds.
        const { position, length, last } = yield* positionFrom(reader, ...CIPHERTEXTS, expiryOf, Math.floor(now) + 1)
        if (last === undefined) return { position: 0, bytes: 0 }
        if (position >= length) return { position, bytes: last.before + last.size }
        const [first] = yield* elementsFrom<CiphertextRecord>(reader, ...CIPHERTEXTS, position, 1)
        return { position, bytes: first!.before }
      })

    /** Moves the budget's cursor past what expired by `now`, reading only those elements. */
    const countExpired = (now: number) =>
      budgetLock.withPermits(1)(Effect.gen(function*() {
        let cursor = counted ?? (yield* cursorAt(now))
        while (true) {
          const page = yield* elementsFrom<CiphertextRecord>(reader, ...CIPHERTEXTS, cursor.position, COUNT_PAGE)
          const expired = page.findIndex((record) => record.expiresAt > now)
          const through = expired === -1 ? page.length : expired
          if (through > 0) {
            const last = page[through - 1]!
            cursor = { position: cursor.position + through, bytes: last.before + last.size }
          }
          if (through < COUNT_PAGE) break
        }
        counted = cursor
        yield* countHidden(now)
      }))

    /** Takes the tombstones logged since the last count into `hidden`, and out of it the ciphertext expired by `now`. */
    const countHidden = (now: number) =>
      Effect.gen(function*() {
        const resident = yield* reader.resident
        while (true) {
          const tombstones = tombstonesFrom(resident, hiddenFrom, COUNT_PAGE)
          for (const { target } of tombstones) {
            // The ciphertext list is in log order: the target's element, if it is ciphertext, is where a search for its leaf lands.
            const { position, length } = yield* positionFrom(reader, ...CIPHERTEXTS, indexOf, target)
            const [record] = position < length ? yield* elementsFrom<CiphertextRecord>(reader, ...CIPHERTEXTS, position, 1) : []
            if (record?.index === target && record.expiresAt > now && !hidden.has(target)) {
              hidden.set(target, { size: record.size, expiresAt: record.expiresAt })
              hiddenBytes += record.size
            }
          }
          if (tombstones.length > 0) hiddenFrom = tombstones.at(-1)!.index + 1
          if (tombstones.length < COUNT_PAGE) break
        }
        for (const [target, record] of hidden) {
          if (record.expiresAt <= now) {
            hidden.delete(target)
            hiddenBytes -= record.size
          }
        }
      })

    /**
     * Whether the bytes of `digest` may be deleted at `now`, read from `start` (domain/bodyRetention.ts
     * NamingScan) for the entry at leaf `index`, with `hidden` saying which entries a tombstone hides.
     */
    const deletable = (digest: string, index: number, start: NamingScan, hidden: (index: number) => boolean, now: number) =>
      Effect.gen(function*() {
        let scan = start
        yield* newestUntil<BodyEntry, never>(reader, "bodyNaming", digest, NAMING_PAGE, (page) =>
          Effect.sync(() => {
            for (const entry of page) {
              scan = scanWith(scan, entry, index, retentionDays, hidden(entry.index))
              if (scanSettled(scan, now)) return true
            }
            return false
          }))
        return scanDeletes(scan, now)
      })

    /**
     * What a turn would do at `now` on the log as this process has committed it: decide at
     * most DECIDE_CHUNK due ciphertexts from the ciphertexts' cursor on and as many
     * tombstones from theirs, and name the digests whose bytes no entry needs any more.
     * `size` is the log it was decided on.
     */
    const plan = (now: number) =>
      Effect.gen(function*() {
        // Taken before the reads, which bring the projection at least this far (StateReader).
        const size = (yield* sequencer.point).folded
        const resident = yield* reader.resident
        const hidden = (index: number) => tombstoneOf(resident, index) !== undefined
        const doomed = new Set<string>()

        // The ciphertext, as it comes due: log order is expiry order.
        const from = yield* projection.retained("ciphertexts")
        const page = yield* elementsFrom<CiphertextRecord>(reader, ...CIPHERTEXTS, from, DECIDE_CHUNK)
        const notDue = page.findIndex((record) => record.expiresAt > now)
        const due = notDue === -1 ? page : page.slice(0, notDue)
        for (const record of due) {
          if (!doomed.has(record.digest) && (yield* deletable(record.digest, record.index, SCAN_START, hidden, now))) {
            doomed.add(record.digest)
          }
        }

        // The tombstones logged since the last turn: each hid one entry's body, perhaps the
        // last entry that needed its bytes.
        const tombstonesAt = yield* projection.retained("tombstones")
        const tombstones = tombstonesFrom(resident, tombstonesAt, DECIDE_CHUNK)
        const targets = tombstones.length === 0
          ? undefined
          : yield* reader.slice(tombstones.map((tombstone) => ({ area: "bodies" as const, key: String(tombstone.target) })))
        for (const tombstone of tombstones) {
          const digest = Option.getOrUndefined(HashMap.get(targets!.bodies, tombstone.target))
          if (digest !== undefined && !doomed.has(digest) && (yield* deletable(digest, tombstone.target, TOMBSTONE_SCAN_START, hidden, now))) {
            doomed.add(digest)
          }
        }

        return {
          size,
          ciphertexts: { from, decided: due.length },
          tombstones: { decided: tombstones.length, next: tombstones.length === 0 ? tombstonesAt : tombstones.at(-1)!.index + 1 },
          doomed: [...doomed]
        }
      })

    /**
     * One turn of retention between two batches, under the lease `fence`: the deletes of
     * `planned` if no leaf was committed since it was decided, else of a plan decided anew
     * here, then the cursor moved past what was decided. Deciding first, outside the
     * sequencer's turn, keeps the store reads of a turn from holding writes up; a leaf
     * committed in between could name a doomed digest (or be a tombstone), so the plan then
     * does not count.
     * Answers how many digests it deleted and whether more may be due.
     */
    const retainTurn = (now: number, planned: Effect.Effect.Success<ReturnType<typeof plan>>) => (fence: LeaseFence) =>
      Effect.gen(function*() {
        const size = yield* SubscriptionRef.get(writer.size)
        // Leaves this process did not write: it no longer sequences, though it has not yet
        // noticed (docs/protocol.md section 14). Its successor retains. This spares the
        // deletes when the deposition shows already; the fence below covers a successor
        // that takes the lease after this check.
        if ((yield* log.size) !== size) return { deleted: 0, more: false }
        const unmoved = planned.size === size && (yield* sequencer.point).folded === size
        const { ciphertexts, tombstones, doomed } = unmoved ? planned : yield* plan(now)
        if (ciphertexts.decided === 0 && tombstones.decided === 0) return { deleted: 0, more: false }
        if (doomed.length > 0 && (yield* bodies.remove(doomed.map((digest) => decodeU64(digest)!), fence)) === "superseded") {
          yield* Effect.logWarning(
            `retention stopped: a later sequencing lease exists (this one's epoch is ${fence.epoch}), so the ${doomed.length} digests due are left to the new sequencer`
          )
          return { deleted: 0, more: false }
        }
        // Moved only once deleted: what a failed remove leaves, the next turn decides again.
        yield* projection.retain("ciphertexts", ciphertexts.from + ciphertexts.decided)
        yield* projection.retain("tombstones", tombstones.next)
        return { deleted: doomed.length, more: ciphertexts.decided === DECIDE_CHUNK || tombstones.decided === DECIDE_CHUNK }
      })

    const reclaimNow = Effect.gen(function*() {
      const now = yield* clock.nowMillis
      yield* countExpired(now).pipe(
        Effect.catchAll((error) => Effect.logWarning("the ciphertext budget could not count what expired; it tries again", error))
      )
      let deleted = 0
      while (true) {
        // Only the process that sequences decides: the others would read for nothing.
        if (!(yield* SubscriptionRef.get(leading))) return deleted
        const turn = yield* sequencer.betweenBatches(retainTurn(now, yield* plan(now)))
        if (Option.isNone(turn)) return deleted
        deleted += turn.value.deleted
        if (!turn.value.more) return deleted
      }
    }).pipe(
      // What a failed turn did not delete, the next run decides again: the cursor stayed.
      Effect.catchAll((error) => Effect.as(Effect.logWarning("retention could not delete the bodies no entry needs; it tries again", error), 0))
    )

    // The budget's cursor at start: a binary search, whatever the log's length. A store that
    // cannot be read yet (a full disk) leaves the budget counting every ciphertext until
    // the first run that can.
    yield* totalBytes
    yield* countExpired(yield* clock.nowMillis).pipe(
      Effect.catchAll((error) => Effect.logWarning("the ciphertext budget could not be read at start; it counts every ciphertext until it can", error))
    )
    // Retention runs at start and every minute, at once when this process comes to sequence
    // the log (which a start is followed by), and after each batch that committed a
    // tombstone, so a hidden body's bytes go within a batch or two of it (an owner who
    // stops the service to compact the body store next finds them gone); expiry itself is
    // exact to the millisecond in body status. The tombstones are resident: counting them
    // after a batch costs nothing.
    const startsSequencing = leading.changes.pipe(Stream.filter((lead) => lead))
    const tombstoneCount = reader.resident.pipe(Effect.map((resident) => HashMap.size(resident.governance.tombstones)))
    let tombstonesSeen = yield* Effect.orElseSucceed(tombstoneCount, () => 0)
    const tombstoneLogged = writer.size.changes.pipe(
      // Only the latest size matters: a turn in progress lets the batches it missed collapse.
      Stream.buffer({ capacity: 1, strategy: "sliding" }),
      Stream.mapEffect(() => Effect.orElseSucceed(tombstoneCount, () => tombstonesSeen)),
      Stream.filter((count) => {
        const more = count > tombstonesSeen
        tombstonesSeen = count
        return more
      })
    )
    yield* Effect.forkScoped(Stream.mergeAll([Stream.tick(Duration.minutes(1)), startsSequencing, tombstoneLogged], { concurrency: 3 }).pipe(
      Stream.runForEach(() =>
        Effect.flatMap(reclaimNow, (deleted) =>
          deleted === 0 ? Effect.void : Effect.logInfo(`retention removed the bytes of ${deleted} bodies no entry needs (expired or hidden by a tombstone)`).pipe(Effect.annotateLogs({ bodies: deleted }))))
    ))

    const liveBytes = Effect.map(totalBytes, (bytes) => bytes - (counted?.bytes ?? 0) - hiddenBytes)
    return {
      liveBytes,
      fits: (size) => Effect.map(liveBytes, (live) => live + size <= config.ciphertextBudgetBytes),
      exhausted: Effect.map(liveBytes, (live) => live + 1024 > config.ciphertextBudgetBytes),
      reclaimNow
    }
  }))
}
