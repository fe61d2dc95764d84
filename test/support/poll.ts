// Polling with a deadline, for tests that wait on a server (no fixed sleeps): the probe's
// first defined answer, or a failure naming what was awaited.

import { Duration, Effect } from "effect"

export const pollUntil = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The same inside an Effect: polls `check` every 20 ms until it holds; dies naming `what` after `timeoutMs`. */
export const untilHolds = (what: string, check: Effect.Effect<boolean>, timeoutMs = 10_000): Effect.Effect<void> =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep(Duration.millis(20))
    }
  })
