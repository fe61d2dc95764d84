// Every off-leaf body the log names, by digest: every entry that names it (its index, type
// and time), so a body fetched by digest gets the status those entries give it
// (domain/bodyStatus.ts, digestStatus; docs/spec/service.md "Body status"), and the summary of those
// entries that retention decides by (domain/bodyRetention.ts, neededUntilWith). Besides,
// the DM and capsule ciphertext, in log order (which is `logged` order), with its size: what
// the ciphertext budget counts. It follows the log: as the committed size grows it reads the
// new leaves, and after a restart it is rebuilt from them.
//
// Retention (docs/spec/service.md item 10, "Body status"; docs/protocol.md section 9): a ciphertext
// logged at t expires at t + retention_days (the body status says `expired` from that
// moment on, whether or not the bytes are gone yet). The body store keeps one copy of a
// body per digest, so other entries may name the same bytes: a public post, the charter,
// a later ciphertext. A background task therefore deletes bytes only when no entry that
// names their digest needs them any more (domain/bodyRetention.ts). It deletes on the
// process that sequences the log, between two batches (Sequencer.betweenBatches), after
// reading every leaf committed: no batch can then name the bytes between the decision and
// the deletion (a batch that names bytes already stored writes nothing to the body store).
// Each turn's deletes are one remove fenced by the lease this process sequences by: if a
// successor holds the lease (this process was deposed and has not noticed yet), the store
// deletes nothing and answers "superseded", and the turn stops with its digests still
// pending, for the successor to delete (docs/operations.md, "Retention").
//
// Its work is `pending`: each digest whose bytes some expiring entry still holds, once,
// with its summary. A digest goes to the end whenever its summary changes, and leaves when
// its summary becomes Infinity (a public body names it) or its bytes are deleted. Since
// `logged` never goes backwards (domain/write/decide.ts), a finite summary is the expiry of
// the digest's latest ciphertext, so the last digest moved is the latest to come due:
// `pending` stays in order of its summaries, and a turn takes digests from its front until
// one is not yet due. So each digest is decided once per expiry in O(1), however often its
// bytes were written, and nothing is scanned twice. A process that does not sequence keeps
// its `pending` too (at most one record per ciphertext digest, as `naming` has anyway): when
// it comes to sequence, it deletes whatever its predecessor left; deleting is idempotent.
// The leaf stays.
//
// Budget: the bytes of ciphertext not yet expired, on every process. When adding a new
// ciphertext would pass AICS_CIPHERTEXT_BUDGET_BYTES, writes of new ciphertext are refused
// and /healthz says DEGRADED, until retention frees room or the operator raises the budget.

import { Context, Duration, Effect, Layer, Option, Stream, SubscriptionRef } from "effect"
import { bodyReference } from "../domain/bodyReference.js"
import { dueDigests, neededUntilWith, NOT_NAMED, notePending } from "../domain/bodyRetention.js"
import { expiresUnder, type BodyEntry } from "../domain/bodyStatus.js"
import { fromHex, fromUtf8, toHex } from "../domain/bytes.js"
import { BodyStore } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import type { LeaseFence } from "../ports/LeaseFence.js"
import { LogStore } from "../ports/LogStore.js"
import { Charter } from "./Charter.js"
import { LogWriter } from "./LogWriter.js"
import { NodeRole } from "./NodeRole.js"
import { Sequencer } from "./Sequencer.js"
import { ServiceConfig } from "./ServiceConfig.js"

/** Leaves read per step while following the log. */
const READ_CHUNK = 1024
/** Digests deleted per turn between two batches, so retention never holds writes up for long. */
const DELETE_CHUNK = 64

interface Ciphertext {
  readonly expiresAt: number
  readonly size: number
}

/** The entries naming one digest, and their summary (domain/bodyRetention.ts). */
interface Named {
  readonly entries: Array<BodyEntry>
  until: number
}

const keyOf = (digest: Uint8Array): string => toHex(digest)

