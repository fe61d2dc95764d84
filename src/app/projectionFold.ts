// Folding the log into the projection store (issue 12, "Projection and log agree after any
// crash"): the leaves after the store's `folded` are read back from the log store, decoded,
// the names they change are loaded from the store (the slice), folded with the pure rules
// (write/nameProjection.ts), and written back with the new `folded` in one commit, a step
// of FOLD_STEP leaves at a time. The store therefore never gets ahead of the log (it folds
// only leaves the log store holds, which the sequencer has made durable), and a crash at
// any moment leaves it at the fold of some prefix, so the next fold starts after it.
// A commit that does not apply means another process folded those leaves first (on
// PostgreSQL every node may fold): the fold goes on from where the store now is.

import { Effect, Either } from "effect"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { decodeLeaf, type AcceptedEntry } from "../domain/write/applyEntry.js"
import { foldNames, nameChangedBy } from "../domain/write/nameProjection.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { ProjectionStore } from "../ports/ProjectionStore.js"
import { StorageError } from "../ports/StorageError.js"

/** Leaves folded per commit of the projection store. */
export const FOLD_STEP = 1024

const foldError = (detail: string) => new StorageError({ operation: "fold projection", detail })

/** Folds the leaves [from, to) into the store; answers whether its commit applied. */
const foldStep = (from: number, to: number) => Effect.gen(function*() {
  const store = yield* ProjectionStore
  const { sha256 } = yield* Crypto
  const leaves = yield* (yield* LogStore).readEntries(from, to)
  const entries: Array<AcceptedEntry> = []
  for (const [i, bytes] of leaves.entries()) {
    const entry = decodeLeaf(sha256, bytes, from + i)
    if (Either.isLeft(entry)) return yield* foldError(`leaf ${entry.left.index} cannot be folded: ${entry.left.reason}`)
    if (nameChangedBy(entry.right) !== undefined) entries.push(entry.right)
  }
  const slice = yield* store.names([...new Set(entries.map((entry) => nameChangedBy(entry)!))])
  const names = foldNames(slice, entries)
  if (Either.isLeft(names)) return yield* foldError(`the projection disagrees with the log at leaf ${names.left.index}: ${names.left.reason}`)
  return yield* store.commit({ from, upTo: to, lastLeaf: makeTreeHasher(sha256).leafHash(leaves.at(-1)!), names: names.right })
})

/**
 * Folds the store up to `size` leaves (the log must hold them), calling `progress` after
 * each step; answers the store's folded index, at least `size`.
 */
export const foldProjectionTo = (size: number, progress: (folded: number) => Effect.Effect<void> = () => Effect.void) =>
  Effect.gen(function*() {
    const store = yield* ProjectionStore
    let folded = yield* store.folded
    while (folded < size) {
      const to = Math.min(size, folded + FOLD_STEP)
      folded = (yield* foldStep(folded, to)) ? to : yield* store.folded
      yield* progress(folded)
    }
    return folded
  })
