// What a start found damaged (issue 13 item 10; docs/operations.md "Damage found at
// start"): a store that opens on a file it cannot read sets the file aside, keeps serving
// what it can, and reports it here by name; /healthz lists each report as a reason and
// says DEGRADED, so the damage is neither served silently nor a start that fails on a
// parse error. Process-wide, as Effect's metric registry is: the stores report while they
// open, before any request, and the list only grows.

import { Effect } from "effect"

const found: Array<string> = []

/** Records `what` (a relative file name and why), and logs it at error level. */
export const reportDamage = (what: string): Effect.Effect<void> =>
  Effect.zipRight(
    Effect.sync(() => void found.push(what)),
    Effect.logError("damage found at start").pipe(Effect.annotateLogs({ damage: what }))
  )

/** Every damage reported since the process started. */
export const damageFound: Effect.Effect<ReadonlyArray<string>> = Effect.sync(() => [...found])
