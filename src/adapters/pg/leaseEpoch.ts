// The fencing token of the sequencing lease on PostgreSQL (src/ports/LeaseFence.ts;
// docs/operations.md, "Retention" and "The log's appends"): the epoch in the one row of
// aics_lease_epoch (migration 0010_lease_epoch).
//
// A new holder raises the epoch right after taking the advisory lock and before its first
// batch (PgCoordination.ts), on the lease's own session. That session holds the lock, so
// the raise commits only while its holder holds the lease. On any other connection, a holder
// whose lease session ended between taking the lock and raising could raise after its
// successor did, and hold the latest epoch without the lease.
//
// A removal (PgBodyStore.ts) locks the row FOR SHARE where the epoch is its own, in the
// transaction of its DELETE; no row means a later lease exists, and it deletes nothing. The
// row lock orders the removal against the next holder's raise (an UPDATE, which waits for
// every share lock taken before it):
//   - the removal holds the share lock first: the raise waits until the removal commits,
//     and every put of the next holder comes after its raise, so a put of bytes just
//     deleted finds no row and stores them again;
//   - the raise commits first: the removal's FOR SHARE reads the raised row (READ COMMITTED
//     takes a snapshot per statement, and a statement that waited on the raise rechecks the
//     updated row against its WHERE) and finds no match.
//
// An append (PgLogStore.ts) takes the same share lock first in its transaction, before the
// head row, and writes nothing without it:
//   - the append holds the share lock first: the raise waits until the append commits, and
//     the next holder reads the log (its catch-up) only after its raise, so it folds the
//     leaf in before it decides a batch or retains anything;
//   - the raise commits first: the append finds no row and writes nothing.
// Lock order is the epoch row, then the head row, for every append; the raise takes the
// epoch row alone, so the two never wait on each other in a cycle.

import type * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { Effect } from "effect"
import type { LeaseFence } from "../../ports/LeaseFence.js"
import { StorageError } from "../../ports/StorageError.js"
import { storage, toNumber } from "./pgValues.js"

/** Raises the epoch on the session that holds the advisory lock; answers the new lease's fence. */
export const advanceLeaseEpoch = (leaseSession: Connection): Effect.Effect<LeaseFence, StorageError> =>
  leaseSession.execute("UPDATE aics_lease_epoch SET epoch = epoch + 1 RETURNING epoch", [], undefined).pipe(
    Effect.flatMap((rows) =>
      rows[0] === undefined
        ? Effect.fail(new StorageError({ operation: "lease", detail: "aics_lease_epoch has no row: the migrations were not run" }))
        : Effect.succeed({ epoch: toNumber(rows[0].epoch) })
    ),
    storage("lease")
  )

/**
 * Whether `fence` is still the latest, share-locking the row until the surrounding
 * transaction ends, so no new holder can raise the epoch before that transaction's writes
 * commit. Only meaningful inside a transaction.
 */
export const holdLeaseEpoch = (sql: SqlClient.SqlClient, fence: LeaseFence) =>
  Effect.map(
    sql`SELECT set_config('idle_in_transaction_session_timeout', ${String(HELD_EPOCH_IDLE_LIMIT_MS)}, true)
      FROM aics_lease_epoch WHERE epoch = ${fence.epoch} FOR SHARE`,
    (rows) => rows.length === 1
  )

/**
 * How long a transaction holding the epoch row may sit idle before the database ends it.
 * A holder stopped mid-append (SIGSTOP, a frozen VM) would otherwise keep the share lock,
 * and its successor's raise would wait for as long as it stays stuck. Set in the same
 * statement that takes the lock (no extra round trip), for that transaction only; below
 * the lease's own idle limit (PgCoordination.ts), so the lock is gone by the time a
 * successor can raise.
 */
export const HELD_EPOCH_IDLE_LIMIT_MS = 2_000
