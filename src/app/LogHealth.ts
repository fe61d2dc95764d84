// What /healthz reports, kept in memory so that answering costs no I/O and no scan:
// whether the published tiles diverged from the log (then the log refuses new leaves and
// health answers 503), and the publisher's progress and last error.

import { Context, Effect, Layer, Ref } from "effect"

export interface PublishState {
  /** Size of the last published checkpoint. */
  readonly publishedSize: number
  /** When that checkpoint was published (ms), or undefined before the first. */
  readonly publishedAt: number | undefined
  /** The last publishing failure, cleared by the next success. */
  readonly error: string | undefined
}

export class LogHealth extends Context.Tag("aics/LogHealth")<LogHealth, {
  /** Why the log diverged from its tiles, or undefined while they agree. */
  readonly diverged: Effect.Effect<string | undefined>
  readonly markDiverged: (reason: string) => Effect.Effect<void>
  readonly publish: Ref.Ref<PublishState>
}>() {
  static readonly layer = Layer.effect(LogHealth, Effect.gen(function*() {
    const diverged = yield* Ref.make<string | undefined>(undefined)
    const publish = yield* Ref.make<PublishState>({ publishedSize: 0, publishedAt: undefined, error: undefined })
    return {
      diverged: Ref.get(diverged),
      // The first reason is kept: later ones are consequences of it. It is said once, as an
      // error line: /healthz answers 503 DIVERGED and every write is refused from now on.
      markDiverged: (reason) =>
        Effect.flatMap(Ref.getAndUpdate(diverged, (current) => current ?? reason), (before) =>
          before !== undefined ? Effect.void : Effect.logError(
            `the log diverged from its published tiles (${reason}): writes are refused and /healthz answers 503 DIVERGED; docs/operations.md "Damage found at start" says what to do`
          )),
      publish
    }
  }))
}
