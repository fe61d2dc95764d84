// The checkpoint a node keeps in its own data folder (ports/KeptCheckpoint.ts, kept by
// app/Publisher.ts): each checkpoint the node publishes is written there, and a start on a
// log that holds fewer leaves than the kept checkpoint, or another tree at its size (a
// database restored from a dump older than what was published), finds the log diverged:
// it names both sizes, publishes and signs nothing, and leaves the kept checkpoint as it
// was, as evidence. A kept file that is not a checkpoint of this log is reported as damage
// and replaced by the next checkpoint. Each "node" here is a Publisher over a memory log
// of its own (the database), with the real file adapter in a temporary folder (its data
// folder), which a second node reopens as a restart would.

import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, SubscriptionRef } from "effect"
import { describe, expect } from "vitest"
import { NodeCryptoLive, nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { FsKeptCheckpointLive } from "../../src/adapters/fs/FsKeptCheckpoint.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryTileSinkLive } from "../../src/adapters/memory/MemoryTileSink.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogNotary } from "../../src/app/LogNotary.js"
import { LogReader } from "../../src/app/LogReader.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { Publisher } from "../../src/app/Publisher.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { damageFound } from "../../src/app/StartupDamage.js"
import { utf8 } from "../../src/domain/bytes.js"
import { Clock } from "../../src/ports/Clock.js"
import { Coordination } from "../../src/ports/Coordination.js"
import { Signer } from "../../src/ports/Signer.js"
import { TileSink } from "../../src/ports/TileSink.js"
import { tempDir } from "../adapters/fs/tempDir.js"

const ORIGIN = "kept.test/aics"
const settings: ServiceSettings = {
  dataDir: "/nonexistent", host: "127.0.0.1", port: 0, domain: "kept.test", origin: ORIGIN,
  mmdSeconds: 1, tileCheckSeconds: 30, publicUrl: "http://127.0.0.1:0", tileMirrors: [],
  authorities: ["127.0.0.1:0"], databaseUrl: undefined, databasePool: 1, checkWorkers: 0, ciphertextBudgetBytes: 1 << 30, ownerKid: undefined,
  noticePeriodSeconds: 0, contributions: { networks: [], evm: [], ledger: "/nonexistent", intentSeconds: 3600, claimSeconds: 0, allowHttp: false }
}
const seed = nodeCrypto.sha256(utf8("kept checkpoint test"))
const key = { publicKey: nodeCrypto.ed25519.publicKey(seed), sign: (message: Uint8Array) => Effect.sync(() => nodeCrypto.ed25519.sign(seed, message)) }

const leaves = (history: string, count: number) => Array.from({ length: count }, (_, i) => utf8(`${history} leaf ${i}`))

/** A node whose database holds `entries`, keeping its checkpoint at `keptPath`: its Publisher built, as at a start. */
const startNode = (entries: ReadonlyArray<Uint8Array>, keptPath: string) =>
  Effect.gen(function*() {
    const base = Layer.mergeAll(
      MemoryLogStoreLive, MemoryTileSinkLive, MemoryCoordinationLive(), LogHealth.layer, NodeRole.layer,
      FsKeptCheckpointLive(keptPath), Layer.succeed(Signer, { log: key, policy: key }), ServiceConfig.layer(settings), Clock.system
    ).pipe(Layer.provideMerge(NodeCryptoLive))
    const log = Layer.mergeAll(LogWriter.layer, LogNotary.layer, LogReader.layer).pipe(Layer.provideMerge(base))
    // The database's leaves, there before the node starts.
    const seeded = Layer.effectDiscard(Effect.scoped(Effect.gen(function*() {
      const { fence } = yield* (yield* Coordination).lease()
      if (entries.length > 0) yield* (yield* LogWriter).append(0, entries, fence)
    })))
    const context = yield* Layer.build(Publisher.layer.pipe(Layer.provideMerge(seeded), Layer.provideMerge(log)))
    // It sequences: the Sequencer would set this once it holds the lease.
    yield* SubscriptionRef.set(Context.get(context, NodeRole).leading, true)
    return {
      publisher: Context.get(context, Publisher),
      health: Context.get(context, LogHealth),
      sink: Context.get(context, TileSink)
    }
  })

