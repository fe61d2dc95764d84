// Folding the log into the projection store (issue 12, "Projection and log agree after any
// crash"): the leaves after the store's `folded` are read back from the log store, decoded,
// the rows they read are loaded from the store into a slice (stateSlices.ts), the leaves are
// applied to it with the very function the sequencer applies (write/applyEntry.ts), and
// what changed is written back with the new `folded` in one commit, a step of FOLD_STEP
// leaves at a time. The resident parts (governance, tasks, counters, activity) are carried
// from step to step in memory and read from the store only when another process folded. The store therefore never gets ahead of the log (it folds
// only leaves the log store holds, which the sequencer has made durable), and a crash at
// any moment leaves it at the fold of some prefix, so the next fold starts after it.
// A commit that does not apply means another process folded those leaves first (on
// PostgreSQL every node may fold): the fold goes on from where the store now is.

import { Effect, Either } from "effect"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { decodeLeaf, type AcceptedEntry } from "../domain/write/applyEntry.js"
import type { ResidentState } from "../domain/write/stateSlice.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import { StorageError } from "../ports/StorageError.js"
import { applyOnSlice, SliceRun } from "./stateSlices.js"

/** Leaves folded per commit of the projection store. */
export const FOLD_STEP = 1024

const foldError = (detail: string) => new StorageError({ operation: "fold projection", detail })

/** Folds the leaves [from, to) into the store from its resident parts; answers them after, or undefined when another process folded first. */
const foldStep = (from: number, to: number, resident: ResidentState) => Effect.gen(function*() {
  const store = yield* ProjectionStore
  const { sha256 } = yield* Crypto
  if (resident.counters.size !== from) {
    return yield* foldError(`the projection's resident state is at leaf ${resident.counters.size}, its rows at ${from}`)
  }
  const leaves = yield* (yield* LogStore).readEntries(from, to)
  const entries: Array<AcceptedEntry> = []
  for (const [i, bytes] of leaves.entries()) {
    const entry = decodeLeaf(sha256, bytes, from + i)
    if (Either.isLeft(entry)) return yield* foldError(`leaf ${entry.left.index} cannot be folded: ${entry.left.reason}`)
    entries.push(entry.right)
  }
  const run = new SliceRun(store, resident)
  yield* run.prepare(entries)
  for (const entry of entries) yield* applyOnSlice(run, entry)
  const changes = run.changes()
  const applied = yield* store.commit({ from, upTo: to, lastLeaf: makeTreeHasher(sha256).leafHash(leaves.at(-1)!), changes })
  return applied ? changes.resident : undefined
})

/** Where a fold stands: the leaves folded and the resident parts after them. */
export interface FoldPoint {
  readonly folded: number
  readonly resident: ResidentState
}

/**
 * Folds the store up to `size` leaves (the log must hold them), calling `progress` after
 * each step; answers where the store then stands, at least `size`. `from` is where the
 * caller last saw it (its resident parts are then not read again) unless another process
 * folded since.
 */
export const foldProjectionTo = (
  size: number,
  progress: (folded: number) => Effect.Effect<void> = () => Effect.void,
  from?: FoldPoint
) =>
  Effect.gen(function*() {
    const store = yield* ProjectionStore
    // Where the store stands, in one reading: its resident counters say how many leaves it
    // has folded (they are written in the same transaction as the meta row), so another
    // process's commit can never fall between the index and the state read.
    const storedPoint = Effect.map(store.resident, (resident): FoldPoint => ({ folded: resident.counters.size, resident }))
    const stored = yield* store.folded
    let point = from !== undefined && from.folded === stored ? from : yield* storedPoint
    while (point.folded < size) {
      const to = Math.min(size, point.folded + FOLD_STEP)
      const after = yield* foldStep(point.folded, to, point.resident)
      if (after === undefined) {
        // Another process folded first: go on from where the store now is.
        const now = yield* storedPoint
        if (now.folded <= point.folded) return yield* foldError(`the store refused the fold from leaf ${point.folded} and has not moved`)
        point = now
      } else {
        point = { folded: to, resident: after }
      }
      yield* progress(point.folded)
    }
    return point
  })
