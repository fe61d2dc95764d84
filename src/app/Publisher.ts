// Publishes the log for verifiers (docs/spec/service.md "Log proofs and checkpoints", docs/spec/profile.md
// section 8): after new leaves are durable it writes the tiles they complete or extend,
// then signs a checkpoint for the new size and writes it last, so a verifier that reads
// the checkpoint always finds every tile under it. It runs within the maximum merge delay:
// it waits for new leaves, gathers for a short window (a quarter of mmd_seconds, at most
// 250 ms), then publishes everything committed.
//
// A checkpoint is never signed for two different trees of one size: the root always comes
// from the log store's stored hashes, which only grow. On start the published checkpoint
// is checked against the log; if it does not match, the log is marked diverged and stops.
//
// Several processes (docs/protocol.md section 14): only the process that sequences
// (NodeRole) writes tiles and signs checkpoints; the tile sink is shared (PgTileSink), so
// every process serves the same. The others adopt the checkpoint the sink holds, after
// judging it against the log as on start, within the same window. Before publishing, the
// sequencing process adopts it too: a predecessor may have published since it last looked,
// and it continues from there. Roots come from the stored hashes, which the head row of
// the log keeps free of forks, so two processes can only ever sign one tree per size.
//
// Each node also keeps the last checkpoint it published or adopted in its own data folder
// (KeptCheckpoint port), written after the checkpoint, off the publishing path. On
// PostgreSQL it is the only copy outside the database: a database restored from a dump
// older than what was published brings back an older checkpoint with its older log, and
// the two agree, so only the kept copy shows that the log went back. A kept checkpoint
// above the log, or with another root at its size, marks the log diverged at start and
// when the node takes the lease (LogHealth.recheck), before any write.

import { Cause, Context, Duration, Effect, Either, Layer, LogLevel, Option, Ref, Schedule, Stream, SubscriptionRef } from "effect"
import { MAX_ENTRY_BYTES } from "../domain/envelope/leaf.js"
import { formatCheckpoint } from "../domain/note/checkpoint.js"
import { isFullTile, type Tile, TILE_WIDTH } from "../domain/tlog/tile.js"
import { newPartialTiles, newTiles } from "../domain/tlog/tiles.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { KeptCheckpoint } from "../ports/KeptCheckpoint.js"
import { LogStore } from "../ports/LogStore.js"
import type { StorageError } from "../ports/StorageError.js"
import { TileSink } from "../ports/TileSink.js"
import { failureLines } from "./failureLines.js"
import { LogHealth } from "./LogHealth.js"
import { LogNotary } from "./LogNotary.js"
import { LogReader } from "./LogReader.js"
import { LogWriter } from "./LogWriter.js"
import { NodeRole } from "./NodeRole.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { writeTracing } from "./Tracing.js"
import { compareCheckpoint, judgeCheckpoint, type CheckpointJudge, type PublishedCheckpoint } from "./publishedCheckpoint.js"
import { reportDamage } from "./StartupDamage.js"
import { tileContents } from "./tileContents.js"

export type { PublishedCheckpoint }

/**
 * The most bytes of entries one step of a publication reads (and then holds twice: as read,
 * and encoded in its entry bundles). A publication spans a window's leaves (a few hundred),
 * but after a start that found no tiles (rebuilt from the log) or behind a sink that was
 * down it spans everything since the last checkpoint, up to the whole log, which was read
 * and encoded at once: 477 MiB of the process at 113,804 entries (64 MB of leaves), and past
 * memory at a few million (bench/README.md "Session 34"). Its tiles are written a step at a
 * time; the one checkpoint of the publication follows the last step, so a verifier that
 * reads it finds every tile under it, as always.
 */
export const PUBLISH_STEP_BYTES = 64 * 1024 * 1024

/**
 * Leaves whose tiles one step carries, at most: as many whole entry bundles as fit
 * PUBLISH_STEP_BYTES with every entry of the largest size a leaf may have (MAX_ENTRY_BYTES),
 * so the bound holds whatever the log's entries are: 4 bundles, 1,024 leaves. A window's
 * publication (a few hundred leaves) still takes one step, two where it crosses a step's end.
 */
export const PUBLISH_STEP_LEAVES = Math.floor(PUBLISH_STEP_BYTES / MAX_ENTRY_BYTES / TILE_WIDTH) * TILE_WIDTH

/** How often a long publication (tiles rebuilt from the log) says how far it is. */
const PROGRESS_EVERY_LEAVES = 1_048_576

