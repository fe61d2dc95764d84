// What the operator sets to watch the service (issue 13 items 7 and 8; README's
// configuration table; docs/operations.md "Metrics" and "Logs"), apart from ServiceConfig
// because none of it changes what the service does or says to its clients:
//   AICS_METRICS_PORT  the /metrics listener's port; unset or 0: no listener.
//   AICS_METRICS_HOST  its address, 127.0.0.1 unless set (loopback: the series are for the
//                      operator, not for the public the service port faces).
//   AICS_LOG_LEVEL     trace|debug|info|warning|error|fatal|none (default info).
//   AICS_HTTP_PENDING_BYTES, AICS_HTTP_PENDING_BYTES_PER_ADDRESS  bytes of unanswered HTTP
//                      requests held at most, in all and per client address (default
//                      256 MiB and 16 MiB; adapters/http/pendingBytes.ts).
//   AICS_LOG_FORMAT    pretty|json|logfmt (default pretty, as before: a line per event with
//                      its annotations below it; json or logfmt, one line each, for a pipeline).
//   AICS_OTLP_URL      an OTLP/HTTP collector (http://host:4318): traces of the write path
//                      are sent to <url>/v1/traces as OTLP JSON (app/Tracing.ts); unset: none.
//   AICS_MEMORY_TARGET_MIB  the resident memory the JavaScript heap's growth is held under
//                      (default 384; 0: V8's own growth, up to four times what the last full
//                      collection kept): after each full collection the heap may grow as far
//                      as keeps the process under it, never less than 50%; a target the
//                      process cannot meet is given up until there is room again
//                      (adapters/os/heapGrowth.ts).
//   AICS_HEAP_GROWTH_PERCENT  a fixed growth instead, 1 to 300 (default 0: none, the target
//                      above decides): memory against the GC's CPU.

import { Config, ConfigError, Effect, Either, Option } from "effect"

/** AICS_HEAP_GROWTH_PERCENT's default (no fixed growth: the memory target, if any, decides), and its largest value (V8's own largest growth is four times). */
export const DEFAULT_HEAP_GROWTH_PERCENT = 0
export const MAX_HEAP_GROWTH_PERCENT = 300
/**
 * AICS_MEMORY_TARGET_MIB's default: 384 MiB, issue 12's "RSS under 400 MiB", which V8's own
 * growth passes while writing (bench/write peaked at 438-482 MiB, against 376-397 under the
 * target for the same CPU an entry; bench/README.md "Session 31"). Where it cannot be met
 * (1,000 stream subscribers) it is given up (adapters/os/heapGrowth.ts), after costing a few
 * per cent of the throughput while they arrive. The least target besides 0 (V8's own growth).
 */
export const DEFAULT_MEMORY_TARGET_MIB = 384
export const LEAST_MEMORY_TARGET_MIB = 128

export const LOG_LEVELS = ["trace", "debug", "info", "warning", "error", "fatal", "none"] as const
export type LogLevelName = typeof LOG_LEVELS[number]
export const LOG_FORMATS = ["pretty", "json", "logfmt"] as const
export type LogFormat = typeof LOG_FORMATS[number]

export interface OperationsSettings {
  readonly metrics: { readonly host: string; readonly port: number } | undefined
  readonly logLevel: LogLevelName
  readonly logFormat: LogFormat
  readonly pendingBytes: { readonly total: number; readonly perAddress: number }
  /** Where traces go (the collector's /v1/traces), or undefined: no traces. */
  readonly otlpTracesUrl: string | undefined
  /** How far the heap may grow past what the last full collection kept, in per cent (0: not fixed). */
  readonly heapGrowthPercent: number
  /** The resident memory, in MiB, the heap's growth is held under when it is not fixed (0: V8's own growth). */
  readonly memoryTargetMiB: number
}

