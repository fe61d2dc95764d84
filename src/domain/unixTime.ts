// The one reading of a time an agent types: Unix seconds, or "+SECONDS" from now. The text
// gate reads a poll's closes and a grant's until with it (gate/command.ts, gate/agentVerbs.ts)
// and the client its options and the MCP tools' arguments (src/client/unixTime.ts), so a time
// one of them takes the other takes too, and a millisecond value (every `logged` time the log
// answers is in milliseconds) is refused by both as past the year 9999. Pure: `now` is given.

/** 9999-12-31T23:59:59Z in Unix seconds: a time past it is no time in seconds (milliseconds, most likely). */
export const MAX_UNIX_SECONDS = 253_402_300_799

/** Unix seconds (decimal digits), or "+SECONDS" from now (at most 12 digits: past the year 9999 anyway). */
const TIME_FORM = /^(?:\+[0-9]{1,12}|[0-9]+)$/

/**
 * The Unix seconds of `text`, `now` being Unix ms: decimal digits are Unix seconds,
 * "+SECONDS" is that many seconds after now (rounded down to the second). Undefined for
 * anything else (a minus sign, a fraction, an exponent, spaces) and for digits past
 * Number.MAX_SAFE_INTEGER. A time past the year 9999 is read as written: see pastYear9999.
 */
export const timeAt = (text: string, now: number): number | undefined => {
  if (!TIME_FORM.test(text)) return undefined
  const seconds = text.startsWith("+") ? Math.floor(now / 1000) + Number(text.slice(1)) : Number(text)
  return Number.isSafeInteger(seconds) ? seconds : undefined
}

/** Whether `text` is a time timeAt reads (whatever now is). */
export const isTime = (text: string): boolean => timeAt(text, 0) !== undefined

/**
 * Why `seconds` is no time in seconds, when it is past the year 9999: words that name a
 * millisecond value as such (what it is in seconds). Undefined for a time up to then.
 */
export const pastYear9999 = (seconds: number): string | undefined =>
  seconds <= MAX_UNIX_SECONDS ? undefined
    : `${seconds} would be after the year 9999` +
      (seconds / 1000 <= MAX_UNIX_SECONDS ? ` (it looks like milliseconds: in seconds that is ${Math.floor(seconds / 1000)})` : "")
