// Whether the replay store (ports/NonceStore.ts) works, for /healthz (app/ServiceHealth.ts:
// storage_unavailable). Every signed request asks it, and is refused 503 log_unavailable
// while it fails (domain/write/refusal.ts replayStoreFailed): /healthz said OK meanwhile.
//
// The layer watches the store below it and provides it again: each remember's outcome is
// held in memory, so /healthz reads no storage. As a batch's failure (app/Sequencer.ts), a
// failure is reported until a remember works again, or for REPLAY_FAILURE_REPORTED_MILLIS
// after the last one: only clients' requests try the store, and a quiet node would
// otherwise report one failure for good. The failures log one line when they start, a
// reminder a minute while they go on, and one line when the store works again
// (failureLines.ts), not a line a request.

import { Cause, Context, Effect, Layer, LogLevel } from "effect"
import { Clock } from "../ports/Clock.js"
import { NonceStore } from "../ports/NonceStore.js"
import { failureLines } from "./failureLines.js"

/** How long a failure of the replay store is reported after the last one, when no remember works meanwhile. */
export const REPLAY_FAILURE_REPORTED_MILLIS = 60_000

export class ReplayStoreHealth extends Context.Tag("aics/ReplayStoreHealth")<ReplayStoreHealth, {
  /** Why the replay store fails (its latest failure), while it does: from memory. */
  readonly failure: Effect.Effect<string | undefined>
}>() {
  /** The NonceStore below, watched: provides it again, with this. */
  static readonly layer: Layer.Layer<NonceStore | ReplayStoreHealth, never, NonceStore | Clock> = Layer.effectContext(Effect.gen(function*() {
    const store = yield* NonceStore
    const clock = yield* Clock
    const lines = failureLines(LogLevel.Error, clock.nowMillis)
    const remember: NonceStore["Type"]["remember"] = (keyid, nonce, until, now) =>
      store.remember(keyid, nonce, until, now).pipe(Effect.tapBoth({
        onFailure: (error) => lines.failed("the replay store fails: signed requests are refused 503", Cause.fail(error)),
        onSuccess: () => lines.worked("the replay store works again")
      }))
    const failure = Effect.map(clock.nowMillis, (now) => {
      const spell = lines.spell()
      return spell !== undefined && now - spell.last <= REPLAY_FAILURE_REPORTED_MILLIS ? spell.error : undefined
    })
    return Context.make(NonceStore, NonceStore.of({ remember })).pipe(Context.add(ReplayStoreHealth, { failure }))
  }))
}
