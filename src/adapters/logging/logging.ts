// The service's logger (issue 13 item 8; docs/operations.md "Logs"): Effect's Logger, one
// line per event at a level, with its values as annotations (key=value in logfmt, members
// in json) rather than spliced into the message, so a log pipeline can filter on them.
// AICS_LOG_FORMAT picks the line format, AICS_LOG_LEVEL the least severe level written.
//
// The process's own report is not filtered by the level: the lines that frame a process
// (aics starting, stopping, stopped: lifecycle.ts), where each listener listens, and the
// start's report of what to do next (startupLines.ts: the verifier key to publish, the owner
// key file) are what an operator reads after any start, as the one line of a failed start
// (startupLine.ts) is. They are written at INFO whatever AICS_LOG_LEVEL says (`none`
// included), in the format AICS_LOG_FORMAT picks: `warning` quiets the diagnostics, not them.

import { Effect, Layer, Logger, LogLevel } from "effect"
import type { LogFormat, LogLevelName } from "../../app/OperationsConfig.js"

const LEVELS: Record<LogLevelName, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

const FORMATS: Record<LogFormat, Layer.Layer<never>> = {
  logfmt: Logger.logFmt,
  json: Logger.json,
  pretty: Logger.pretty
}

/**
 * One line of the process's report (above): at INFO, with its annotations, written whatever
 * the minimum level. Only this line is lifted: the level is set around the log call alone.
 */
export const reportLine = (message: string, annotations: Record<string, unknown> = {}): Effect.Effect<void> =>
  Effect.logInfo(message).pipe(Effect.annotateLogs(annotations), Logger.withMinimumLogLevel(LogLevel.All))

/** The logger of `format` at `level` and above, replacing Effect's default. */
export const LoggingLive = (settings: { readonly logLevel: LogLevelName; readonly logFormat: LogFormat }): Layer.Layer<never> =>
  Layer.merge(FORMATS[settings.logFormat], Logger.minimumLogLevel(LEVELS[settings.logLevel]))
