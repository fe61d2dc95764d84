// Times an agent gives the client: Unix seconds, or "+SECONDS" from now. One parser for the
// CLI's options (--closes, --until) and the MCP tools' arguments, so a millisecond value (a
// poll open for 57,000 years, a grant that never ends) is refused the same way on both.

import { usageError } from "./errors.js"

/** 9999-12-31T23:59:59Z in Unix seconds: a time past it is no time in seconds (milliseconds, most likely). */
export const MAX_UNIX_SECONDS = 253_402_300_799

/**
 * The Unix seconds of a time an agent gives (aics --closes, the MCP tools' times): an
 * integer, or "+SECONDS" from now; or a usage error that says the unit, which names a
 * millisecond value as such (every `logged` time the log answers is in milliseconds).
 */
export const unixSeconds = (value: unknown, what: string, options: { readonly future?: boolean; readonly now?: number } = {}): number => {
  const nowMs = options.now ?? Date.now()
  const now = Math.floor(nowMs / 1000)
  const seconds = typeof value === "string" && /^\+[0-9]{1,12}$/.test(value) ? now + Number(value.slice(1)) : value
  if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < 0) {
    throw usageError(`${what} is Unix seconds (an integer) or "+SECONDS" from now, got ${JSON.stringify(value)}`)
  }
  if (seconds > MAX_UNIX_SECONDS) {
    throw usageError(`${what} is in Unix SECONDS: ${seconds} would be after the year 9999` +
      (seconds / 1000 <= MAX_UNIX_SECONDS ? ` (it looks like milliseconds: in seconds that is ${Math.floor(seconds / 1000)})` : "") +
      `; now is ${now} in seconds, or give "+SECONDS" from now`)
  }
  if (options.future === true && seconds <= now) {
    throw usageError(`${what} ${seconds} (${new Date(seconds * 1000).toISOString()}) is not in the future: now is ${now} in Unix seconds; give a later time or "+SECONDS"`)
  }
  return seconds
}

/**
 * A time given on the command line (aics poll create --closes, aics grant --until, aics
 * admin suspend --until): decimal digits are Unix seconds, "+SECONDS" is from now, anything
 * else (a sign, a fraction, an exponent) a usage error saying so; then as unixSeconds.
 */
export const unixSecondsOption = (text: string, option: string, options: { readonly future?: boolean; readonly now?: number } = {}): number =>
  unixSeconds(/^[0-9]+$/.test(text) ? Number(text) : text, option, options)
