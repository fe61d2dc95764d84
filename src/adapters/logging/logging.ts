// The service's logger (issue 13 item 8; docs/operations.md "Logs"): Effect's Logger, one
// line per event at a level, with its values as annotations (key=value in logfmt, members
// in json) rather than spliced into the message, so a log pipeline can filter on them.
// AICS_LOG_FORMAT picks the line format, AICS_LOG_LEVEL the least severe level written.

import { Layer, Logger, LogLevel } from "effect"
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

/** The logger of `format` at `level` and above, replacing Effect's default. */
export const LoggingLive = (settings: { readonly logLevel: LogLevelName; readonly logFormat: LogFormat }): Layer.Layer<never> =>
  Layer.merge(FORMATS[settings.logFormat], Logger.minimumLogLevel(LEVELS[settings.logLevel]))
