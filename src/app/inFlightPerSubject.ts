// At most `cap` effects of one subject (a client's address group) run at once; the others
// wait their turn, in arrival order (docs/protocol.md 19.3, issue 13). The budgets bound what
// an address gets over a window, but each budget's burst (600 gate lines, 1,200 requests)
// can be spent as fast as the address's connections go: with 16 of a flood's requests in
// flight, a polite client's request shares the event loop with all 16, each of its steps
// taking turns with theirs. With `cap` in flight, it waits behind at most `cap` of them, and
// a flood's burst is spread out instead of served at once (bench/admission.ts).
//
// One semaphore per subject with someone running or waiting, forgotten when the last
// leaves: the table holds what is in flight, nothing more. Effect's semaphore wakes its
// waiters in the order they came and gives the permit back when a holder is interrupted.

import { Effect } from "effect"

interface Turns {
  readonly semaphore: Effect.Semaphore
  /** Effects of this subject running or waiting. */
  users: number
}

export interface InFlightPerSubject {
  /** Runs `effect` once fewer than `cap` of the subject's effects run. */
  readonly run: (subject: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Subjects with something running or waiting now: all the table holds. */
  readonly subjects: () => number
}

export const inFlightPerSubject = (cap: number): InFlightPerSubject => {
  const bySubject = new Map<string, Turns>()
  const run = (subject: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    // Counted in and out as acquire and release, so no interruption can leave a count behind.
    Effect.acquireUseRelease(
      Effect.sync(() => {
        let turns = bySubject.get(subject)
        if (turns === undefined) {
          turns = { semaphore: Effect.unsafeMakeSemaphore(cap), users: 0 }
          bySubject.set(subject, turns)
        }
        turns.users++
        return turns
      }),
      (turns) => turns.semaphore.withPermits(1)(effect),
      (turns) => Effect.sync(() => {
        if (--turns.users === 0 && bySubject.get(subject) === turns) bySubject.delete(subject)
      })
    )
  return { run, subjects: () => bySubject.size }
}
