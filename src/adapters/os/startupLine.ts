// The one line a failed start prints: the cause in plain words and the variable that decides
// it, never a stack trace (an operator reads the first line; the rest hid it). The start's
// own checks (startupChecks.ts) already name their variable; the failures found later while
// the layers build (a setting's value, leaf 0 of another origin, a port taken in between)
// are worded here from their tags.

import { Cause, ConfigError, Option } from "effect"

const firstLine = (text: string): string => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text

/** "AICS_PORT: Expected an integer value but received "abc"" for each failing variable. */
const configLine = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${configLine(error.left)}; ${configLine(error.right)}`
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported": {
      const variable = error.path.join("_")
      // The checks in ServiceConfig.ts start their message with the variable already.
      return error.message.startsWith(variable) ? error.message : `${variable}: ${error.message}`
    }
  }
}

/** Which setting leaf 0's refusal points at (src/app/Charter.ts names the member). */
const charterVariable = (message: string): string =>
  message.includes("names instance_domain") ? "AICS_DOMAIN (or AICS_DATA_DIR / AICS_DATABASE_URL: the folder or database of another log)"
    : message.includes("names origin") ? "AICS_ORIGIN (or AICS_DATA_DIR / AICS_DATABASE_URL: the folder or database of another log)"
    : message.includes("names owner_kid") ? "AICS_OWNER_KID"
    : message.includes("names log_vkey") || message.includes("names policy_kid")
    ? "AICS_DATA_DIR (its keys/ are not the keys of this log: copy keys/ from a node of this log or restore it from your backup)"
    : "AICS_DATA_DIR / AICS_DATABASE_URL"

const errorLine = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return `bad setting: ${configLine(error)}`
  const tagged = error as { readonly _tag?: unknown; readonly message?: unknown; readonly cause?: unknown; readonly detail?: unknown }
  const message = typeof tagged.message === "string" ? tagged.message : String(error)
  switch (tagged._tag) {
    case "StartupProblem":
      return message
    case "CharterMismatch":
      return `${message}: check ${charterVariable(message)}`
    case "ServeError": {
      // A port taken between the check and the listen.
      const cause = tagged.cause as NodeJS.ErrnoException | undefined
      return cause?.code === "EADDRINUSE" ? `the HTTP port (AICS_PORT) is in use by another process: ${cause.message}` : `the HTTP server cannot listen (AICS_HOST, AICS_PORT): ${firstLine(String(cause?.message ?? message))}`
    }
    case "StorageError": {
      const detail = typeof tagged.detail === "string" ? firstLine(tagged.detail) : firstLine(message)
      return detail.startsWith("cannot reach the database") ? `storage: ${detail}: check AICS_DATABASE_URL` : `storage: ${detail}`
    }
    default:
      return firstLine(message)
  }
}

/** The one line for a start (or, once `started`, a running service) that failed with `cause`. */
export const startupFailureLine = (cause: Cause.Cause<unknown>, started = false): string =>
  failureLine(started ? "aics: stopped on an error:" : "aics: cannot start:", cause)

/** The one line for a command (src/compactBodies.ts) that failed with `cause`, after `prefix`. */
export const failureLine = (prefix: string, cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return `${prefix} ${errorLine(failure.value)}`
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) return `${prefix} ${errorLine(defect.value)}`
  return `${prefix} ${firstLine(Cause.pretty(cause))}`
}
