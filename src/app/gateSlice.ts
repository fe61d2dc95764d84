// The slice of state the text gate's pure step reads for one line (domain/gate/gateReads.ts),
// loaded from the projection store (issue 12): the rows the line names, and for a dm the
// recipient's grants, newest first, as far as the grant governing the sender at `now`.

import { Effect } from "effect"
import { gateGrantsRead, gateReads, withRecipientGrants } from "../domain/gate/gateReads.js"
import type { GateSession } from "../domain/gate/session.js"
import type { LogState } from "../domain/write/logState.js"
import type { StorageError } from "../ports/StorageError.js"
import { governingGrantsFrom } from "./messagingViews.js"
import type { StateReader } from "./StateReader.js"

/** What `step` reads for this line in this session, at `now` (the step's own `now`: grants lapse). */
export const gateStepSlice = (reader: typeof StateReader.Service, session: GateSession, line: string, now: number): Effect.Effect<LogState, StorageError> =>
  Effect.gen(function*() {
    const slice = yield* reader.sliceFor(gateReads(session, line))
    const grants = gateGrantsRead(session, line, slice)
    if (grants === undefined) return slice
    return withRecipientGrants(slice, grants.recipient, yield* governingGrantsFrom(reader, grants.recipient, grants.sender, now))
  })
