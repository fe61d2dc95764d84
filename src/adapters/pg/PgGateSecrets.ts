// Secret verifiers on PostgreSQL: one row per secret-bound name in aics_gate_secrets
// (migration 0008_gate_secrets), keyed by (name, claim_index). put is one
//   INSERT ... ON CONFLICT DO NOTHING
// so the first verifier of a pair stays, whichever node writes first; it answers whether a
// row was inserted. Durable when the statement's commit returns.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { GateSecrets } from "../../ports/GateSecrets.js"
import { storage } from "./pgValues.js"

export const PgGateSecretsLive: Layer.Layer<GateSecrets, never, SqlClient.SqlClient> = Layer.effect(
  GateSecrets,
  Effect.map(SqlClient.SqlClient, (sql) =>
    GateSecrets.of({
      put: (name, claimIndex, verifier) =>
        sql<{ name: string }>`INSERT INTO aics_gate_secrets (name, claim_index, verifier) VALUES (${name}, ${claimIndex}, ${verifier})
          ON CONFLICT (name, claim_index) DO NOTHING RETURNING name`.pipe(
          Effect.map((rows) => rows.length === 1),
          storage("put gate secret")
        ),
      get: (name, claimIndex) =>
        sql<{ verifier: string }>`SELECT verifier FROM aics_gate_secrets WHERE name = ${name} AND claim_index = ${claimIndex}`.pipe(
          Effect.map((rows) => rows[0]?.verifier),
          storage("get gate secret")
        ),
      remove: (name, claimIndex) =>
        sql`DELETE FROM aics_gate_secrets WHERE name = ${name} AND claim_index = ${claimIndex}`.pipe(
          Effect.asVoid,
          storage("remove gate secret")
        )
    }))
)
