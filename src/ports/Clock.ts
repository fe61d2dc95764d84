// Wall-clock time for the application layer. The domain never reads a clock: the time a
// decision needs comes in as an argument, taken from this port, so tests can set it.

import { Context, Effect, Layer } from "effect"

export class Clock extends Context.Tag("aics/Clock")<Clock, {
  /** Milliseconds since the Unix epoch. */
  readonly nowMillis: Effect.Effect<number>
}>() {
  /** The machine's clock. */
  static readonly system = Layer.succeed(Clock, { nowMillis: Effect.sync(() => Date.now()) })
}
