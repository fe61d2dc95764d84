// StorageErrors out of @effect/sql on SQLite (sqliteConnection.ts), shared by the SQLite files of the service
// (state.db, SqliteProjectionStore.ts; the log's leaf index, src/adapters/fs/leafSidecar.ts):
// every failure a port's caller sees names the operation and SQLite's own words.

import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { StorageError } from "../../ports/StorageError.js"

/** better-sqlite3's error code (SQLITE_FULL, SQLITE_CORRUPT, ...) under an @effect/sql error or a defect. */
export const sqliteCode = (error: unknown): string | undefined => {
  for (let at = error, depth = 0; at !== null && typeof at === "object" && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { readonly code?: unknown }).code
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code
  }
  return undefined
}

/** A file that is not a database or whose pages are damaged: only moving it aside helps. */
export const isDamaged = (error: unknown): boolean => {
  const code = sqliteCode(error)
  return code !== undefined && (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT"))
}

/** Locked by another connection (another process on the same file): waiting or failing helps, moving it aside never. */
export const isInUse = (error: unknown): boolean => {
  const code = sqliteCode(error)
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
}

/** The helpers for one SQLite file, whose name the errors carry. */
export const sqliteErrors = (file: string) => {
  const describe = (error: unknown): string => {
    const inner = (error as { readonly cause?: unknown } | null)?.cause
    const outer = error instanceof Error ? error.message : String(error)
    // SQLite's own words for a full disk ("database or disk is full") do not say which.
    const full = sqliteCode(error) === "SQLITE_FULL" ? ` (${file}: no space left on device)` : ""
    // Nor do "database is locked" ones say by whom.
    const locked = isInUse(error) ? ` (${file} is locked by another process: is another aics running on this data directory?)` : ""
    return inner instanceof Error ? `${outer}: ${inner.message}${full}${locked}` : `${outer}${locked}`
  }

  const storage = (operation: string) => <A, R>(effect: Effect.Effect<A, unknown, R>): Effect.Effect<A, StorageError, R> =>
    Effect.mapError(effect, (error) =>
      error instanceof StorageError ? error : new StorageError({ operation, detail: describe(error), cause: error }))

  /**
   * Runs the effect in one transaction; any failure, including of COMMIT, is a StorageError.
   * @effect/sql dies when COMMIT or ROLLBACK fails (a full disk fails COMMIT in WAL mode), and
   * SQLite may then leave the transaction open: it is rolled back here, so the next one can
   * begin, and the file stays as the last committed transaction left it.
   */
  const transact = <A, R>(sql: SqlClient.SqlClient, operation: string, effect: Effect.Effect<A, unknown, R>) =>
    sql.withTransaction(effect).pipe(
      Effect.catchAllDefect((defect) =>
        Effect.zipRight(
          Effect.ignore(sql.unsafe("ROLLBACK")),
          Effect.fail(new StorageError({ operation, detail: `the transaction failed to end: ${describe(defect)}`, cause: defect }))
        )
      ),
      storage(operation)
    )

  return { describe, storage, transact }
}