/**
 * The steps [start, end) of a publication of the leaves [from, target): each ends on a full
 * entry bundle but the last, so each step's tiles extend the previous step's tree.
 */
export const publishSteps = (from: number, target: number): Array<readonly [number, number]> => {
  const steps: Array<readonly [number, number]> = []
  for (let start = from; start < target;) {
    const end = Math.min(target, Math.floor(start / TILE_WIDTH) * TILE_WIDTH + PUBLISH_STEP_LEAVES)
    steps.push([start, end])
    start = end
  }
  return steps
}

/**
 * The tiles the step [start, end) of a publication of [from, target) writes: the full tiles
 * it completes, and with the last step the partial tiles the publication makes new (some
 * may have appeared in an earlier step). No checkpoint is signed for a step's size, so no
 * verifier asks for its partial tiles (newTiles' comment). Over the steps, newTiles(from, target).
 */
export const stepTiles = (from: number, target: number, start: number, end: number): ReadonlyArray<Tile> => {
  const full = newTiles(start, end).filter(isFullTile)
  return end < target ? full : [...full, ...newPartialTiles(from, target)]
}

export class Publisher extends Context.Tag("aics/Publisher")<Publisher, {
  /** The last published checkpoint (undefined before the first). */
  readonly latest: Effect.Effect<PublishedCheckpoint | undefined>
  /** Waits until a published checkpoint covers `size` leaves, for at most `timeout`; on a diverged log (nothing more is published) it answers at once. */
  readonly awaitCoverage: (size: number, timeout: Duration.DurationInput) => Effect.Effect<Option.Option<PublishedCheckpoint>>
  /** Publishes everything committed now, without waiting for the window. */
  readonly publishNow: Effect.Effect<PublishedCheckpoint | undefined, StorageError>
  /** Whether a checkpoint note (say, the one on disk now) belongs to this log. */
  readonly judge: CheckpointJudge
}>() {
  static readonly layer = Layer.scoped(Publisher, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const store = yield* LogStore
    const sink = yield* TileSink
    const notary = yield* LogNotary
    const writer = yield* LogWriter
    const health = yield* LogHealth
    const clock = yield* Clock
    const crypto = yield* Crypto
    const reader = yield* LogReader
    const { leading } = yield* NodeRole
    const tracing = yield* writeTracing
    const kept = yield* KeptCheckpoint

    const judge: CheckpointJudge = {
      origin: config.origin,
      verifierKey: notary.verifierKey,
      ed25519: crypto.ed25519,
      // The store's size: another process may have appended what this one has not read yet.
      logSize: Effect.orElse(store.size, () => SubscriptionRef.get(writer.size)),
      rootAt: reader.rootAt
    }
    // What an earlier run published must belong to this log; anything else is divergence.
    const recoverPublished = Effect.gen(function*() {
      const stored = yield* sink.readCheckpoint
      if (Option.isNone(stored)) {
        // A log with leaves and no checkpoint: the tiles were lost or left out of a copy. They
        // are rebuilt from the log; but a log restored from a copy older than the last
        // checkpoint published (which clients, witnesses and receipts hold) would now sign
        // another history under the same key, and without the old tiles nothing here can
        // tell. Said once, where an operator reads it.
        // A new log has its charter alone until the first checkpoint, a second away: not a copy.
        const size = yield* judge.logSize
        if (size > 1) {
          yield* Effect.logWarning(`no published checkpoint beside a log of ${size} leaves: the tiles are rebuilt from the log. If this data was restored from a copy, it must hold every leaf any checkpoint ever covered, or this log now forks (docs/operations.md "Backups and restores")`)
        }
        return undefined
      }
      const judged = yield* judgeCheckpoint(judge, stored.value)
      if (Either.isLeft(judged)) {
        yield* health.markDiverged(judged.left)
        return undefined
      }
      return judged.right
    })

    const recovered = yield* recoverPublished
    const current = yield* SubscriptionRef.make<PublishedCheckpoint | undefined>(recovered)
    if (recovered !== undefined) {
      yield* Ref.update(health.publish, (s) => ({ ...s, publishedSize: recovered.size }))
    }
    const lock = yield* Effect.makeSemaphore(1)

    // The checkpoint this node kept, and its size once judged: the world saw it, so the log
    // may never again hold less, or another tree at that size.
    const keptNote = yield* Ref.make(Option.getOrUndefined(yield* kept.read))
    const keptSize = yield* Ref.make(0)
    const KEPT = "the checkpoint this node kept (last-checkpoint in AICS_DATA_DIR)"
    const judgeKept = Effect.gen(function*() {
      const note = yield* Ref.get(keptNote)
      if (note === undefined) return
      const compared = yield* compareCheckpoint(judge, note)
      switch (compared._tag) {
        case "Matches":
          return yield* Ref.update(keptSize, (size) => Math.max(size, compared.checkpoint.size))
        case "NotOfThisLog":
          // Not evidence about this log (a damaged or foreign file): said, and replaced by
          // the next checkpoint.
          yield* Ref.set(keptNote, undefined)
          return yield* reportDamage("last-checkpoint: not a checkpoint of this log signed by its key; the next checkpoint replaces it")
        case "AboveLog":
          // Never replaced by a smaller one while the log is diverged: it is the evidence.
          yield* Ref.set(keptSize, compared.size)
          return yield* health.markDiverged(
            `${KEPT} has ${compared.size} leaves but the log only ${compared.logSize}: the log went back (a database or data folder restored from a copy older than what was published); restore the copy that holds those leaves`,
            "what it published")
        case "OtherRoot":
          yield* Ref.set(keptSize, compared.size)
          return yield* health.markDiverged(
            `${KEPT} has another root at size ${compared.size} than the log: the log forked (a copy restored and written to); restore the copy that holds the kept tree`,
            "what it published")
      }
    })
    yield* judgeKept
    yield* health.addRecheck(judgeKept)

    /**
     * Keeps `latest` in the data folder when it is newer than what is kept. A failure is
     * retried at the next checkpoint, and said once until a keep succeeds again.
     */
    const keepFailing = yield* Ref.make(false)
    const keepNewer = (latest: PublishedCheckpoint | undefined) =>
      Effect.gen(function*() {
        if (latest === undefined || latest.size <= (yield* Ref.get(keptSize))) return
        // A diverged log's kept checkpoint is evidence, left as it is.
        if ((yield* health.diverged) !== undefined) return
        yield* kept.keep(latest.note)
        yield* Ref.set(keptNote, latest.note)
        yield* Ref.set(keptSize, latest.size)
        yield* Ref.set(keepFailing, false)
      }).pipe(Effect.catchAll((error) =>
        Effect.flatMap(Ref.getAndSet(keepFailing, true), (failing) => failing ? Effect.void : Effect.logWarning(
          `the checkpoint of size ${latest?.size} could not be kept in AICS_DATA_DIR (last-checkpoint), which shows a database restored from an older copy; each next checkpoint is tried`,
          error))))
    // Off the publishing path: only the newest checkpoint waiting is written.
    yield* Effect.forkScoped(current.changes.pipe(
      Stream.buffer({ capacity: 1, strategy: "sliding" }),
      Stream.runForEach(keepNewer)
    ))

    /** Tiles, then the checkpoint, for the leaves [from, target): a span of its own with traces on. */
    const publishRange = (from: number, target: number) =>
      Effect.gen(function*() {
        let written = 0
        for (const [start, end] of publishSteps(from, target)) {
          const tiles = yield* tileContents(store, stepTiles(from, target, start, end))
          yield* sink.writeTiles(tiles)
          written += tiles.length
          if (end < target && Math.floor(end / PROGRESS_EVERY_LEAVES) > Math.floor(start / PROGRESS_EVERY_LEAVES)) {
            yield* Effect.logInfo(`tiles written for ${end} of ${target} leaves; the checkpoint follows the last`)
          }
        }
        if (tracing.on) yield* tracing.annotate(() => ({ "aics.publish.tiles": written }))
        const rootHash = yield* reader.rootAt(target)
        const note = yield* notary.sign(formatCheckpoint({ origin: config.origin, size: target, rootHash }))
        yield* sink.writeCheckpoint(note)
        const published: PublishedCheckpoint = { size: target, rootHash, note }
        yield* SubscriptionRef.set(current, published)
        const now = yield* clock.nowMillis
        yield* Ref.set(health.publish, { publishedSize: target, publishedAt: now, error: undefined })
        return published
      }).pipe(tracing.span("aics.publish", () => ({ root: true, attributes: { "aics.tree.size": target, "aics.publish.leaves": target - from } })))

    const publishTo = (target: number) =>
      Effect.gen(function*() {
        const previous = yield* SubscriptionRef.get(current)
        const from = previous?.size ?? 0
        if (target <= from) return previous
        return yield* publishRange(from, target)
      })

    /** Takes the sink's checkpoint as the latest when it is newer (another process published it). */
    const adoptPublished = Effect.gen(function*() {
      const stored = yield* sink.readCheckpoint
      if (Option.isNone(stored)) return
      const previous = yield* SubscriptionRef.get(current)
      const judged = yield* judgeCheckpoint(judge, stored.value)
      if (Either.isLeft(judged)) return yield* health.markDiverged(judged.left)
      if (judged.right.size <= (previous?.size ?? 0)) return
      yield* SubscriptionRef.set(current, judged.right)
      const now = yield* clock.nowMillis
      yield* Ref.set(health.publish, { publishedSize: judged.right.size, publishedAt: now, error: undefined })
    })

    const publishCommitted = lock.withPermits(1)(Effect.gen(function*() {
      // A diverged log publishes nothing more: what is on disk is evidence.
      if ((yield* health.diverged) !== undefined) return yield* SubscriptionRef.get(current)
      yield* adoptPublished
      if (!(yield* SubscriptionRef.get(leading))) return yield* SubscriptionRef.get(current)
      return yield* publishTo(yield* SubscriptionRef.get(writer.size))
    }))

    const windowMillis = Math.min(250, (config.mmdSeconds * 1000) / 4)
    const waitForNewLeaves = Effect.gen(function*() {
      const publishedSize = (yield* SubscriptionRef.get(current))?.size ?? 0
      yield* writer.size.changes.pipe(Stream.filter((size) => size > publishedSize), Stream.take(1), Stream.runDrain)
    })
    // Retried every second while the storage fails (every process looks for a newer
    // checkpoint every window): one line when publishing starts failing, a reminder a
    // minute, one when it works again (failureLines.ts). The error /healthz reports
    // (tiles_not_written) ends with the first round that works, not with the next
    // checkpoint, which an idle log may not sign for hours.
    const publishing = failureLines(LogLevel.Error, clock.nowMillis)
    const recordFailure = (error: StorageError) =>
      Ref.update(health.publish, (s) => ({ ...s, error: `${error.operation}: ${error.detail}` })).pipe(
        Effect.zipRight(publishing.failed("publishing failed", Cause.fail(error)))
      )
    const recordSuccess = Effect.suspend(() =>
      publishing.spell() === undefined ? Effect.void : Effect.zipRight(
        Ref.update(health.publish, (s) => ({ ...s, error: undefined })),
        publishing.worked("publishing works again")
      ))
    // A process that does not sequence looks for a newer checkpoint every window; so does one
    // whose last round failed (it may have failed before this process took the lease: an
    // idle log brings no new leaves to end the report of that failure).
    const waitForWork = Effect.flatMap(SubscriptionRef.get(leading), (lead) => (lead && publishing.spell() === undefined ? waitForNewLeaves : Effect.void))
    const loop = waitForWork.pipe(
      Effect.zipRight(Effect.sleep(Duration.millis(windowMillis))),
      Effect.zipRight(publishCommitted),
      Effect.zipLeft(recordSuccess),
      Effect.tapError(recordFailure),
      // A failure is retried; the writer keeps accepting leaves meanwhile and /healthz says
      // DEGRADED once the tiles lag.
      Effect.retry(Schedule.spaced(Duration.seconds(1))),
      Effect.forever
    )
    yield* Effect.forkScoped(loop)

    // What the current checkpoint covers is answered at once: nearly every read of an entry
    // or a proof, and a subscription to the changes with a timeout costs far more than the
    // read it guards (bench/README.md, GET /v2/entries/{i}). A diverged log publishes nothing
    // more (issue 13 item 13): anything else is answered at once too, never after a wait for
    // a checkpoint that cannot come.
    const covering = (c: PublishedCheckpoint | undefined, size: number) => (c !== undefined && c.size >= size ? Option.some(c) : Option.none())
    const awaitCoverage = (size: number, timeout: Duration.DurationInput) =>
      Effect.flatMap(SubscriptionRef.get(current), (now) => {
        const covered = covering(now, size)
        return Option.isSome(covered) ? Effect.succeed(covered) : waitForCoverage(size, timeout)
      })
    const waitForCoverage = (size: number, timeout: Duration.DurationInput) =>
      Effect.flatMap(health.diverged, (diverged) =>
        diverged !== undefined
          ? Effect.map(SubscriptionRef.get(current), (c) => covering(c, size))
          : current.changes.pipe(
            Stream.filter((c): c is PublishedCheckpoint => c !== undefined && c.size >= size),
            Stream.runHead,
            Effect.timeoutTo({ duration: timeout, onTimeout: () => Option.none(), onSuccess: (c) => c })
          ))

    return { latest: SubscriptionRef.get(current), awaitCoverage, publishNow: publishCommitted, judge }
  }))
}
