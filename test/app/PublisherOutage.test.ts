// The publisher while the tile sink's storage fails (src/app/Publisher.ts): a process that
// does not sequence looks for a newer checkpoint every window, and each look fails while
// the database is down. It says so once, however many looks fail; the error /healthz
// reports (tiles_not_written) ends by itself with the first look that works, also when the
// process took the lease meanwhile on an idle log (it used to wait for new leaves first,
// and reported the old failure until the next checkpoint).

import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FsKeptCheckpointLive } from "../../src/adapters/fs/FsKeptCheckpoint.js"
import { it } from "@effect/vitest"
import { Context, Effect, Layer, Ref, SubscriptionRef } from "effect"
import { afterAll, describe, expect } from "vitest"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryTileSinkLive } from "../../src/adapters/memory/MemoryTileSink.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogNotary } from "../../src/app/LogNotary.js"
import { LogReader } from "../../src/app/LogReader.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { Publisher } from "../../src/app/Publisher.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { Clock } from "../../src/ports/Clock.js"
import { Signer } from "../../src/ports/Signer.js"
import { StorageError } from "../../src/ports/StorageError.js"
import { TileSink } from "../../src/ports/TileSink.js"
import { logLines, withMessage } from "../support/logLines.js"
import { untilHolds } from "../support/poll.js"

const seed = nodeCrypto.sha256(new TextEncoder().encode("publisher outage test"))
const key = { publicKey: nodeCrypto.ed25519.publicKey(seed), sign: (message: Uint8Array) => Effect.sync(() => nodeCrypto.ed25519.sign(seed, message)) }
const CAUSE = "Failed to acquire connection: connect ECONNREFUSED 127.0.0.1:5432"


/** Where the publisher keeps its last checkpoint (ports/KeptCheckpoint.ts). */
const keptDir = mkdtempSync(join(tmpdir(), "aics-publisher-outage-"))
afterAll(() => rmSync(keptDir, { recursive: true, force: true }))

describe("the publisher while the tile sink fails", () => {
  it.scopedLive("says so once, and its error ends with the first look that works, also after taking the lease", () =>
    Effect.gen(function*() {
      const database = { down: false, reads: 0 }
      const sink = Layer.effect(TileSink, Effect.map(TileSink, (inner) => TileSink.of({
        ...inner,
        readCheckpoint: Effect.suspend(() => {
          database.reads++
          return database.down ? Effect.fail(new StorageError({ operation: "readCheckpoint", detail: CAUSE })) : inner.readCheckpoint
        })
      }))).pipe(Layer.provide(MemoryTileSinkLive))
      const leading = yield* SubscriptionRef.make(false)
      const settings = { origin: "publisher.test/aics", mmdSeconds: 1 } as unknown as ServiceSettings
      const { lines, layer: logged } = logLines()
      const context = yield* Layer.build(Publisher.layer.pipe(
        Layer.provideMerge(Layer.mergeAll(LogWriter.layer, LogNotary.layer, LogReader.layer)),
        Layer.provideMerge(Layer.mergeAll(
          MemoryLogStoreLive, sink, LogHealth.layer, FsKeptCheckpointLive(join(keptDir, "last-checkpoint")), Layer.succeed(NodeRole, { leading }), Layer.succeed(Signer, { log: key, policy: key }),
          ServiceConfig.layer(settings), Clock.system
        )),
        Layer.provideMerge(NodeCryptoLive)
      )).pipe(Effect.provide(logged))
      const health = Context.get(context, LogHealth)
      const publishError = Effect.map(Ref.get(health.publish), (p) => p.error)

      database.down = true
      yield* untilHolds("the failure reported", Effect.map(publishError, (error) => error !== undefined))
      expect(yield* publishError).toBe(`readCheckpoint: ${CAUSE}`)
      // Retried every second or so: still one line.
      const reads = database.reads
      yield* untilHolds("three more looks", Effect.sync(() => database.reads >= reads + 3))
      expect(withMessage(lines, "publishing failed")).toHaveLength(1)

      // The database is back, and this process sequences now; nothing new is written.
      yield* SubscriptionRef.set(leading, true)
      database.down = false
      yield* untilHolds("the failure no longer reported", Effect.map(publishError, (error) => error === undefined))
      expect(withMessage(lines, "publishing works again")).toHaveLength(1)
      expect(withMessage(lines, "publishing failed")).toHaveLength(1)
    }), 30_000)
})
