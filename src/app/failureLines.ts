// The log lines of background work that retries while what it needs fails (the database
// down, a full disk): one line when the work starts failing, a reminder at most once a
// minute while it goes on failing, and one line when it works again. Loops that retry every
// second and logged each failure with its stack filled an operator's log with 4,886 lines in
// the first 45 s of a database outage, which hid the one line that said what happened.
//
// An expected failure (a typed error, such as a store's StorageError) is its message, one
// line in the `error` annotation, with no stack trace: it says what failed, not where in the
// code. A defect (a bug) keeps its whole cause, stack traces included.

import { Cause, Effect, LogLevel, Option } from "effect"

/** How often a failure that goes on is logged again. */
export const REMINDER_MILLIS = 60_000

/** A failure under way: what its last occurrence said, since when the work fails, when it last failed. */
export interface FailureSpell {
  readonly error: string
  readonly since: number
  readonly last: number
}

export interface FailureLines {
  /**
   * The work failed with `cause`: logged as `line` when it was working until now, and again
   * (annotated with how long it has failed) at most once a REMINDER_MILLIS while it fails.
   */
  readonly failed: (line: string, cause: Cause.Cause<unknown>) => Effect.Effect<void>
  /** The work succeeded: `line`, when given, is logged if it was failing. */
  readonly worked: (line?: string) => Effect.Effect<void>
  /** The failure under way, if the work is failing. */
  readonly spell: () => FailureSpell | undefined
}

/** What a failure says in one line: an expected failure's message (a defect's too, for reports). */
export const failureMessage = (cause: Cause.Cause<unknown>): string => {
  const error = Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))
  if (error instanceof Error) return error.message
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  return String(error)
}

/** Lines at `level` for one piece of work, timed by `now` (milliseconds). */
export const failureLines = (level: LogLevel.LogLevel, now: Effect.Effect<number>): FailureLines => {
  let spell: FailureSpell | undefined
  let loggedAt = 0
  /** Failures since the last line. */
  let unlogged = 0
  const log = (line: string, cause: Cause.Cause<unknown>, annotations: Record<string, unknown>) =>
    Cause.isDie(cause)
      ? Effect.logWithLevel(level, line, cause).pipe(Effect.annotateLogs(annotations))
      : Effect.logWithLevel(level, line).pipe(Effect.annotateLogs({ error: failureMessage(cause), ...annotations }))
  return {
    failed: (line, cause) =>
      Effect.flatMap(now, (at) => {
        const anew = spell === undefined
        spell = { error: failureMessage(cause), since: anew ? at : spell!.since, last: at }
        if (anew) {
          loggedAt = at
          unlogged = 0
          return log(line, cause, {})
        }
        unlogged++
        if (at - loggedAt < REMINDER_MILLIS) return Effect.void
        loggedAt = at
        const repeated = unlogged
        unlogged = 0
        return log(line, cause, { failing_seconds: Math.floor((at - spell.since) / 1000), failures_since_last_line: repeated })
      }),
    worked: (line) =>
      Effect.suspend(() => {
        if (spell === undefined) return Effect.void
        spell = undefined
        return line === undefined ? Effect.void : Effect.logInfo(line)
      }),
    spell: () => spell
  }
}
