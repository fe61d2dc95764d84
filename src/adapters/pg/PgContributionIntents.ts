// Contribution intents on PostgreSQL (docs/protocol.md 14.1): one row per intent in
// aics_intents, shared by every node, so an intent made on one node is claimed on any other.
//
// reserve is one transaction that first takes pg_advisory_xact_lock on the intent's network
// (in this schema), then checks and inserts: reserves of one network, from any node, run
// one at a time, so two intents that can receive a transfer at once never get the same
// units, and the MAX_OPEN_INTENTS cap of a (name, network) holds across nodes. Reserves of
// other networks do not wait. The checks are the memory adapter's, in its order: the id
// (the INSERT's ON CONFLICT catches an id taken on another network meanwhile), the cap,
// then the units. "Can receive a transfer at now" is receivesTransfers
// (domain/sup/contributions.ts), now <= expires, written here as `expires >= now` so that
// the indexes (network, name|units, expires) answer it.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { MAX_OPEN_INTENTS, type ContributionIntent } from "../../domain/sup/contributions.js"
import { ContributionIntents, type Reservation } from "../../ports/ContributionIntents.js"
import { storage, toNumber, transact } from "./pgValues.js"

export const PgContributionIntentsLive: Layer.Layer<ContributionIntents, never, SqlClient.SqlClient> = Layer.effect(
  ContributionIntents,
  Effect.map(SqlClient.SqlClient, (sql) =>
    ContributionIntents.of({
      reserve: (intent, now) =>
        transact(sql, "reserve contribution intent", Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ' aics_intents ' || ${intent.network}))`
          const taken = yield* sql`SELECT 1 FROM aics_intents WHERE intent_id = ${intent.intentId}`
          if (taken.length > 0) return "taken" as Reservation
          // Only a named intent counts towards the cap; one with no name is stored with name ''.
          if (intent.name !== null) {
            const open = yield* sql<{ n: string }>`SELECT count(*) AS n FROM aics_intents
              WHERE network = ${intent.network} AND name = ${intent.name} AND expires >= ${now}`
            if (toNumber(open[0]?.n ?? 0) >= MAX_OPEN_INTENTS) return "too_many"
          }
          const holder = yield* sql`SELECT 1 FROM aics_intents
            WHERE network = ${intent.network} AND units = ${intent.units} AND expires >= ${now} LIMIT 1`
          if (holder.length > 0) return "taken"
          const inserted = yield* sql`INSERT INTO aics_intents (intent_id, network, name, units, expires, intent)
            VALUES (${intent.intentId}, ${intent.network}, ${intent.name ?? ""}, ${intent.units}, ${intent.expires},
              ${JSON.stringify(intent)}::jsonb)
            ON CONFLICT (intent_id) DO NOTHING RETURNING 1`
          return inserted.length === 1 ? "reserved" : "taken"
        })),
      get: (intentId) =>
        sql<{ intent: ContributionIntent; credit_index: string | null }>`SELECT intent, credit_index FROM aics_intents
          WHERE intent_id = ${intentId}`.pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row) => ({
              intent: row.intent,
              creditIndex: row.credit_index === null ? null : toNumber(row.credit_index)
            }))),
          storage("get contribution intent")
        ),
      credited: (intentId, index) =>
        sql`UPDATE aics_intents SET credit_index = ${index} WHERE intent_id = ${intentId}`.pipe(
          Effect.asVoid,
          storage("record contribution credit")
        )
    }))
)
