// A maintenance command for the filesystem default: compacts the body store of a stopped
// service (src/adapters/fs/bodyCompact.ts), so that what retention removed (DM and capsule
// ciphertext past the charter's retention) leaves the disk. Retention's removals are
// records appended to `bodies/bodies`; the removed bytes stay in the file until it is
// rewritten, which the running service never does (a rewrite swaps the files under the
// open store). docs/operations.md "Reclaiming the disk retention freed".
//
//   AICS_DATA_DIR=./data node dist/src/compactBodies.js
//
// It takes the data directory's lock first (dataDirLock.ts), so it refuses to run beside a
// service on the same directory, and a service cannot start while it runs. A crash at any
// step leaves the store as it was or compacted, never between (bodyCompact.ts's steps).
// On PostgreSQL (AICS_DATABASE_URL) a removal deletes the row: there is nothing to compact.
// Exit status 0 when done (or nothing to do), 1 with one line saying why it could not.

import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Config, Console, Effect, Layer } from "effect"
import { compactBodyStore } from "./adapters/fs/bodyCompact.js"
import { BODIES_FILE } from "./adapters/fs/bodyLayout.js"
import { DataDirLockLive } from "./adapters/fs/dataDirLock.js"
import { NodeCryptoLive } from "./adapters/crypto/nodeCrypto.js"
import { environmentProvider } from "./adapters/os/environment.js"
import { failureLine } from "./adapters/os/startupLine.js"
import { StorageError } from "./ports/StorageError.js"

const size = (bytes: number) => bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

const program = Effect.gen(function*() {
  if ((yield* Config.option(Config.nonEmptyString("AICS_DATABASE_URL")))._tag === "Some") {
    return yield* Console.log("aics compact-bodies: AICS_DATABASE_URL is set: PostgreSQL deletes a removed body's row, nothing to compact")
  }
  // The same setting and default as the service's (ServiceConfig.ts).
  const dataDir = yield* Config.withDefault(Config.nonEmptyString("AICS_DATA_DIR"), "./data")
  const directory = join(dataDir, "bodies")
  // A mistyped AICS_DATA_DIR must not become a new, empty store "with nothing to reclaim".
  if (!existsSync(join(directory, BODIES_FILE))) {
    return yield* Effect.fail(new StorageError({ operation: "compact", detail: `${directory} holds no body store (${BODIES_FILE}): check AICS_DATA_DIR` }))
  }
  yield* Console.log(`aics compact-bodies: compacting ${directory} (every record is read and verified)`)
  const started = performance.now()
  const result = yield* Effect.provide(compactBodyStore(directory), Layer.merge(NodeCryptoLive, DataDirLockLive(dataDir)))
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  yield* Console.log(result.dropped === 0
    ? `aics compact-bodies: nothing to reclaim: ${result.bodies} bodies, ${size(result.bytesBefore)} (${seconds} s)`
    : `aics compact-bodies: kept ${result.bodies} bodies, dropped ${result.dropped} records: ${size(result.bytesBefore)} -> ${size(result.bytesAfter)} (${seconds} s)`)
}).pipe(
  Effect.tapErrorCause((cause) => Console.error(failureLine("aics compact-bodies: could not compact:", cause)))
)

NodeRuntime.runMain(Effect.withConfigProvider(program, environmentProvider()), { disableErrorReporting: true, disablePrettyLogger: true })
