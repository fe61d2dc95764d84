// How the PostgreSQL tests open a store: the adapter over its own pool on a schema, with
// the migrations run, as PgStorageLive does. Building the layer again after the last build
// was released opens a new pool on the same schema: the reopen of the contracts. The fences
// of the fenced writes come from PgCoordination's leases on the schema, as in service.

import type * as SqlClient from "@effect/sql/SqlClient"
import { Layer } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { PgCoordinationLive } from "../../../src/adapters/pg/PgCoordination.js"
import { PgDatabaseLive } from "../../../src/adapters/pg/PgStorage.js"
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
