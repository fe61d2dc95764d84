// The projection at start (issue 12, "Start-up independent of size"; "Projection and log
// agree after any crash"): before the sequencer decides anything, the store is brought to
// the log's size by folding only the tail after what it had folded, or the whole log when
// state.db is new, was damaged, or is not a fold of this log (a rebuild, with progress lines
// in the log output).
//
// A store that is not a fold of this log is reported loudly and rebuilt from the log: one
// that has folded more leaves than the log holds (a log restored from an older copy), one
// whose last folded leaf, which it records, is not the log's leaf at that index (a state.db
// of another log), one written under another layout of the state (stateAreas.ts
// STATE_LAYOUT: an earlier version's), or one whose resident parts are not at its folded
// index. Checking one leaf hash costs the same at any size.

import { Effect } from "effect"
import { equal } from "../domain/bytes.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { STATE_LAYOUT } from "../domain/write/stateAreas.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import { foldProjectionTo } from "./projectionFold.js"

/** A progress line at least this often while a fold at start is long (a rebuild). */
const PROGRESS_EVERY_MS = 5_000

/** How many times the start reads the store again when a reading was torn by another node's commit. */
const READINGS = 10

/** Folds the projection store to the log's size, rebuilding it when it is not a fold of this log. */
export const projectionAtStart = Effect.gen(function*() {
  const store = yield* ProjectionStore
  const clock = yield* Clock
  const log = yield* LogStore
  const hasher = makeTreeHasher((yield* Crypto).sha256)
  const leafHashAt = (index: number) => Effect.map(log.readEntries(index, index + 1), ([leaf]) => hasher.leafHash(leaf!))

  // The store's meta row and its resident counters, which one commit writes together. On
  // PostgreSQL another node may commit between two reads: a reading counts when the next
  // one says the same, so a moving store is never taken for a foreign one (and reset).
  const reading = Effect.all({ folded: store.folded, counters: Effect.map(store.resident, (r) => r.counters), lastLeaf: store.lastLeaf })
  let seen = yield* reading
  for (let i = 0; i < READINGS; i++) {
    const again = yield* reading
    if (again.folded === seen.folded && again.counters.size === seen.counters.size) break
    seen = again
  }
  // The log's size after the store's: the store is never ahead of the durable log.
  const size = yield* log.size
  const { counters, lastLeaf } = seen
  let folded = seen.folded
  const foreign = folded > size
    ? `it has folded ${folded} leaves but the log holds ${size}`
    : folded > 0 && !equal(lastLeaf ?? new Uint8Array(0), yield* leafHashAt(folded - 1))
    ? `its leaf ${folded - 1} is not the log's`
    : counters.layout !== STATE_LAYOUT
    ? `it was written under layout ${counters.layout ?? 1}, this version reads layout ${STATE_LAYOUT}`
    : counters.size !== folded
    ? `its resident state is at leaf ${counters.size}, its rows at ${folded}`
    : undefined
  if (foreign !== undefined) {
    yield* Effect.logError(`state.db is not a projection of this log (${foreign}); rebuilding it from the log`)
    yield* store.reset
    folded = 0
  }
  if (folded < size) {
    yield* Effect.logInfo(`projection: folding leaves ${folded} to ${size} of the log${folded === 0 ? " (a new or rebuilt projection)" : ""}`)
  }
  let lastLine = yield* clock.nowMillis
  const point = yield* foldProjectionTo(size, (done) => Effect.flatMap(clock.nowMillis, (now) => {
    if (now - lastLine < PROGRESS_EVERY_MS) return Effect.void
    lastLine = now
    return Effect.logInfo(`projection: folded ${done} of ${size} leaves`)
  }))
  if (folded < size) yield* Effect.logInfo(`projection: folded all ${size} leaves`)
  return point
})
