// Times an agent gives the client: Unix seconds, or "+SECONDS" from now. The CLI's options
// (--closes, --until) and the MCP tools' arguments are read here, the text by the domain's
// own reader that the text gate uses too (src/domain/unixTime.ts), so a millisecond value (a
// poll open for 57,000 years, a grant that never ends) is refused the same way everywhere.

import { pastYear9999, timeAt } from "../domain/unixTime.js"
import { usageError } from "./errors.js"

export interface UnixSecondsOptions {
  /** The time must be after now. */
  readonly future?: boolean | undefined
  /** Now, Unix ms (default this machine's clock). */
  readonly now?: number | undefined
  /** Whose clock `now` is, for the refusal ("by the service's clock"). */
  readonly clock?: string | undefined
  /**
   * With `future`: a time this many seconds or less before now is let through too (a check
   * made before the service's clock is read, whose now may be that far behind); the refusal
   * says so, and states now as it is.
   */
  readonly slackSeconds?: number | undefined
}

/**
 * The Unix seconds of a time an agent gives (aics --closes, the MCP tools' times): an
 * integer, or a string the domain's timeAt reads (decimal digits, or "+SECONDS" from now);
 * or a usage error that says the unit, which names a millisecond value as such (every
 * `logged` time the log answers is in milliseconds).
 */
export const unixSeconds = (value: unknown, what: string, options: UnixSecondsOptions = {}): number => {
  const nowMs = options.now ?? Date.now()
  const now = Math.floor(nowMs / 1000)
  const seconds = typeof value === "string" ? timeAt(value, nowMs) : value
  if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < 0) {
    throw usageError(`${what} is Unix seconds (an integer) or "+SECONDS" from now, got ${JSON.stringify(value)}`)
  }
  const tooLate = pastYear9999(seconds)
  if (tooLate !== undefined) {
    throw usageError(`${what} is in Unix SECONDS: ${tooLate}; now is ${now} in seconds, or give "+SECONDS" from now`)
  }
  const slack = options.slackSeconds ?? 0
  if (options.future === true && seconds <= now - slack) {
    const clock = options.clock === undefined ? "" : ` ${options.clock}`
    const allowed = slack === 0 ? "" : `, and it is past even by a clock ${slack} s behind this one (the most a service's may be)`
    throw usageError(`${what} ${seconds} (${new Date(seconds * 1000).toISOString()}) is not in the future: now is ${now} in Unix seconds${clock}${allowed}; give a later time or "+SECONDS"`)
  }
  return seconds
}