/** The collector's base URL, or its traces endpoint itself, to the traces endpoint. */
export const otlpTracesUrl = (text: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return Either.left(`AICS_OTLP_URL must be an http or https URL, got ${JSON.stringify(text)}`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left(`AICS_OTLP_URL must be an http or https URL, got ${JSON.stringify(text)}`)
  if (url.search !== "" || url.hash !== "") return Either.left(`AICS_OTLP_URL takes no query or fragment, got ${JSON.stringify(text)}`)
  const path = url.pathname.replace(/\/+$/, "")
  url.pathname = path.endsWith("/v1/traces") ? path : `${path}/v1/traces`
  return Either.right(url.toString())
}

const oneOf = <A extends string>(name: string, values: ReadonlyArray<A>, fallback: A) =>
  Config.mapOrFail(Config.withDefault(Config.string(name), fallback), (text) => {
    const value = text.trim().toLowerCase() as A
    return values.includes(value)
      ? Either.right(value)
      : Either.left(ConfigError.InvalidData([name], `${name} must be one of ${values.join(", ")}, got ${JSON.stringify(text)}`))
  })

/** A byte count of at least 1 MiB (one GET /t head must fit). */
const bytes = (name: string, fallback: number) =>
  Config.mapOrFail(Config.withDefault(Config.integer(name), fallback), (n) =>
    n >= 1024 * 1024 && Number.isSafeInteger(n)
      ? Either.right(n)
      : Either.left(ConfigError.InvalidData([name], `${name} must be a byte count of at least 1048576, got ${n}`)))

export const operationsConfig: Effect.Effect<OperationsSettings, ConfigError.ConfigError> = Effect.gen(function*() {
  const port = yield* Config.mapOrFail(Config.withDefault(Config.integer("AICS_METRICS_PORT"), 0), (n) =>
    n >= 0 && n <= 65535 ? Either.right(n) : Either.left(ConfigError.InvalidData(["AICS_METRICS_PORT"], `AICS_METRICS_PORT must be a port from 0 to 65535, got ${n}`)))
  const host = yield* Config.withDefault(Config.nonEmptyString("AICS_METRICS_HOST"), "127.0.0.1")
  return {
    metrics: port === 0 ? undefined : { host, port },
    logLevel: yield* oneOf("AICS_LOG_LEVEL", LOG_LEVELS, "info"),
    logFormat: yield* oneOf("AICS_LOG_FORMAT", LOG_FORMATS, "pretty"),
    pendingBytes: {
      total: yield* bytes("AICS_HTTP_PENDING_BYTES", 256 * 1024 * 1024),
      perAddress: yield* bytes("AICS_HTTP_PENDING_BYTES_PER_ADDRESS", 16 * 1024 * 1024)
    },
    otlpTracesUrl: yield* Config.mapOrFail(Config.option(Config.nonEmptyString("AICS_OTLP_URL")), (url) =>
      Option.isNone(url)
        ? Either.right(undefined)
        : Either.mapLeft(otlpTracesUrl(url.value), (message) => ConfigError.InvalidData(["AICS_OTLP_URL"], message))),
    heapGrowthPercent: yield* Config.mapOrFail(Config.withDefault(Config.integer("AICS_HEAP_GROWTH_PERCENT"), DEFAULT_HEAP_GROWTH_PERCENT), (n) =>
      n >= 0 && n <= MAX_HEAP_GROWTH_PERCENT
        ? Either.right(n)
        : Either.left(ConfigError.InvalidData(["AICS_HEAP_GROWTH_PERCENT"], `AICS_HEAP_GROWTH_PERCENT must be a whole number from 0 to ${MAX_HEAP_GROWTH_PERCENT}, got ${n}`))),
    memoryTargetMiB: yield* Config.mapOrFail(Config.withDefault(Config.integer("AICS_MEMORY_TARGET_MIB"), DEFAULT_MEMORY_TARGET_MIB), (n) =>
      n === 0 || (n >= LEAST_MEMORY_TARGET_MIB && Number.isSafeInteger(n))
        ? Either.right(n)
        : Either.left(ConfigError.InvalidData(["AICS_MEMORY_TARGET_MIB"], `AICS_MEMORY_TARGET_MIB must be 0 (V8's own growth) or a whole number of MiB from ${LEAST_MEMORY_TARGET_MIB}, got ${n}`)))
  }
})
