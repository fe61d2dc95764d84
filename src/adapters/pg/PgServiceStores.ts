// The service's stores on PostgreSQL (AICS_DATABASE_URL), as storageLayers.ts composes them, in
// its two parts: a module of its own so that a start on the filesystem, which never opens a
// database, does not load the pg driver, @effect/sql-pg and these adapters (storageLayers.ts
// imports it only when AICS_DATABASE_URL is set; bench/README.md "Session 27").

import type { Redacted } from "effect"
import { Layer } from "effect"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgBodyStoreLive } from "./PgBodyStore.js"
import { PgContributionIntentsLive } from "./PgContributionIntents.js"
import { PgCoordinationLive } from "./PgCoordination.js"
import { PgCosignaturesLive } from "./PgCosignatures.js"
import { PgGateSecretsLive } from "./PgGateSecrets.js"
import { PgHostMetricsLive } from "./PgHostMetrics.js"
import { PgLogStoreLive } from "./PgLogStore.js"
import { PgNonceStoreLive } from "./PgNonceStore.js"
import { PgNoticeRegisterLive } from "./PgNoticeRegister.js"
import { PgProjectionStoreLive } from "./PgProjectionStore.js"
import { PgReadCursorsLive } from "./PgReadCursors.js"
import { PgStatsStoreLive } from "./PgStatsStore.js"
import { PgDatabaseLive } from "./PgStorage.js"
import { PgTileSinkLive } from "./PgTileSink.js"
import { PgWitnessStateLive } from "./PgWitnessState.js"

/** The log, its bodies and the coordination, with the pool (migrations run first) kept in the context for the rest. */
export const PgCharterStoresLive = (config: { readonly databaseUrl: Redacted.Redacted<string>; readonly databasePool: number }) =>
  Layer.mergeAll(PgLogStoreLive, PgBodyStoreLive, PgCoordinationLive(config.databaseUrl)).pipe(
    Layer.provideMerge(PgDatabaseLive(config.databaseUrl, { maxConnections: config.databasePool }))
  )

/** Every other store, on the pool PgCharterStoresLive opened. */
export const PgStoresAfterCharterLive = (dataDir: string, database: Layer.Layer<SqlClient.SqlClient>) =>
  Layer.mergeAll(PgNonceStoreLive, PgReadCursorsLive, PgNoticeRegisterLive, PgContributionIntentsLive, PgStatsStoreLive, PgGateSecretsLive,
    PgTileSinkLive, PgHostMetricsLive(dataDir), PgWitnessStateLive, PgCosignaturesLive, PgProjectionStoreLive).pipe(
    Layer.provide(database)
  )
