// One node of a deployment on PostgreSQL, for the app tests that play several nodes over one
// schema (docs/protocol.md section 14): a pool, the log and body stores, and a coordination
// of its own, over its own clock. A test may put a store of its own in front of either one,
// to hold a node at a chosen point (retentionDeposedHolder, appendDeposedHolder).

import type * as SqlClient from "@effect/sql/SqlClient"
import { Layer } from "effect"
import type { ManualClock } from "../../src/adapters/clock/TestClock.js"
import { PgBodyStoreLive } from "../../src/adapters/pg/PgBodyStore.js"
import { PgCoordinationLive } from "../../src/adapters/pg/PgCoordination.js"
import { PgLogStoreLive } from "../../src/adapters/pg/PgLogStore.js"
import { PgProjectionStoreLive } from "../../src/adapters/pg/PgProjectionStore.js"
import { PgDatabaseLive } from "../../src/adapters/pg/PgStorage.js"
import type { BodyStore } from "../../src/ports/BodyStore.js"
import type { Crypto } from "../../src/ports/Crypto.js"
import type { LogStore } from "../../src/ports/LogStore.js"
import { processBasics } from "./bodyServices.js"
import type { TestDatabase } from "./pg.js"

export interface NodeStores {
  readonly log?: Layer.Layer<LogStore, never, SqlClient.SqlClient | Crypto>
  readonly bodies?: Layer.Layer<BodyStore, never, SqlClient.SqlClient | Crypto>
}

/** One node's stores on the schema of `url`; the PostgreSQL adapters unless `stores` names others. */
export const pgNodeStores = (db: TestDatabase, url: string, clock: ManualClock, stores: NodeStores = {}) =>
  Layer.mergeAll(stores.log ?? PgLogStoreLive, stores.bodies ?? PgBodyStoreLive, PgCoordinationLive(url), PgProjectionStoreLive).pipe(
    Layer.provideMerge(PgDatabaseLive(url, db.storageOptions)),
    Layer.provideMerge(processBasics(clock))
  )
