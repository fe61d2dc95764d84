// Opt-in traces of the write path (issue 13 item 8; AICS_OTLP_URL; docs/operations.md
// "Traces"): the HTTP write request, the stateless checks, the wait for the sequencer, its
// batch (decide, durable append) and the publisher. Off by default, and then free: the
// services read the switch once when they are built and, with it off, run their effects
// as they are, with no span object, no attribute object and no tracer lookup per write.
// With it on, the spans go to whichever tracer the process runs with (main.ts installs the
// OTLP exporter, adapters/tracing/otlpTracing.ts, and turns the switch on with it).
//
// The switch is a FiberRef, like the tracer itself (Effect keeps the current tracer in the
// fiber's default services): the layer that installs the tracer sets both for the fibers
// of the whole program, and every fiber forked from it (each request, the sequencer's
// batch loop, the publisher) inherits both.

import { Effect, FiberRef, Layer, Option, type Tracer } from "effect"
import { globalValue } from "effect/GlobalValue"

const switchedOn = globalValue(Symbol.for("aics/Tracing/on"), () => FiberRef.unsafeMake(false))

/** Turns the write path's spans on for the program it is provided to (with a tracer). */
export const TracingOnLive: Layer.Layer<never> = Layer.locallyScoped(switchedOn, true)

export interface WriteTracing {
  readonly on: boolean
  /**
   * `effect` in a span called `name` when on (its options built only then), else `effect`
   * itself.
   */
  readonly span: (name: string, options?: () => Tracer.SpanOptions) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Sets attributes on the current span when on (built only then); nothing when off. */
  readonly annotate: (attributes: () => Record<string, unknown>) => Effect.Effect<void>
  /** The current span when on, for a batch to name its submitters; none when off. */
  readonly current: Effect.Effect<Tracer.Span | undefined>
}

const identity = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect
const none = Effect.succeed(undefined)

const OFF: WriteTracing = {
  on: false,
  span: () => identity,
  annotate: () => Effect.void,
  current: none
}

const ON: WriteTracing = {
  on: true,
  // No stack trace: an Error per span would cost more than the span.
  span: (name, options) => (effect) => Effect.withSpan(effect, name, { captureStackTrace: false, ...options?.() }),
  annotate: (attributes) => Effect.annotateCurrentSpan(attributes()),
  current: Effect.map(Effect.option(Effect.currentSpan), Option.getOrUndefined)
}

/** Read once where a service is built. */
export const writeTracing: Effect.Effect<WriteTracing> = Effect.map(FiberRef.get(switchedOn), (on) => (on ? ON : OFF))
