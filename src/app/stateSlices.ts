// Loading the slice of state a run of entries needs (issue 12, "The domain stays pure"):
// the rows stateReads.ts says deciding and applying them reads, fetched from the projection
// store into a LogState that holds the resident parts whole (domain/write/stateSlice.ts).
//
// A run is prepared in one go: the rows every entry of the run reads, asked again with
// what was found until nothing new is asked (a dm reads its recipient's binding, then the
// name it is bound to). Before each entry is decided or applied, `ensure` asks once more on
// the slice as it then stands (an earlier entry of the run may have bound a key), and loads
// what is missing; usually nothing is, and that costs a set lookup per row. A row is
// fetched at most once per run: one that was absent stays absent unless an entry of the run
// writes it, which the slice then holds.

import { Effect, Either } from "effect"
import type { EntryFacts, EntryRule } from "../domain/entries/entryRule.js"
import { applyEntry, type AcceptedEntry } from "../domain/write/applyEntry.js"
import { decide, type Decision } from "../domain/write/decide.js"
import type { Refusal } from "../domain/write/refusal.js"
import type { Submission } from "../domain/write/submission.js"
import type { LogState } from "../domain/write/logState.js"
import { readsOf, type RowKey } from "../domain/write/stateReads.js"
import { changesOf, type ResidentState, sliceOfResident, type StateChanges, withRows } from "../domain/write/stateSlice.js"
import type { ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"

/** An entry as the loader sees it: its rule and what its rule reads. */
export type SliceEntry = { readonly rule: EntryRule<any> } & Pick<EntryFacts<unknown>, "envelope" | "payload">

const idOf = (key: RowKey): string => `${key.area}\u0000${key.key}`

/** A slice being folded: what was loaded (`before`), the slice as entries change it, and which rows were asked for. */
export class SliceRun {
  private before: LogState
  /** The slice with the run's entries so far applied; callers replace it as they apply. */
  state: LogState
  private readonly asked = new Set<string>()

  constructor(
    private readonly store: typeof ProjectionStore.Service,
    resident: ResidentState
  ) {
    this.before = sliceOfResident(resident)
    this.state = this.before
  }

  private load(keys: ReadonlyArray<RowKey>): Effect.Effect<boolean, StorageError> {
    const missing: Array<RowKey> = []
    for (const key of keys) {
      const id = idOf(key)
      if (this.asked.has(id)) continue
      this.asked.add(id)
      missing.push(key)
    }
    if (missing.length === 0) return Effect.succeed(false)
    return Effect.map(this.store.rows(missing), (rows) => {
      this.before = withRows(this.before, rows)
      this.state = withRows(this.state, rows)
      return true
    })
  }

  /** Starts the run again from other resident parts, nothing loaded (before any entry is applied). */
  restart(resident: ResidentState): void {
    this.before = sliceOfResident(resident)
    this.state = this.before
    this.asked.clear()
  }

  /** Loads every row the entries read, until they ask for nothing new. */
  prepare(entries: ReadonlyArray<SliceEntry>): Effect.Effect<void, StorageError> {
    const self = this
    return Effect.gen(function*() {
      while (yield* self.load(entries.flatMap((entry) => readsOf(self.state, entry.rule, entry)))) {
        // asked again with what was found
      }
    })
  }

  /** Loads what the entry reads that the slice, as it now stands, does not hold yet. */
  ensure(entry: SliceEntry): Effect.Effect<void, StorageError> {
    return this.prepare([entry])
  }

  /** What the run changed, for the store to commit. */
  changes(): StateChanges {
    return changesOf(this.before, this.state)
  }
}

/** Decides a submission on the run's slice, loading what it reads first; an accepted one advances the slice. */
export const decideOnSlice = (run: SliceRun, submission: Submission, at: number): Effect.Effect<Either.Either<Decision, Refusal>, StorageError> =>
  Effect.map(run.ensure(submission), () => {
    const decision = decide(run.state, submission, at)
    if (Either.isRight(decision)) run.state = decision.right.state
    return decision
  })

/** Applies a leaf of the log to the run's slice, loading what it reads first. */
export const applyOnSlice = (run: SliceRun, entry: AcceptedEntry): Effect.Effect<void, StorageError> =>
  Effect.map(run.ensure(entry), () => {
    run.state = applyEntry(run.state, entry)
  })
