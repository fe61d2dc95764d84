// HostMetrics with PostgreSQL storage: the Node measurements (adapters/os/NodeHostMetrics.ts)
// with `databaseBytes` the database's size as the server counts it (pg_database_size), since
// the log, bodies, tiles and stores live there; null while the database does not answer (a
// measurement that times out keeps the last size).

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { HostMetrics } from "../../ports/HostMetrics.js"
import { makeNodeHostMetrics } from "../os/NodeHostMetrics.js"
import { toNumber } from "./pgValues.js"

export const PgHostMetricsLive = (dataDir: string): Layer.Layer<HostMetrics, never, SqlClient.SqlClient> =>
  Layer.scoped(HostMetrics, Effect.flatMap(SqlClient.SqlClient, (sql) =>
    makeNodeHostMetrics({
      dataDir,
      databaseBytes: sql<{ bytes: string }>`SELECT pg_database_size(current_database()) AS bytes`.pipe(
        Effect.map((rows) => toNumber(rows[0]!.bytes)),
        Effect.orElseSucceed(() => null)
      )
    })))
