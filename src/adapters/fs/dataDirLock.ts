// One service at a time on a data directory (the filesystem default). Two processes on one
// directory would both append to the log and both recover its tail at open (cutting what
// the other is writing as "torn"), and SQLite would refuse the second one's state.db as
// locked, which must not be mistaken for damage. So before any store opens, the service
// takes a lock on <data dir>/aics.lock and holds it while it runs; a second start on the
// same directory fails at once, saying so, having touched nothing.
//
// The lock is SQLite's own file lock (fcntl), taken by an exclusive transaction in
// exclusive locking mode (no write: an existing lock file needs no room on the disk) and
// held for as long as the connection is open: the kernel releases it when the process ends,
// however it ends, so a SIGKILL leaves no stale lock behind (a PID file would).
// On PostgreSQL the directory holds only keys and the last checkpoint (replaced
// atomically), which several nodes may share: no lock.

import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { openSqliteConnection } from "../sqlite/sqliteConnection.js"
import { isInUse, sqliteErrors } from "../sqlite/sqliteErrors.js"

export const LOCK_FILE = "aics.lock"

const { describe } = sqliteErrors(LOCK_FILE)

/** Holds the lock on `dataDir` for the layer's lifetime; fails if another process holds it. */
export const DataDirLockLive = (dataDir: string): Layer.Layer<never, StorageError> =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const filename = join(dataDir, LOCK_FILE)
    // A first start finds no directory yet.
    yield* Effect.tryPromise(() => mkdir(dataDir, { recursive: true }))
    const { sql } = yield* openSqliteConnection(filename)
    // Fail at once rather than wait for the holder (better-sqlite3 waits 5 s by default).
    yield* sql.unsafe("PRAGMA busy_timeout = 0")
    yield* sql.unsafe("PRAGMA locking_mode = EXCLUSIVE")
    // No journal file: taking the lock of an existing lock file writes nothing, so a start
    // on a full disk still takes it (docs/operations.md "A full disk").
    yield* sql.unsafe("PRAGMA journal_mode = MEMORY")
    // An exclusive transaction takes the exclusive lock, which exclusive locking mode keeps
    // after it ends, for as long as the connection is open.
    yield* sql.unsafe("BEGIN EXCLUSIVE")
    yield* sql.unsafe("COMMIT")
  }).pipe(Effect.mapError((error) =>
    isInUse(error)
      ? new StorageError({
        operation: "lock the data directory",
        detail: `${dataDir} is in use by another aics process (${LOCK_FILE} is locked): one service at a time on a data directory`,
        cause: error
      })
      : new StorageError({ operation: "lock the data directory", detail: describe(error), cause: error }))))
