// The log lines an Effect program writes, kept for a test to read: a logger that records each
// line's level, message, annotations and cause, and the layer that puts it in place of the
// default logger (fibers forked under it inherit it).

import { type Cause, HashMap, Logger } from "effect"

export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
  readonly cause: Cause.Cause<unknown>
}

export const logLines = () => {
  const lines: Array<LogLine> = []
  const logger = Logger.make(({ logLevel, message, annotations, cause }) =>
    void lines.push({
      level: logLevel.label,
      message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
      cause
    }))
  return { lines, logger, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/** The lines whose message is `message`. */
export const withMessage = (lines: ReadonlyArray<LogLine>, message: string): ReadonlyArray<LogLine> =>
  lines.filter((line) => line.message === message)
