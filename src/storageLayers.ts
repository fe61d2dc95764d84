// The composition root's storage and platform (src/main.ts): which adapter serves each
// storage port, chosen by the settings, and the platform services (clock, crypto, entropy).
// A module of its own so that a benchmark driving the real sequencer in process
// (bench/trafficGenerate.ts) writes exactly what the service would, to the same stores.

import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { NodeCryptoLive } from "./adapters/crypto/nodeCrypto.js"
import { NodeEntropyLive } from "./adapters/crypto/nodeEntropy.js"
import { NodeScryptLive } from "./adapters/crypto/nodeScrypt.js"
import { FsGateSecretsLive } from "./adapters/fs/FsGateSecrets.js"
import { FsBodyStoreLive } from "./adapters/fs/FsBodyStore.js"
import { DataDirLockLive } from "./adapters/fs/dataDirLock.js"
import { FsLogStoreLive } from "./adapters/fs/FsLogStore.js"
import { FsContributionIntentsLive } from "./adapters/fs/FsContributionIntents.js"
import { FsNoticeRegisterLive } from "./adapters/fs/FsNoticeRegister.js"
import { FsReadCursorsLive } from "./adapters/fs/FsReadCursors.js"
import { FsStatsStoreLive } from "./adapters/fs/FsStatsStore.js"
import { FsTileSinkLive } from "./adapters/fs/FsTileSink.js"
import { NetworkOraclesLive } from "./adapters/chain/NetworkOracles.js"
import { SqliteProjectionStoreLive } from "./adapters/sqlite/SqliteProjectionStore.js"
import { MemoryCoordinationLive } from "./adapters/memory/MemoryCoordination.js"
import { FsHostMetricsLive } from "./adapters/os/NodeHostMetrics.js"
import { FsNonceStoreLive } from "./adapters/fs/FsNonceStore.js"
import { FileKeysLive } from "./adapters/keys/FileKeys.js"
import { StreamConfig } from "./app/StreamConfig.js"
import { Clock } from "./ports/Clock.js"
import { FsCosignaturesLive } from "./adapters/fs/FsCosignatures.js"
import { FsKeptCheckpointLive } from "./adapters/fs/FsKeptCheckpoint.js"
import { FsWitnessStateLive } from "./adapters/fs/FsWitnessState.js"
import { FetchWitnessTransportLive } from "./adapters/http/fetchWitnessTransport.js"
import { LogCreationStatus } from "./app/LogCreation.js"
import { ReplayStoreHealth } from "./app/ReplayStoreHealth.js"
import { logLocation, ServiceConfig } from "./app/ServiceConfig.js"

// ServiceConfig is provided by whoever builds these (main.ts's program: the settings are
// read once, and checked before anything is built).
export const Platform = Layer.mergeAll(Clock.system, NodeCryptoLive, NodeEntropyLive, NodeScryptLive, StreamConfig.fromEnv)

// PostgreSQL when AICS_DATABASE_URL is set: the log, bodies, nonces, cursors, tiles, the
// off-log stores (notice register, contribution intents, request statistics) and the
// coordination of several processes on one pool, so every node serves every route. Else
// the filesystem under AICS_DATA_DIR, one process. The service's keys stay files under
// AICS_DATA_DIR either way; the chain oracle asks each network's EVM nodes itself (rpc in
// AICS_SUP_NETWORKS) or reads the operator's watcher's file (AICS_SUP_LEDGER), which every
// node reads (docs/operations.md).
//
// In two parts, so that a start the charter check refuses (src/main.ts: leaf 0 of another
// origin, of other keys) leaves the data folder as it found it: CharterStorage is what that
// check reads (the log, its bodies, the coordination, whether this start creates the log, and
// the keys: made only by the start that creates it), and StorageAfterCharter, every store that
// would create its files at open (state.db, nonces, cursors, tiles, ...), is opened only once
// the check has passed.

/** The PostgreSQL adapters, loaded on first use: a start on the filesystem never loads the pg driver. */
const postgres = Effect.promise(() => import("./adapters/pg/PgServiceStores.js"))