const keptBytes = (path: string) => Effect.promise(() => readFile(path).then((b) => new Uint8Array(b), () => undefined))

/** Waits until the kept file holds `note` (it is written off the publishing path). */
const keptBecomes = (path: string, note: Uint8Array) =>
  Effect.gen(function*() {
    for (;;) {
      const bytes = yield* keptBytes(path)
      if (bytes !== undefined && Buffer.from(bytes).equals(Buffer.from(note))) return
      yield* Effect.sleep(Duration.millis(20))
    }
  }).pipe(Effect.timeoutFail({ duration: Duration.seconds(10), onTimeout: () => new Error(`${path} never held the checkpoint`) }))

/** A node on `entries` that published them all and kept the checkpoint in `path`: its note. */
const publishedAndKept = (entries: ReadonlyArray<Uint8Array>, path: string) =>
  Effect.scoped(Effect.gen(function*() {
    const node = yield* startNode(entries, path)
    const published = (yield* node.publisher.publishNow)!
    expect(published.size).toBe(entries.length)
    yield* keptBecomes(path, published.note)
    return published.note
  }))

describe("the checkpoint a node keeps in its data folder", () => {
  it.scopedLive("is each checkpoint it publishes; a start on a log that holds it goes on, and keeps the next", () =>
    Effect.gen(function*() {
      const path = join(yield* tempDir("kept"), "last-checkpoint")
      yield* publishedAndKept(leaves("one", 5), path)
      // The database grew since (another node appended): the kept checkpoint is a prefix.
      const node = yield* startNode(leaves("one", 7), path)
      expect(yield* node.health.diverged).toBeUndefined()
      const next = (yield* node.publisher.publishNow)!
      expect(next.size).toBe(7)
      yield* keptBecomes(path, next.note)
      // As at taking the lease: the same judgement, the same answer.
      yield* node.health.recheck
      expect(yield* node.health.diverged).toBeUndefined()
    }))

  it.scopedLive("above the log (a database restored from an older dump): diverged at start, naming both sizes; nothing is published; the kept one stays", () =>
    Effect.gen(function*() {
      const path = join(yield* tempDir("kept"), "last-checkpoint")
      const note = yield* publishedAndKept(leaves("one", 5), path)
      const node = yield* startNode(leaves("one", 3), path)
      expect(yield* node.health.diverged).toBe(
        "the checkpoint this node kept (last-checkpoint in AICS_DATA_DIR) has 5 leaves but the log only 3: the log went back (a database or data folder restored from a copy older than what was published); restore the copy that holds those leaves")
      expect(yield* node.publisher.publishNow).toBeUndefined()
      expect(Option.isNone(yield* node.sink.readCheckpoint)).toBe(true)
      expect(yield* keptBytes(path)).toEqual(note)
    }))

  it.scopedLive("with another tree at its size (a copy restored and written to): diverged at start", () =>
    Effect.gen(function*() {
      const path = join(yield* tempDir("kept"), "last-checkpoint")
      const note = yield* publishedAndKept(leaves("one", 5), path)
      const node = yield* startNode([...leaves("one", 3), ...leaves("two", 4)], path)
      expect(yield* node.health.diverged).toMatch(/^the checkpoint this node kept \(last-checkpoint in AICS_DATA_DIR\) has another root at size 5 than the log: the log forked/)
      expect(yield* node.publisher.publishNow).toBeUndefined()
      expect(yield* keptBytes(path)).toEqual(note)
    }))

  it.scopedLive("that is not a checkpoint of this log: reported as damage, not a divergence, and replaced by the next checkpoint", () =>
    Effect.gen(function*() {
      const path = join(yield* tempDir("kept"), "last-checkpoint")
      yield* Effect.promise(() => writeFile(path, "not a checkpoint\n"))
      const node = yield* startNode(leaves("one", 4), path)
      expect(yield* node.health.diverged).toBeUndefined()
      expect(yield* damageFound).toContain("last-checkpoint: not a checkpoint of this log signed by its key; the next checkpoint replaces it")
      const published = (yield* node.publisher.publishNow)!
      yield* keptBecomes(path, published.note)
    }))
})
