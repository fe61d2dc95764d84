// The live stream's source on this node (GET /v2/stream; docs/protocol.md "Live stream of
// the log"). One fiber follows the log as this node learns of it, the same way on every
// node: LogWriter.size grows when this node appends, and when a node that does not
// sequence catches up with what the sequencer announced (Sequencer.ts, catchUp ->
// LogWriter.refresh). Checkpoints come from the Publisher, which adopts what another node
// published (Publisher.ts, adoptPublished). So a stream served by any node of a PostgreSQL
// deployment sees every leaf and every checkpoint.
//
// The fiber reads each new leaf once, turns it into its event (domain/stream/logEvents.ts)
// and keeps the last RING_CAPACITY of them: however many subscribers there are, a new leaf
// costs one store read, one serialization and one UTF-8 encoding on this node. While no
// stream is open (`watching` counts them) it reads nothing: the live end moves on with the
// writer and the ring starts empty there, so a node without subscribers pays nothing a
// leaf (about 1% of the write path's main thread, bench/README.md). A subscriber behind the ring
// (one that resumes from an old index) reads the store itself, a bounded page at a time,
// at the pace its socket drains: the log is never held in memory.
//
// Subscribers wait on `signal`: a Deferred completed (and replaced) at each change. A
// subscriber takes it before looking at the state, so a change between its look and its
// wait is never missed.

import { Cause, Clock, Context, Deferred, Duration, Effect, FiberId, Layer, LogLevel, Option, Stream, SubscriptionRef } from "effect"
import { encodeB64 } from "../domain/encoding.js"
import { fromUtf8 } from "../domain/bytes.js"
import { leafEventOf, type LeafEvent } from "../domain/stream/logEvents.js"
import { LogStore } from "../ports/LogStore.js"
import type { StorageError } from "../ports/StorageError.js"
import { failureLines } from "./failureLines.js"
import { LogHealth } from "./LogHealth.js"
import { LogWriter } from "./LogWriter.js"
import { Publisher } from "./Publisher.js"

/** Leaf events kept in memory for live subscribers. */
export const RING_CAPACITY = 4096
/** Leaves the follower reads from the store at once, and the most a page answers. */
export const PAGE = 256
/**
 * Leaves a subscriber behind the ring reads from the store at once: smaller, because a
 * subscriber whose client stalls holds its page until it is dropped (64 leaves are at most
 * 4 MiB of entry bytes, and usually under 64 KiB).
 */
export const CATCH_UP_PAGE = 64
/** How long the checkpoint follower rests between looks while the log is diverged. */
const DIVERGED_PAUSE = Duration.seconds(1)

export interface StreamCheckpoint {
  readonly size: number
  /** Standard base64, as /v2/tlog/checkpoint. */
  readonly rootHash: string
  /** The signed note, as served at /checkpoint. */
  readonly note: string
}

export class LogStream extends Context.Tag("aics/LogStream")<LogStream, {
  /** Leaves this node has turned into events: the stream's live end. */
  readonly head: Effect.Effect<number>
  /** The latest checkpoint this node knows. */
  readonly checkpoint: Effect.Effect<StreamCheckpoint | undefined>
  /** Completes at the next change of head or checkpoint; take it before reading them. */
  readonly signal: Effect.Effect<Deferred.Deferred<void>>
  /**
   * Events of the leaves from `from` on, none past head: from memory (at most `limit`,
   * PAGE by default), or from the store (at most CATCH_UP_PAGE).
   */
  readonly page: (from: number, limit?: number) => Effect.Effect<ReadonlyArray<LeafEvent>, StorageError>
  /** Runs a stream's whole life: while any runs, new leaves are read into the ring. */
  readonly watching: <A, E, R>(stream: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {
  static readonly layer = Layer.scoped(LogStream, Effect.gen(function*() {
    const store = yield* LogStore
    const writer = yield* LogWriter
    const publisher = yield* Publisher
    const health = yield* LogHealth

    // The ring holds the events of leaves [ringStart, head).
    let head = yield* SubscriptionRef.get(writer.size)
    let ring: Array<LeafEvent> = []
    let ringStart = head
    let checkpoint: StreamCheckpoint | undefined
    let changed = yield* Deferred.make<void>()
    /** Streams open on this node, live or catching up. */
    let watchers = 0

    const notify = Effect.suspend(() => {
      const done = changed
      return Effect.zipRight(Effect.sync(() => void (changed = Deferred.unsafeMake<void>(FiberId.none))), Deferred.succeed(done, undefined))
    })

    const readEvents = (from: number, to: number) =>
      Effect.map(store.readEntries(from, to), (entries) => entries.map((bytes, i) => leafEventOf(from + i, bytes)))

    /** Turns the leaves up to the writer's size into events, a page at a time. */
    const follow = Effect.gen(function*() {
      const size = yield* SubscriptionRef.get(writer.size)
      while (head < size) {
        if (watchers === 0) {
          // No one to hand them to: the live end moves on, and a stream opened later
          // reads what it asks for before the ring from the store, as any resumption does.
          head = size
          ring = []
          ringStart = head
          yield* notify
          break
        }
        const events = yield* readEvents(head, Math.min(size, head + PAGE))
        ring.push(...events)
        head += events.length
        // Trimmed in halves: an amortised O(1) per leaf, never more than twice the capacity.
        if (ring.length >= 2 * RING_CAPACITY) {
          ring = ring.slice(ring.length - RING_CAPACITY)
          ringStart = head - ring.length
        }
        yield* notify
      }
      yield* writer.size.changes.pipe(Stream.filter((s) => s > head), Stream.take(1), Stream.runDrain)
    })
    // Tried every second while the storage fails: one line, a reminder a minute (failureLines.ts).
    const reads = failureLines(LogLevel.Warning, Clock.currentTimeMillis)
    yield* Effect.forkScoped(follow.pipe(
      Effect.zipRight(reads.worked("the live stream reads new leaves again")),
      Effect.catchAll((error) => Effect.zipRight(reads.failed("the live stream could not read new leaves", Cause.fail(error)), Effect.sleep(Duration.seconds(1)))),
      Effect.forever
    ))

    const adoptCheckpoint = Effect.gen(function*() {
      const next = yield* publisher.awaitCoverage((checkpoint?.size ?? 0) + 1, Duration.seconds(30))
      if (Option.isNone(next)) {
        // None at once on a diverged log (which publishes nothing more): a pause, so that
        // this loop never spins; after a quiet wait it looks again at once.
        if ((yield* health.diverged) !== undefined) yield* Effect.sleep(DIVERGED_PAUSE)
        return
      }
      const { size, rootHash, note } = next.value
      checkpoint = { size, rootHash: encodeB64(rootHash), note: fromUtf8(note) }
      yield* notify
    })
    yield* Effect.forkScoped(Effect.forever(adoptCheckpoint))

    const page = (from: number, limit = PAGE) =>
      Effect.suspend(() => {
        const to = Math.min(head, from + limit)
        if (from >= to) return Effect.succeed([])
        if (from >= ringStart) return Effect.succeed(ring.slice(from - ringStart, to - ringStart))
        return readEvents(from, Math.min(to, ringStart, from + CATCH_UP_PAGE))
      })

    return {
      head: Effect.sync(() => head),
      checkpoint: Effect.sync(() => checkpoint),
      signal: Effect.sync(() => changed),
      page,
      watching: (stream) =>
        Effect.acquireUseRelease(Effect.sync(() => void watchers++), () => stream, () => Effect.sync(() => void watchers--))
    }
  }))
}