export class BodyLedger extends Context.Tag("aics/BodyLedger")<BodyLedger, {
  /** Every entry that names this body, in log order (none when no entry does). */
  readonly entriesNaming: (digest: Uint8Array) => Effect.Effect<ReadonlyArray<BodyEntry>>
  /** Bytes of ciphertext not yet expired. */
  readonly liveBytes: Effect.Effect<number>
  /** Whether `size` more bytes fit in the budget now. */
  readonly fits: (size: number) => Effect.Effect<boolean>
  /** Whether the budget is exhausted (nothing more of a useful size fits). */
  readonly exhausted: Effect.Effect<boolean>
  /**
   * Counts out of the budget the ciphertext expired by now and, on the process that
   * sequences the log, deletes the bytes no entry needs any more; answers how many digests
   * it deleted.
   */
  readonly expireNow: Effect.Effect<number>
}>() {
  static readonly layer = Layer.scoped(BodyLedger, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const store = yield* LogStore
    const bodies = yield* BodyStore
    const writer = yield* LogWriter
    const sequencer = yield* Sequencer
    const { leading } = yield* NodeRole
    const clock = yield* Clock
    const { retentionDays } = (yield* Charter).terms

    const naming = new Map<string, Named>()
    // Digests retention has yet to delete, in order of their summaries (see the header).
    const pending = new Map<string, number>()
    // Ciphertext in log order, so in order of expiry. The budget counts from `counted` on.
    const ciphertexts: Array<Ciphertext> = []
    let counted = 0
    let live = 0
    let followed = 0
    const lock = yield* Effect.makeSemaphore(1)

    /** Reads the leaves up to `size`; the caller holds `lock`. */
    const followTo = (size: number) =>
      Effect.gen(function*() {
        while (followed < size) {
          const to = Math.min(size, followed + READ_CHUNK)
          const leaves = yield* store.readEntries(followed, to)
          for (const bytes of leaves) {
            const leaf = JSON.parse(fromUtf8(bytes)) as { envelope: { type: string; payload: Record<string, unknown> }; index: number; logged: number }
            const reference = bodyReference(leaf.envelope.payload)
            if (reference === undefined) continue
            const key = keyOf(reference.digest)
            const entry: BodyEntry = { index: leaf.index, type: leaf.envelope.type, logged: leaf.logged }
            let named = naming.get(key)
            if (named === undefined) naming.set(key, named = { entries: [], until: NOT_NAMED })
            named.entries.push(entry)
            const until = neededUntilWith(named.until, entry, retentionDays)
            if (until !== named.until) {
              named.until = until
              notePending(pending, key, until)
            }
            const expiresAt = expiresUnder(entry, retentionDays)
            if (expiresAt === null) continue
            const size = reference.size ?? 0
            ciphertexts.push({ expiresAt, size })
            live += size
          }
          followed = to
        }
      })

    const follow = (size: number) => lock.withPermits(1)(followTo(size))

    /** Drops the prefix the budget has counted out, once it is most of the array. */
    const compact = () => {
      if (counted > 1024 && counted * 2 > ciphertexts.length) {
        ciphertexts.splice(0, counted)
        counted = 0
      }
    }

    const countExpired = (now: number) =>
      lock.withPermits(1)(Effect.sync(() => {
        while (counted < ciphertexts.length && ciphertexts[counted]!.expiresAt <= now) {
          live -= ciphertexts[counted]!.size
          counted++
        }
        compact()
      }))

    /**
     * One turn of retention between two batches, under the lease `fence`: reads every leaf
     * committed, then deletes the bytes of at most DELETE_CHUNK digests that no entry needs
     * any more. Answers how many it deleted and whether a due digest is left for another turn.
     */
    const retainTurn = (now: number) => (fence: LeaseFence) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const size = yield* SubscriptionRef.get(writer.size)
        // Leaves this process did not write: it no longer sequences, though it has not yet
        // noticed (docs/protocol.md section 14). Its successor retains. This spares the
        // deletes when the deposition shows already; the fence below covers a successor
        // that takes the lease after this check.
        if ((yield* store.size) !== size) return { deleted: 0, more: false }
        yield* followTo(size)
        const due = dueDigests(pending, now, DELETE_CHUNK)
        if (due.length === 0) return { deleted: 0, more: false }
        if ((yield* bodies.remove(due.map((key) => fromHex(key)!), fence)) === "superseded") {
          yield* Effect.logWarning(
            `retention stopped: a later sequencing lease exists (this one's epoch is ${fence.epoch}), so the ${due.length} digests due are left to the new sequencer`
          )
          return { deleted: 0, more: false }
        }
        // Out only once deleted: what a failed remove leaves, the next run deletes.
        for (const key of due) pending.delete(key)
        return { deleted: due.length, more: dueDigests(pending, now, 1).length > 0 }
      }))

    const expireNow = Effect.gen(function*() {
      const now = yield* clock.nowMillis
      yield* countExpired(now)
      let deleted = 0
      while (true) {
        const turn = yield* sequencer.betweenBatches(retainTurn(now))
        if (Option.isNone(turn)) return deleted
        deleted += turn.value.deleted
        if (!turn.value.more) return deleted
      }
    }).pipe(
      // What a failed turn did not delete, the next run deletes: it is still pending.
      Effect.catchAll((error) => Effect.as(Effect.logWarning("retention could not delete expired ciphertext; it tries again", error), 0))
    )

    yield* follow(yield* SubscriptionRef.get(writer.size))
    yield* Effect.forkScoped(writer.size.changes.pipe(Stream.runForEach((size) => follow(size).pipe(Effect.orElse(() => Effect.void)))))
    // Retention runs at start and every minute, and at once when this process comes to
    // sequence the log (which a start is followed by); expiry itself is exact to the
    // millisecond in body status.
    const startsSequencing = leading.changes.pipe(Stream.filter((lead) => lead))
    yield* Effect.forkScoped(Stream.merge(Stream.tick(Duration.minutes(1)), startsSequencing).pipe(
      Stream.runForEach(() =>
        Effect.flatMap(expireNow, (deleted) =>
          deleted === 0 ? Effect.void : Effect.logInfo(`retention removed the bytes of ${deleted} expired ciphertext bodies`).pipe(Effect.annotateLogs({ bodies: deleted }))))
    ))

    return {
      entriesNaming: (digest) => Effect.sync(() => naming.get(keyOf(digest))?.entries ?? []),
      liveBytes: Effect.sync(() => live),
      fits: (size) => Effect.sync(() => live + size <= config.ciphertextBudgetBytes),
      exhausted: Effect.sync(() => live + 1024 > config.ciphertextBudgetBytes),
      expireNow
    }
  }))
}
