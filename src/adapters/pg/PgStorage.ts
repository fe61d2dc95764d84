// The storage ports on PostgreSQL, for a deployment that outgrows one machine: the log,
// bodies, nonce replay store, read cursors and the off-log stores (notice register,
// contribution intents, request statistics) of every API process live in one database
// (AICS_DATABASE_URL), reached through one @effect/sql-pg pool per process.
//
// PgStorageLive(url) opens the pool (its first query proves the server is reachable), runs
// the migrations (migrations.ts; idempotent, and safe when several processes start at
// once), warns when synchronous_commit is off (a commit would then return before the WAL
// flush, and an acknowledged append could be lost in a server crash), and only then
// provides the ports. The pool closes when the layer's scope closes.
//
// The pool's statements are not bounded in time (migrations and large reads may take long);
// a database that stops answering is found by a watch on a connection of its own, which then
// cuts the pool's connections (storageWatch.ts). It starts before the migrations, so they
// do not hang on a silent database either. (Not on a single-session embedded server: see
// PgStorageOptions.storageWatch.) The database's distance is measured on the pool once it
// is open, provided with it for the coordination's bounds, and kept current by the watch
// (databaseDistance.ts).

import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import type { BodyStore } from "../../ports/BodyStore.js"
import type { Crypto } from "../../ports/Crypto.js"
import type { LogStore } from "../../ports/LogStore.js"
import type { NonceStore } from "../../ports/NonceStore.js"
import type { ContributionIntents } from "../../ports/ContributionIntents.js"
import type { NoticeRegister } from "../../ports/NoticeRegister.js"
import type { ReadCursors } from "../../ports/ReadCursors.js"
import type { GateSecrets } from "../../ports/GateSecrets.js"
import type { StatsStore } from "../../ports/StatsStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { DatabaseDistance, DatabaseDistanceLive } from "./databaseDistance.js"
import { runMigrations } from "./migrations.js"
import { ownSockets } from "./ownSockets.js"
import { PgBodyStoreLive } from "./PgBodyStore.js"
import { PgContributionIntentsLive } from "./PgContributionIntents.js"
import { PgLogStoreLive } from "./PgLogStore.js"
import { PgNonceStoreLive } from "./PgNonceStore.js"
import { PgNoticeRegisterLive } from "./PgNoticeRegister.js"
import { PgReadCursorsLive } from "./PgReadCursors.js"
import { PgGateSecretsLive } from "./PgGateSecrets.js"
import { PgStatsStoreLive } from "./PgStatsStore.js"
import { storage, unreachable } from "./pgValues.js"
import { cutWhenSilent } from "./storageWatch.js"

export interface PgStorageOptions {
  /**
   * Connections in this process's pool (default 10). Appends are serialized by the
   * database whatever the size; reads and other writes use the rest. 1 for PGlite.
   */
  readonly maxConnections?: number
  /**
   * Whether the storage watch runs (storageWatch.ts; default true): false only for a
   * single-session embedded server, PGlite served by pglite-socket (the tests' database
   * without AICS_TEST_DATABASE_URL, test/support/pg.ts). Every connection there shares one
   * session, whose queue runs nothing else while a transaction is open, so the watch's
   * SELECT 1 waits behind any transaction of the pool (the migrations run in one): one
   * longer than the watch's bound would be cut as a database gone silent. The service
   * never sets it (PgServiceStores.ts): a real server always has the watch.
   */
  readonly storageWatch?: boolean
}

export const DEFAULT_MAX_CONNECTIONS = 10

const warnUnlessSynchronous = Effect.flatMap(PgClient.PgClient, (sql) =>
  sql<{ setting: string }>`SELECT current_setting('synchronous_commit') AS setting`.pipe(
    Effect.flatMap((rows) =>
      rows[0]?.setting === "off"
        ? Effect.logWarning("synchronous_commit is off: a committed append may be lost if the database server crashes")
        : Effect.void
    ),
    storage("open")
  ))

/** The pool, with the migrations run, and the database's distance: what the adapters below need. */
export const PgDatabaseLive = (
  url: string | Redacted.Redacted<string>,
  options: PgStorageOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DatabaseDistance, StorageError> => {
  const redacted = typeof url === "string" ? Redacted.make(url) : url
  // The pool's sockets, made per build, for the watch to cut.
  return Layer.unwrapEffect(Effect.sync(() => {
    const sockets = ownSockets()
    const watch = options.storageWatch === false ? Effect.void : cutWhenSilent(redacted, sockets)
    return Layer.scopedDiscard(Effect.zipRight(watch, Effect.zipRight(warnUnlessSynchronous, runMigrations))).pipe(
      Layer.provideMerge(DatabaseDistanceLive),
      Layer.provideMerge(PgClient.layer({
        url: redacted,
        maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        applicationName: "aics",
        stream: sockets.stream
      }).pipe(Layer.mapError(unreachable("open", redacted))))
    )
  }))
}

/** The storage ports that live in the database. */
export type PgStores = LogStore | BodyStore | NonceStore | ReadCursors | NoticeRegister | ContributionIntents | StatsStore | GateSecrets

/** The storage adapters over a pool already provided (and migrated). */
export const PgStoresLive: Layer.Layer<PgStores, never, SqlClient.SqlClient | Crypto> = Layer.mergeAll(
  PgLogStoreLive,
  PgBodyStoreLive,
  PgNonceStoreLive,
  PgReadCursorsLive,
  PgNoticeRegisterLive,
  PgContributionIntentsLive,
  PgStatsStoreLive,
  PgGateSecretsLive
)

/** Every storage port on the database at `url`: one pool, migrations run first. */
export const PgStorageLive = (
  url: string | Redacted.Redacted<string>,
  options: PgStorageOptions = {}
): Layer.Layer<PgStores, StorageError, Crypto> =>
  PgStoresLive.pipe(Layer.provide(PgDatabaseLive(url, options)))
