// Read cursors on PostgreSQL: one row per key in aics_read_cursors. advance is one upsert
// that only moves a cursor forward, even when several processes advance one key at once:
//   INSERT ... ON CONFLICT (kid) DO UPDATE SET idx = EXCLUDED.idx WHERE idx < EXCLUDED.idx
// (the same as SET idx = GREATEST(idx, EXCLUDED.idx), without writing a new row version
// when the cursor does not move). Durable when the statement's commit returns.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { ReadCursors } from "../../ports/ReadCursors.js"
import { storage, toNumber } from "./pgValues.js"

export const PgReadCursorsLive: Layer.Layer<ReadCursors, never, SqlClient.SqlClient> = Layer.effect(
  ReadCursors,
  Effect.map(SqlClient.SqlClient, (sql) =>
    ReadCursors.of({
      get: (kid) =>
        sql<{ idx: string }>`SELECT idx FROM aics_read_cursors WHERE kid = ${kid}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? -1 : toNumber(rows[0]!.idx))),
          storage("get read cursor")
        ),
      // A cursor starts at -1: a lower index moves nothing, as in the other adapters.
      advance: (kid, index) =>
        index <= -1 ? Effect.void : sql`INSERT INTO aics_read_cursors AS c (kid, idx) VALUES (${kid}, ${index})
          ON CONFLICT (kid) DO UPDATE SET idx = EXCLUDED.idx WHERE c.idx < EXCLUDED.idx`.pipe(
          Effect.asVoid,
          storage("advance read cursor")
        )
    }))
)
