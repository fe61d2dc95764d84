// The replay store on PostgreSQL: one row per (keyid, nonce) in aics_nonces, shared by
// every API process, so a request replayed to another node is refused too.
//
// remember(keyid, nonce, until, now) is one statement:
//   INSERT ... ON CONFLICT (keyid, nonce) DO UPDATE SET until = ... WHERE until < now
//   RETURNING 1
// It returns a row, and answers true, when the pair is new or its row has expired (it is
// then remembered again, until the new until); otherwise the row is kept and the answer is
// false. The primary key makes concurrent remembers of one pair, from any process, answer
// true exactly once: the losers wait for the winner's row, then find it unexpired.
// A pair is thus refused while now <= until and accepted again from until + 1 (whole
// seconds: until is rounded up and now down, which only ever keeps a pair longer).
//
// The table is UNLOGGED: a remember writes no WAL, so its commit waits for no disk flush
// (about 0.1 ms on a local server instead of one WAL flush per signed request; the port
// asks for no durability). A database crash empties the table, as a damaged nonces.db is
// replaced by an empty one on the filesystem (fs/FsNonceStore.ts), and that is as safe: a replayed write repeats a seq its
// key already used, which the sequencer refuses. Unlogged tables are not replicated
// either: after a failover to a standby the table is empty in the same way.
//
// Expired rows are deleted opportunistically: when `now` passes the next sweep time (once a
// minute), a background fiber deletes up to SWEEP_LIMIT of them, and sweeps again at the
// next call if it found that many. A sweep that falls due while another is still running
// runs right after it (else it would wait for a later call, which may never come). The
// remember that triggers it does not wait for it, and the answer never depends on it (an
// expired row is treated as absent anyway).

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { utf8 } from "../../domain/bytes.js"
import { NonceStore } from "../../ports/NonceStore.js"
import { storage } from "./pgValues.js"

const SWEEP_SECONDS = 60
const SWEEP_LIMIT = 10_000

export const PgNonceStoreLive: Layer.Layer<NonceStore, never, SqlClient.SqlClient> = Layer.scoped(
  NonceStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    let nextSweep = Number.NEGATIVE_INFINITY
    let sweeping = false
    /** The `now` of a sweep that fell due while another was running. */
    let due: number | undefined

    const sweep = (now: number): Effect.Effect<void> =>
      sql<{ n: string }>`WITH gone AS (
          DELETE FROM aics_nonces WHERE (keyid, nonce) IN (
            SELECT keyid, nonce FROM aics_nonces WHERE until < ${now} LIMIT ${SWEEP_LIMIT})
          RETURNING 1)
        SELECT count(*) AS n FROM gone`.pipe(
        Effect.map((rows) => {
          // A full sweep may have left more: sweep again at the next call.
          if (Number(rows[0]?.n ?? 0) >= SWEEP_LIMIT) nextSweep = now
        }),
        Effect.catchAll((error) => Effect.logWarning("nonce sweep failed", error)),
        Effect.ensuring(Effect.suspend(() => {
          sweeping = false
          const next = due
          due = undefined
          return next === undefined ? Effect.void : startSweep(next)
        }))
      )

    const startSweep = (now: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (now < nextSweep) return Effect.void
        if (sweeping) {
          due = now
          return Effect.void
        }
        sweeping = true
        nextSweep = now + SWEEP_SECONDS
        return Effect.asVoid(Effect.forkIn(sweep(now), scope))
      })

    const remember = (keyid: string, nonce: string, until: number, now: number) =>
      Effect.gen(function*() {
        const current = Math.floor(now)
        const kept = Math.max(Math.ceil(until), current)
        const rows = yield* sql`INSERT INTO aics_nonces AS n (keyid, nonce, until)
          VALUES (${utf8(keyid)}, ${utf8(nonce)}, ${kept})
          ON CONFLICT (keyid, nonce) DO UPDATE SET until = EXCLUDED.until WHERE n.until < ${current}
          RETURNING 1`
        yield* startSweep(current)
        return rows.length === 1
      }).pipe(storage("remember"))

    return NonceStore.of({ remember })
  })
)
