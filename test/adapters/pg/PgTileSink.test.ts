import { Effect } from "effect"
import { PgTileSinkLive } from "../../../src/adapters/pg/PgTileSink.js"
import { tileSinkContract } from "../../ports/TileSink.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()

tileSinkContract("PgTileSink", { fresh: Effect.map(db.freshSchema, (url) => openOn(db, PgTileSinkLive, url)), durable: true })
