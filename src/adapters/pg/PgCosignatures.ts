// Cosignatures on PostgreSQL: the latest cosignature per witness in aics_cosignatures
// (migration 0014_cosignatures), one upsert that keeps the larger size, so every node
// serving the log serves the same lines whichever node collected them; and the witnesses'
// another-history alarms in aics_witness_alarms (migration 0022_witness_alarms; the size
// the witness cosigned, when above the log's, since 0023_witness_alarm_size; the tree of
// this log the witness refused, since 0024_witness_alarm_refused_tree), so every
// node's /healthz reports an alarm the sequencing node raised, every node finds the log
// diverged when the alarm proves it went back or forked, and a node that takes the lease over keeps
// both until the witness cosigns again.

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
      ),
      // raised_at is left as first written: the alarm's age is how long the incident has
      // lasted, whichever node raised it again since. witness_size only grows (GREATEST
      // ignores a NULL): a later raise of another kind does not take back the proof that the
      // log went back. The refused tree is the latest raise's that names one (a raise
      // without one keeps it). An unchanged alarm updates nothing (the collector raises again
      // at each refusal, every backoff).
      raiseAlarm: (a) =>
        sql`INSERT INTO aics_witness_alarms (witness, detail, raised_at, witness_size, refused_size, refused_root)
          VALUES (${a.witness}, ${a.detail}, ${a.raisedAt}, ${a.witnessSize ?? null}, ${a.refusedTree?.size ?? null}, ${a.refusedTree?.root ?? null})
          ON CONFLICT (witness) DO UPDATE SET detail = EXCLUDED.detail,
            witness_size = GREATEST(aics_witness_alarms.witness_size, EXCLUDED.witness_size),
            refused_size = COALESCE(EXCLUDED.refused_size, aics_witness_alarms.refused_size),
            refused_root = COALESCE(EXCLUDED.refused_root, aics_witness_alarms.refused_root)
          WHERE aics_witness_alarms.detail IS DISTINCT FROM EXCLUDED.detail
            OR GREATEST(aics_witness_alarms.witness_size, EXCLUDED.witness_size) IS DISTINCT FROM aics_witness_alarms.witness_size
            OR (EXCLUDED.refused_size IS NOT NULL AND (EXCLUDED.refused_size, EXCLUDED.refused_root)
              IS DISTINCT FROM (aics_witness_alarms.refused_size, aics_witness_alarms.refused_root))`.pipe(
          Effect.asVoid, storage("raise witness alarm")),
      clearAlarm: (witness) =>
        sql`DELETE FROM aics_witness_alarms WHERE witness = ${witness}`.pipe(Effect.asVoid, storage("clear witness alarm")),
      alarms: sql<{ witness: string; detail: string; raised_at: unknown; witness_size: unknown; refused_size: unknown; refused_root: string | null }>`SELECT witness, detail, raised_at, witness_size, refused_size, refused_root FROM aics_witness_alarms`.pipe(
        Effect.map((rows) => rows.map((r) => ({
          witness: r.witness, detail: r.detail, raisedAt: toNumber(r.raised_at),
          ...(r.witness_size === null ? {} : { witnessSize: toNumber(r.witness_size) }),
          ...(r.refused_size === null || r.refused_root === null ? {} : { refusedTree: { size: toNumber(r.refused_size), root: r.refused_root } })
        }))),
        storage("list witness alarms")
      )
    }))
)
