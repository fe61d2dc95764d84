import { Effect, Layer } from "effect"
import { PgCoordinationLive } from "../../../src/adapters/pg/PgCoordination.js"
import { PgDatabaseLive } from "../../../src/adapters/pg/PgStorage.js"
import { coordinationContract } from "../../ports/Coordination.contract.js"
import { testDatabase } from "../../support/pg.js"

const db = testDatabase()

// Each build opens its own pools on the schema: a process of the deployment.
coordinationContract("PgCoordination", {
  fresh: (unclaimedTimeout) =>
    Effect.map(db.freshSchema, (url) =>
      PgCoordinationLive(url, { unclaimedTimeout }).pipe(Layer.provide(PgDatabaseLive(url, { maxConnections: db.maxConnections })))),
  severalProcesses: db.multiSession
})
