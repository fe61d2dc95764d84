// How a view gets the slice of the projection store its decision reads: the resident parts,
// then the rows `reads` names, asked again with what was found until it names nothing new
// (a name's record, then its recovery key's; a key's row, then the name it was bound to).
// The domain says which rows (its *Reads functions), the store answers them, the domain
// decides on the plain slice. Shared by StateReader and Projection (which StateReader reads
// through, so it cannot read through StateReader).

import { Effect } from "effect"
import type { LogState } from "../domain/write/logState.js"
import type { RowKey } from "../domain/write/stateReads.js"
import { type ResidentState, sliceOfResident, withRows } from "../domain/write/stateSlice.js"
import type { ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"

const idOf = (key: RowKey): string => `${key.area}\u0000${key.key}`

/** The slice `reads` asks for, on top of `resident`, from the store. */
export const sliceReading = <E>(
  store: typeof ProjectionStore.Service,
  resident: Effect.Effect<ResidentState, E>,
  reads: (slice: LogState) => ReadonlyArray<RowKey>
): Effect.Effect<LogState, E | StorageError> =>
  Effect.gen(function*() {
    let slice = sliceOfResident(yield* resident)
    const asked = new Set<string>()
    while (true) {
      const missing = reads(slice).filter((key) => !asked.has(idOf(key)))
      if (missing.length === 0) return slice
      for (const key of missing) asked.add(idOf(key))
      slice = withRows(slice, yield* store.rows(missing))
    }
  })
