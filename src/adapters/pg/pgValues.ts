// What the PostgreSQL adapters share: how a database failure becomes the ports'
// StorageError, and how column values become the ports' types.
//
// @effect/sql fails a statement with a SqlError whose message is generic ("Failed to
// execute statement"): the driver's error, kept as its cause, says what happened, so the
// detail carries both. A COMMIT or ROLLBACK that fails is a defect in @effect/sql
// (withTransaction dies): the transaction's outcome is then unknown, which is exactly what
// a StorageError tells the caller (stop acknowledging, surface it), so transact turns it
// into one.
//
// node-postgres returns bigint as a string (exact; positions stay below 2^53, storedHash.ts)
// and bytea as a Buffer, whose slice() is a view, not a copy: the adapters hand out plain
// Uint8Array copies, as the other stores do.

import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Redacted } from "effect"
import { databaseWhere } from "../../app/ServiceConfig.js"
import { StorageError } from "../../ports/StorageError.js"

/** A database failure in one line: @effect/sql's message, then the driver's (its cause). */
export const describeError = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const inner = (error as { readonly cause?: unknown }).cause
  return inner instanceof Error ? `${error.message}: ${inner.message}` : error.message
}

/**
 * A pool that cannot connect, worded with the server's own reason (the pool's message is only
 * "Failed to connect"): a refused port, an unknown database and a refused role read apart.
 */
export const unreachable = (operation: string, url: Redacted.Redacted<string>) => (error: SqlError): StorageError => {
  const reason = error.cause instanceof Error && error.cause.message !== "" ? error.cause.message : describeError(error)
  return new StorageError({ operation, detail: `cannot reach the database at ${databaseWhere(url)}: ${reason}`, cause: error })
}

/** Maps the SqlErrors of an effect to StorageErrors of the operation. */
export const storage = (operation: string) =>
<A, R>(effect: Effect.Effect<A, SqlError | StorageError, R>): Effect.Effect<A, StorageError, R> =>
  Effect.mapError(effect, (error) =>
    error._tag === "StorageError" ? error : new StorageError({ operation, detail: describeError(error), cause: error }))

/** Runs the effect in one transaction; any failure, including of COMMIT, is a StorageError. */
export const transact = <A, R>(
  sql: SqlClient.SqlClient,
  operation: string,
  effect: Effect.Effect<A, SqlError | StorageError, R>
): Effect.Effect<A, StorageError, R> =>
  sql.withTransaction(effect).pipe(
    Effect.catchAllDefect((defect) =>
      Effect.fail(new StorageError({ operation, detail: `the transaction failed to end, its outcome is unknown: ${describeError(defect)}`, cause: defect }))
    ),
    storage(operation)
  )

/** A bigint (or integer) column as a number. */
export const toNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value))

/** A bytea column as a Uint8Array of its own. */
export const toBytes = (value: unknown): Uint8Array => new Uint8Array(value as Uint8Array)
