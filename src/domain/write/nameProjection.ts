// A fold step of the names projection (issue 12, "The domain stays pure"): the app reads a
// run of leaves from the log, asks which names they change, loads those names' records
// from the projection store (the slice), and this folds the leaves into the slice with the
// very rules the sequencer applies (claim, key.rotate, key.x25519: docs/spec/profile.md
// section 5), answering the records as they stand after the run, for the app to write back.
//
// The slice must hold every name the run changes that was claimed before it: a rotation or
// an X25519 change of a name the projection does not hold means the projection and the log
// disagree, and that is an error, never a silently skipped leaf.

import { Either, HashMap, Option } from "effect"
import type { AcceptedEntry, FoldError } from "./applyEntry.js"
import { emptyLogState, type NameRecord } from "./logState.js"

/** The entry types whose leaves change a name's record, each naming it in `payload.name`. */
const NAME_TYPES: ReadonlySet<string> = new Set(["claim", "key.rotate", "key.x25519"])

/** The name the entry changes, if it changes one. */
export const nameChangedBy = (entry: AcceptedEntry): string | undefined =>
  NAME_TYPES.has(entry.rule.type) ? (entry.payload as { readonly name: string }).name : undefined

/** The records of every name the entries change, after them, from the slice before them. */
export const foldNames = (
  slice: ReadonlyMap<string, NameRecord>,
  entries: ReadonlyArray<AcceptedEntry>
): Either.Either<ReadonlyArray<NameRecord>, FoldError> => {
  let state = { ...emptyLogState, names: HashMap.fromIterable(slice) }
  const changed = new Set<string>()
  for (const entry of entries) {
    const name = nameChangedBy(entry)
    if (name === undefined) continue
    if (entry.rule.type !== "claim" && !HashMap.has(state.names, name)) {
      return Either.left({ index: entry.index, reason: `the projection holds no name ${name} for this ${entry.rule.type}` })
    }
    state = entry.rule.apply({ ...state, size: entry.index }, {
      envelope: entry.envelope,
      payload: entry.payload,
      index: entry.index,
      logged: entry.logged
    })
    changed.add(name)
  }
  return Either.right([...changed].map((name) => Option.getOrThrow(HashMap.get(state.names, name))))
}
