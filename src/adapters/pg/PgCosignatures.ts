// Cosignatures on PostgreSQL: the latest cosignature per witness in aics_cosignatures
// (migration 0014_cosignatures), one upsert that keeps the larger size, so every node
// serving the log serves the same lines whichever node collected them.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { Cosignatures } from "../../ports/Cosignatures.js"
import { storage, toNumber } from "./pgValues.js"

export const PgCosignaturesLive: Layer.Layer<Cosignatures, never, SqlClient.SqlClient> = Layer.effect(
  Cosignatures,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Cosignatures.of({
      record: (c) =>
        sql`INSERT INTO aics_cosignatures (witness, size, line, cosigned_at) VALUES (${c.witness}, ${c.size}, ${c.line}, ${c.timestamp})
          ON CONFLICT (witness) DO UPDATE SET size = EXCLUDED.size, line = EXCLUDED.line, cosigned_at = EXCLUDED.cosigned_at
          WHERE aics_cosignatures.size <= EXCLUDED.size`.pipe(Effect.asVoid, storage("record cosignature")),
      list: sql<{ witness: string; size: unknown; line: string; cosigned_at: unknown }>`SELECT witness, size, line, cosigned_at FROM aics_cosignatures`.pipe(
        Effect.map((rows) => rows.map((r) => ({ witness: r.witness, size: toNumber(r.size), line: r.line, timestamp: toNumber(r.cosigned_at) }))),
        storage("list cosignatures")
      )
    }))
)
