// How the PostgreSQL tests open a store: the adapter over its own pool on a schema, with
// the migrations run, as PgStorageLive does. Building the layer again after the last build
// was released opens a new pool on the same schema: the reopen of the contracts. The fences
// of the fenced writes come from PgCoordination's leases on the schema, as in service.

import type * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
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
) => adapter.pipe(Layer.provideMerge(PgDatabaseLive(url, { maxConnections: db.maxConnections })), Layer.provide(NodeCryptoLive))

/** The coordination of a node on the schema of `url`, over a pool of its own. */
export const coordinationOn = (db: TestDatabase, url: string) =>
  PgCoordinationLive(url).pipe(Layer.provide(PgDatabaseLive(url, { maxConnections: db.maxConnections })))

/** Two nodes on the schema of `url`, each with a pool, the store of `adapter` and a coordination of its own. */
export const twoNodesOn = <I, S>(db: TestDatabase, tag: Context.Tag<I, S>, adapter: Layer.Layer<I, never, SqlClient.SqlClient | Crypto>, url: string) =>
  Effect.map(
    Effect.forEach([0, 1], () => Layer.build(Layer.merge(openOn(db, adapter, url), coordinationOn(db, url)))),
    (nodes) => nodes.map((node) => ({ store: Context.get(node, tag), coordination: Context.get(node, Coordination) }))
  )
