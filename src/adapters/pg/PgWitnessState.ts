// WitnessState on PostgreSQL: one row per witnessed log in aics_witness_state (migration
// 0013_witness_state). advance is one statement, so the compare-and-swap holds across every
// process on the database:
//   from size 0:  INSERT ... ON CONFLICT (origin) DO UPDATE ... WHERE size = 0
//   otherwise:    UPDATE ... WHERE origin = $1 AND size = $from
// and it answers whether a row was written. Durable when the statement's commit returns.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { WitnessState } from "../../ports/WitnessState.js"
import { storage, toBytes, toNumber } from "./pgValues.js"

export const PgWitnessStateLive: Layer.Layer<WitnessState, never, SqlClient.SqlClient> = Layer.effect(
  WitnessState,
  Effect.map(SqlClient.SqlClient, (sql) =>
    WitnessState.of({
      read: (origin) =>
        sql<{ size: unknown; root_hash: Uint8Array; note: Uint8Array }>`SELECT size, root_hash, note FROM aics_witness_state WHERE origin = ${origin}`.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            return row === undefined ? undefined : { size: toNumber(row.size), rootHash: toBytes(row.root_hash), note: toBytes(row.note) }
          }),
          storage("read witness state")
        ),
      advance: (origin, fromSize, next) =>
        (fromSize === 0
          ? sql<{ origin: string }>`INSERT INTO aics_witness_state (origin, size, root_hash, note)
              VALUES (${origin}, ${next.size}, ${Buffer.from(next.rootHash)}, ${Buffer.from(next.note)})
              ON CONFLICT (origin) DO UPDATE SET size = EXCLUDED.size, root_hash = EXCLUDED.root_hash, note = EXCLUDED.note, updated_at = now()
              WHERE aics_witness_state.size = 0 RETURNING origin`
          : sql<{ origin: string }>`UPDATE aics_witness_state
              SET size = ${next.size}, root_hash = ${Buffer.from(next.rootHash)}, note = ${Buffer.from(next.note)}, updated_at = now()
              WHERE origin = ${origin} AND size = ${fromSize} RETURNING origin`
        ).pipe(Effect.map((rows) => rows.length === 1), storage("advance witness state"))
    }))
)
