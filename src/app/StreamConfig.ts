// Settings of the live stream (GET /v2/stream), from the environment. Kept apart from
// ServiceConfig so the stream's limits are one self-contained piece: the per-address cap on
// open streams (a small admission limit of its own) and how long a consumer may leave the
// socket undrained before it is dropped.

import { Config, ConfigError, Context, Effect, Either, Layer } from "effect"

export interface StreamSettings {
  /** Streams one caller address may hold open at once (AICS_STREAMS_PER_ADDRESS). */
  readonly perAddress: number
  /**
   * Seconds a consumer may leave its socket full while events wait before it gets the
   * `dropped` event and is closed (AICS_STREAM_STALL_SECONDS).
   */
  readonly stallSeconds: number
}

const intBetween = (name: string, min: number, max: number, fallback: number) =>
  Config.mapOrFail(Config.withDefault(Config.integer(name), fallback), (n) =>
    n >= min && n <= max
      ? Either.right(n)
      : Either.left(ConfigError.InvalidData([name], `${name} must be an integer from ${min} to ${max}, got ${n}`)))

export class StreamConfig extends Context.Tag("aics/StreamConfig")<StreamConfig, StreamSettings>() {
  static readonly fromEnv = Layer.effect(StreamConfig, Effect.gen(function*() {
    const perAddress = yield* intBetween("AICS_STREAMS_PER_ADDRESS", 1, 100_000, 8)
    const stallSeconds = yield* intBetween("AICS_STREAM_STALL_SECONDS", 1, 3600, 15)
    return { perAddress, stallSeconds }
  }))
  static readonly layer = (settings: StreamSettings) => Layer.succeed(StreamConfig, settings)
}