/** The log, its bodies and the coordination, whether this start creates the log, then the keys: what the charter check reads. */
export const CharterStorage = Layer.unwrapEffect(Effect.map(ServiceConfig, (config) => {
  const stores = config.databaseUrl === undefined
    // Every store opens after the data directory's lock is taken (dataDirLock.ts), the
    // stores of StorageAfterCharter too: the lock is held for as long as this layer is.
    ? Layer.mergeAll(
      FsLogStoreLive(join(config.dataDir, "log")),
      FsBodyStoreLive(join(config.dataDir, "bodies")),
      MemoryCoordinationLive()
    ).pipe(Layer.provide(DataDirLockLive(config.dataDir)))
    // The pool (migrations run first) stays in the context: StorageAfterCharter's tables are on
    // it. The pg driver and its adapters load only here (PgServiceStores.ts).
    : Layer.unwrapEffect(Effect.map(postgres, (pg) => pg.PgCharterStoresLive({ databaseUrl: config.databaseUrl!, databasePool: config.databasePool })))
  // The keys once it is settled whether this start creates the log (LogCreation.ts: on an empty
  // log it waits for the lease or for another node's leaf 0): a log that has leaf 0 gets no new
  // key, its owner is the one leaf 0 names (FileKeys.ts).
  const keys = FileKeysLive({
    dataDir: config.dataDir, ownerKid: config.ownerKid, logName: logLocation(config), sharedLog: config.databaseUrl !== undefined
  })
  return keys.pipe(Layer.provideMerge(LogCreationStatus.layer), Layer.provideMerge(stores))
}))

/** The database CharterStorage opened: present exactly when AICS_DATABASE_URL is set. */
const openedDatabase = Effect.flatMap(Effect.serviceOption(SqlClient.SqlClient), Option.match({
  onNone: () => Effect.dieMessage("the PostgreSQL stores are opened after CharterStorage, which opens their database"),
  onSome: (sql) => Effect.succeed(Layer.succeed(SqlClient.SqlClient, sql))
}))

/**
 * Every other store, the witnesses' transport and the chain oracle: built on CharterStorage
 * once the charter check has passed (src/main.ts), so a start it refuses makes none of their
 * files.
 */
export const StorageAfterCharter = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServiceConfig
  const stores = config.databaseUrl === undefined
    ? Layer.mergeAll(
      FsNonceStoreLive(join(config.dataDir, "nonces")),
      FsReadCursorsLive(join(config.dataDir, "cursors")),
      FsTileSinkLive(join(config.dataDir, "tiles")),
      FsNoticeRegisterLive(join(config.dataDir, "notices")),
      FsStatsStoreLive(join(config.dataDir, "stats")),
      FsContributionIntentsLive(join(config.dataDir, "contributions")),
      FsHostMetricsLive(config.dataDir),
      FsGateSecretsLive(join(config.dataDir, "gate-secrets")),
      FsWitnessStateLive(join(config.dataDir, "witness")),
      FsCosignaturesLive(join(config.dataDir, "cosignatures.json"), join(config.dataDir, "witness-alarms.json")),
      SqliteProjectionStoreLive(join(config.dataDir, "state.db"))
    )
    : (yield* postgres).PgStoresAfterCharterLive(config.dataDir, yield* openedDatabase)
  // The last checkpoint the node published or adopted, kept in its own data folder on either
  // storage: on PostgreSQL the only copy outside the database (ports/KeptCheckpoint.ts).
  const kept = FsKeptCheckpointLive(join(config.dataDir, "last-checkpoint"))
  // The replay store watched, for /healthz: ReplayStoreHealth provides it again over the one of `stores`.
  return Layer.mergeAll(ReplayStoreHealth.layer, kept, FetchWitnessTransportLive, NetworkOraclesLive(config.contributions)).pipe(
    Layer.provideMerge(stores)
  )
}))

/** The whole storage at once, in its order: for a program that checks no charter between (bench/trafficGenerate.ts). */
export const Storage = StorageAfterCharter.pipe(Layer.provideMerge(CharterStorage))
