// How the PostgreSQL tests open a store: the adapter over its own pool on a schema, with
// the migrations run, as PgStorageLive does. Building the layer again after the last build
// was released opens a new pool on the same schema: the reopen of the contracts. The fences
// of the fenced writes come from PgCoordination's leases on the schema, as in service.

import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Redacted } from "effect"
import { migrations, MIGRATIONS_TABLE, runMigrations } from "../../../src/adapters/pg/migrations.js"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { PgCoordinationLive } from "../../../src/adapters/pg/PgCoordination.js"
import { PgDatabaseLive } from "../../../src/adapters/pg/PgStorage.js"
import { Coordination } from "../../../src/ports/Coordination.js"
import type { Crypto } from "../../../src/ports/Crypto.js"
import type { TestDatabase } from "../../support/pg.js"

export const openOn = <ROut>(
  db: TestDatabase,
  adapter: Layer.Layer<ROut, never, SqlClient.SqlClient | Crypto>,
  url: string
) => adapter.pipe(Layer.provideMerge(PgDatabaseLive(url, db.storageOptions)), Layer.provide(NodeCryptoLive))

/** The coordination of a node on the schema of `url`, over a pool of its own. */
export const coordinationOn = (db: TestDatabase, url: string) =>
  PgCoordinationLive(url).pipe(Layer.provide(PgDatabaseLive(url, db.storageOptions)))

/** Two nodes on the schema of `url`, each with a pool, the store of `adapter` and a coordination of its own. */
export const twoNodesOn = <I, S>(db: TestDatabase, tag: Context.Tag<I, S>, adapter: Layer.Layer<I, never, SqlClient.SqlClient | Crypto>, url: string) =>
  Effect.map(
    Effect.forEach([0, 1], () => Layer.build(Layer.merge(openOn(db, adapter, url), coordinationOn(db, url)))),
    (nodes) => nodes.map((node) => ({ store: Context.get(node, tag), coordination: Context.get(node, Coordination) }))
  )

/**
 * An upgrade: the schema of `url` migrated up to before `migration`, `fill` run on it (the
 * rows an earlier version left), then the rest of the migrations; answers the names of those.
 */
export const upgradeAcross = <E>(url: string, migration: string, fill: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, E>) => {
  const pool = PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
  const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < migration))
  return PgMigrator.run({ loader: PgMigrator.fromRecord(before), table: MIGRATIONS_TABLE }).pipe(
    Effect.provide(NodeContext.layer),
    Effect.zipRight(Effect.flatMap(SqlClient.SqlClient, fill)),
    Effect.zipRight(runMigrations),
    Effect.map((ran) => ran.map(([, name]) => name)),
    Effect.provide(pool)
  )
}
