// The owner's request statistics on PostgreSQL (docs/protocol.md 14.1): one row per
// counter in aics_request_stats, shared by every node. Each node adds its own counts
// (app/RequestStats.ts), so the rows are the sum over nodes and no node overwrites
// another's.
//
// add is one transaction: the dropped counters are deleted, then the increments upserted
// (INSERT ... ON CONFLICT DO UPDATE SET count = count + EXCLUDED.count). It first takes a
// transaction advisory lock for the table: adds are rare (a node adds once a minute), and
// serializing them keeps two nodes' upserts, which lock rows in their own orders, from
// deadlocking. The counters travel as one JSON parameter, whatever their number.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { StatsStore } from "../../ports/StatsStore.js"
import { storage, toNumber, transact } from "./pgValues.js"

export const PgStatsStoreLive: Layer.Layer<StatsStore, never, SqlClient.SqlClient> = Layer.effect(
  StatsStore,
  Effect.map(SqlClient.SqlClient, (sql) =>
    StatsStore.of({
      load: sql<{ key: string; count: string }>`SELECT key, count FROM aics_request_stats ORDER BY key`.pipe(
        Effect.map((rows) => rows.map((row) => [row.key, toNumber(row.count)] as const)),
        storage("read request statistics")
      ),
      add: (increments, drop) =>
        transact(sql, "add request statistics", Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ' aics_request_stats'))`
          if (drop.length > 0) {
            yield* sql`DELETE FROM aics_request_stats
              WHERE key IN (SELECT jsonb_array_elements_text(${JSON.stringify(drop)}::jsonb))`
          }
          if (increments.length > 0) {
            yield* sql`INSERT INTO aics_request_stats AS s (key, count)
              SELECT e->>0, sum((e->>1)::bigint) FROM jsonb_array_elements(${JSON.stringify(increments)}::jsonb) AS e GROUP BY 1
              ON CONFLICT (key) DO UPDATE SET count = s.count + EXCLUDED.count`
          }
        }))
    }))
)
