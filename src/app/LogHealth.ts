// What /healthz reports, kept in memory so that answering costs no I/O and no scan:
// whether the log diverged from what it published (then the log refuses new leaves,
// publishes and signs nothing more, and health answers 503), and the publisher's progress
// and last error.
//
// A log diverges when its published tiles disagree with it (Publisher, TileAudit), or when
// it holds fewer leaves than a checkpoint the world already saw, or another tree at its
// size: one a witness cosigned (CosignatureCollector: a witness's alarm with the size above
// the log's, or with the tree of the log it refused) or one this node kept in its data
// folder (Publisher, KeptCheckpoint port). Diverged is this process's
// flag, set once and kept until it stops; the evidence behind it is shared (the tiles and
// the witnesses' alarms are in the database on PostgreSQL), so every node finds it on its
// own, and `recheck` looks at it again when a node takes the lease, before its first write.
//
// Some evidence comes only when asked for: a witness says what it cosigned when the log
// submits a checkpoint to it. Until the sequencing process has heard every witness once
// (CosignatureCollector's first round), the log may be behind what the world saw without
// knowing it yet: `awaited` says why writes wait meanwhile, and the Sequencer refuses them.

import { Context, Effect, Layer, Ref } from "effect"
import type { StorageError } from "../ports/StorageError.js"

export interface PublishState {
  /** Size of the last published checkpoint. */
  readonly publishedSize: number
  /** When that checkpoint was published (ms), or undefined before the first. */
  readonly publishedAt: number | undefined
  /** The last publishing failure, cleared by the next success. */
  readonly error: string | undefined
}

/** Where docs/operations.md says what to do about a diverged log. */
export const DIVERGED_DOCS = `docs/operations.md "A diverged log"`

export class LogHealth extends Context.Tag("aics/LogHealth")<LogHealth, {
  /** Why the log diverged from what it published, or undefined while it has not. */
  readonly diverged: Effect.Effect<string | undefined>
  /**
   * Marks the log diverged for `reason`, found against `from` (what the error line says the
   * log diverged from: its published tiles unless told).
   */
  readonly markDiverged: (reason: string, from?: string) => Effect.Effect<void>
  /**
   * Adds a look at shared evidence of a divergence (marking the log diverged when it finds
   * one) to what `recheck` runs: the layers that find a kind of evidence add theirs.
   */
  readonly addRecheck: (check: Effect.Effect<void, StorageError>) => Effect.Effect<void>
  /**
   * Runs every look added, in turn: the Sequencer runs it when it takes the lease, before
   * it writes, so a node that takes over never writes or signs on a log another node found
   * diverged a moment ago (before this one reloaded the evidence). A look that cannot read
   * its evidence fails it: a new leader does not write by guess.
   */
  readonly recheck: Effect.Effect<void, StorageError>
  /**
   * Why writes must wait for evidence not heard yet (the witnesses' first answers to this
   * process, CosignatureCollector), or undefined when none is awaited: the Sequencer refuses
   * writes meanwhile (log_unavailable) and /healthz says so (awaiting_witnesses).
   */
  readonly awaited: Effect.Effect<string | undefined>
  /** Sets what `awaited` answers (undefined: nothing awaited, writes are taken). */
  readonly setAwaited: (why: string | undefined) => Effect.Effect<void>
  readonly publish: Ref.Ref<PublishState>
}>() {
  static readonly layer = Layer.effect(LogHealth, Effect.gen(function*() {
    const diverged = yield* Ref.make<string | undefined>(undefined)
    const publish = yield* Ref.make<PublishState>({ publishedSize: 0, publishedAt: undefined, error: undefined })
    const rechecks = yield* Ref.make<ReadonlyArray<Effect.Effect<void, StorageError>>>([])
    const awaited = yield* Ref.make<string | undefined>(undefined)
    return {
      diverged: Ref.get(diverged),
      // The first reason is kept: later ones are consequences of it. It is said once, as an
      // error line: /healthz answers 503 DIVERGED and every write is refused from now on.
      markDiverged: (reason, from = "its published tiles") =>
        Effect.flatMap(Ref.getAndUpdate(diverged, (current) => current ?? reason), (before) =>
          before !== undefined ? Effect.void : Effect.logError(
            `the log diverged from ${from} (${reason}): writes are refused, nothing more is published or signed, and /healthz answers 503 DIVERGED until an operator acts; ${DIVERGED_DOCS} says what to do`
          )),
      addRecheck: (check) => Ref.update(rechecks, (all) => [...all, check]),
      recheck: Effect.flatMap(Ref.get(rechecks), (all) => Effect.forEach(all, (check) => check, { discard: true })),
      awaited: Ref.get(awaited),
      setAwaited: (why) => Ref.set(awaited, why),
      publish
    }
  }))
}
