import { Effect } from "effect"
import { PgProjectionStoreLive } from "../../../src/adapters/pg/PgProjectionStore.js"
import { projectionStoreContract } from "../../ports/ProjectionStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()

projectionStoreContract("PgProjectionStore", { fresh: Effect.map(db.freshSchema, (url) => openOn(db, PgProjectionStoreLive, url)) })
