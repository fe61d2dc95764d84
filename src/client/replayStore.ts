// Where `aics audit` keeps the state it replays the log into (issue 12: nothing that grows
// with the log lives in process memory, the auditor's included): a projection store of its
// own, SQLite in a temporary folder (the service's embedded adapter,
// adapters/sqlite/SqliteProjectionStore.ts), deleted when the audit ends. Replaying a run of
// leaves is what the service's fold does (app/projectionFold.ts), with the auditor's rule
// in place of the fold's:
//   1. the leaves are decoded, and the rows deciding and applying them read are loaded from
//      the store into a slice (app/stateSlices.ts SliceRun: the resident parts whole, the
//      rows the domain's stateReads.ts names);
//   2. each leaf is replayed on the slice with the domain's replayLeaf (domain/write/replay.ts:
//      every check the sequencer runs before it writes a leaf), the slice carried on with
//      the state it answers, the leaf folded as the log has it even when refused;
//   3. what the run changed is committed with the count of leaves replayed, in one step.
// The views are then computed from the store by the functions the service answers with
// (app/forumViews.ts, identityViews.ts, governanceViews.ts...), on plain data sliced from
// it: what the audit holds in memory is a run's slice and the resident parts (the owner's
// acts, the counters), whatever the log's size. The disk it takes is about the service's
// state.db, some 800 bytes a leaf (bench/README.md).

import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cause, Effect, Either, Exit, ManagedRuntime } from "effect"
import { SqliteProjectionStoreLive } from "../adapters/sqlite/SqliteProjectionStore.js"
import { makeChannelsByLatest } from "../app/channelsByLatest.js"
import { type ForumViews, makeForumViews } from "../app/forumViews.js"
import type { Reader } from "../app/listStreams.js"
import { sliceReading } from "../app/sliceReads.js"
import { SliceRun } from "../app/stateSlices.js"
import type { ChannelCount } from "../domain/pages/agoraPage.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { type AcceptedEntry, decodeLeaf } from "../domain/write/applyEntry.js"
import type { LogState } from "../domain/write/logState.js"
import { replayLeaf, type ReplayOutcome, type Unfoldable } from "../domain/write/replay.js"
import type { RowKey } from "../domain/write/stateReads.js"
import { emptyResident, type ResidentState } from "../domain/write/stateSlice.js"
import type { SubmissionContext } from "../domain/write/submission.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import { StorageError } from "../ports/StorageError.js"

/** What the views of the replayed log read: the store, a reader of it as the service's StateReader, the forum's views and /agora's channel list. */
export interface ReplayViews {
  readonly store: typeof ProjectionStore.Service
  readonly reader: Reader
  readonly forum: ForumViews
  readonly channels: Effect.Effect<ReadonlyArray<ChannelCount>, StorageError>
}

/** A leaf's outcome: replayed (accepted, refused, unchecked), or where the replay stopped (unfoldable, or a body it could not be given). */
export type LeafOutcome = ReplayOutcome | Unfoldable

export interface ReplayStore {
  /** Leaves replayed into the store: the index of the next one. */
  readonly size: () => number
  /**
   * Replays the leaves of `entries`, the first at size(), committing those replayed; the
   * outcomes in order, the last one where it stopped if it stopped (`unfoldable`, or
   * `needs_body` answered again). `bodyOf` gives a body a rule reads, or null.
   */
  readonly replay: (
    entries: ReadonlyArray<Uint8Array>,
    context: SubmissionContext,
    bodyOf: (digest: string) => Promise<Uint8Array | null>
  ) => Promise<ReadonlyArray<LeafOutcome>>
  readonly views: ReplayViews
  /** Runs a read of the views; a failure is thrown as itself. */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  /** Closes the store and deletes its folder. */
  readonly close: () => Promise<void>
}

/** A failure thrown as the error or defect itself (a ClientError a body's fetch threw stays one). */
const runThrowing = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => (Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))))

/** Opens an empty replay store in a new temporary folder (under `parent`, by default the system's). */
export const openReplayStore = async (parent: string = tmpdir()): Promise<ReplayStore> => {
  const folder = await mkdtemp(join(parent, "aics-audit-"))
  const runtime = ManagedRuntime.make(SqliteProjectionStoreLive(join(folder, "state.db")))
  let store: typeof ProjectionStore.Service
  try {
    store = await runtime.runPromise(ProjectionStore)
  } catch (error) {
    await runtime.dispose()
    await rm(folder, { recursive: true, force: true })
    throw error
  }
  let resident: ResidentState = emptyResident
  const residentNow = Effect.sync(() => resident)
  const sliceFor = (reads: (slice: LogState) => ReadonlyArray<RowKey>) => sliceReading(store, residentNow, reads)
  const reader: Reader = {
    resident: residentNow,
    slice: (keys) => sliceFor(() => keys),
    sliceFor,
    list: store.list,
    recentActivity: store.recentActivity,
    recoveryNames: store.recoveryNames,
    listKeys: store.listKeys
  }
  const views: ReplayViews = { store, reader, forum: makeForumViews(reader), channels: await runThrowing(makeChannelsByLatest(reader)) }

  const replayRun = (entries: ReadonlyArray<Uint8Array>, context: SubmissionContext, bodyOf: (digest: string) => Promise<Uint8Array | null>) =>
    Effect.gen(function*() {
      const from = resident.counters.size
      const decoded: Array<AcceptedEntry> = []
      for (const [i, bytes] of entries.entries()) {
        const entry = decodeLeaf(context.sha256, bytes, from + i)
        if (Either.isLeft(entry)) break
        decoded.push(entry.right)
      }
      const run = new SliceRun(store, resident)
      yield* run.prepare(decoded)
      const outcomes: Array<LeafOutcome> = []
      let replayed = 0
      for (const bytes of entries) {
        const entry = decoded[replayed]
        // A leaf that does not decode: replayLeaf says why, and nothing is replayed past it.
        if (entry !== undefined) yield* run.ensure(entry)
        let outcome: LeafOutcome = replayLeaf(run.state, bytes, context)
        if (outcome.kind === "needs_body") {
          const digest = outcome.digest
          outcome = replayLeaf(run.state, bytes, context, yield* Effect.promise(() => bodyOf(digest)))
        }
        outcomes.push(outcome)
        if (outcome.kind === "unfoldable" || outcome.kind === "needs_body") break
        run.state = outcome.state
        replayed++
      }
      if (replayed === 0) return outcomes
      const changes = run.changes()
      const lastLeaf = makeTreeHasher(context.sha256).leafHash(entries[replayed - 1]!)
      if (!(yield* store.commit({ from, upTo: from + replayed, lastLeaf, changes }))) {
        return yield* new StorageError({ operation: "replay the log", detail: `the audit's store refused the leaves from ${from}: it is not at ${from}` })
      }
      resident = changes.resident
      return outcomes
    })

  return {
    size: () => resident.counters.size,
    replay: (entries, context, bodyOf) => runThrowing(replayRun(entries, context, bodyOf)),
    views,
    run: runThrowing,
    close: async () => {
      await runtime.dispose()
      await rm(folder, { recursive: true, force: true })
    }
  }
}
