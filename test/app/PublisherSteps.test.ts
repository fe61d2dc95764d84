// A publication that spans many leaves (src/app/Publisher.ts PUBLISH_STEP_LEAVES): after a
// start that found no tiles, everything since the last checkpoint is published at once, up
// to the whole log. Its entries are read and its tiles written a step at a time, never more
// than a step's leaves (nor PUBLISH_STEP_BYTES, with leaves up to the largest) in one read,
// and what the sink then holds is every tile of the log, byte for byte what one read of the
// whole log would have made, under one checkpoint, with partial tiles of its size only.

import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Context, Effect, Layer, Option, SubscriptionRef } from "effect"
import fc from "fast-check"
import { afterAll, describe, expect, it as plainIt } from "vitest"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { FsKeptCheckpointLive } from "../../src/adapters/fs/FsKeptCheckpoint.js"
import { isFullTilePath } from "../../src/adapters/fs/tilePath.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryTileSinkLive } from "../../src/adapters/memory/MemoryTileSink.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogNotary } from "../../src/app/LogNotary.js"
import { LogReader } from "../../src/app/LogReader.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { Publisher, PUBLISH_STEP_BYTES, PUBLISH_STEP_LEAVES, publishSteps, stepTiles } from "../../src/app/Publisher.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { tileContents } from "../../src/app/tileContents.js"
import { utf8, fromUtf8 } from "../../src/domain/bytes.js"
import { MAX_ENTRY_BYTES } from "../../src/domain/envelope/leaf.js"
import { TILE_WIDTH, tilePath } from "../../src/domain/tlog/tile.js"
import { newTiles, partialTilesForSize, tilesForSize } from "../../src/domain/tlog/tiles.js"
import { Clock } from "../../src/ports/Clock.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { Signer } from "../../src/ports/Signer.js"
import { TileSink } from "../../src/ports/TileSink.js"
import { soleProcessLease } from "../support/leases.js"

const seed = nodeCrypto.sha256(utf8("publisher steps test"))
/** Where the publisher keeps its last checkpoint (ports/KeptCheckpoint.ts). */
const keptDir = mkdtempSync(join(tmpdir(), "aics-publisher-steps-"))
afterAll(() => rmSync(keptDir, { recursive: true, force: true }))

const key = { publicKey: nodeCrypto.ed25519.publicKey(seed), sign: (message: Uint8Array) => Effect.sync(() => nodeCrypto.ed25519.sign(seed, message)) }

describe("publishSteps", () => {
  plainIt("a step is whole entry bundles whose entries, each of the largest size a leaf may have, fit the step's bytes", () => {
    expect(PUBLISH_STEP_LEAVES).toBeGreaterThan(0)
    expect(PUBLISH_STEP_LEAVES % TILE_WIDTH).toBe(0)
    expect(PUBLISH_STEP_LEAVES * MAX_ENTRY_BYTES).toBeLessThanOrEqual(PUBLISH_STEP_BYTES)
  })

  plainIt("cover the publication's leaves in order, each at most a step, each but the last ending on a full entry bundle", () =>
    fc.assert(fc.property(fc.nat(5 * PUBLISH_STEP_LEAVES), fc.nat(5 * PUBLISH_STEP_LEAVES), (from, span) => {
      const target = from + span
      const steps = publishSteps(from, target)
      let at = from
      for (const [i, [start, end]] of steps.entries()) {
        expect(start).toBe(at)
        expect(end).toBeGreaterThan(start)
        expect(end - start).toBeLessThanOrEqual(PUBLISH_STEP_LEAVES)
        if (i < steps.length - 1) expect(end % TILE_WIDTH).toBe(0)
        at = end
      }
      expect(at).toBe(target)
      // As few steps as the bound allows: one more than whole steps past the first bundle's start.
      expect(steps.length).toBe(span === 0 ? 0 : Math.ceil((target - Math.floor(from / TILE_WIDTH) * TILE_WIDTH) / PUBLISH_STEP_LEAVES))
    })))
})

describe("stepTiles", () => {
  plainIt("over a publication's steps, are the tiles newTiles lists for it, each once", () =>
    fc.assert(fc.property(fc.nat(200_000), fc.nat(20 * PUBLISH_STEP_LEAVES), (from, span) => {
      const target = from + span
      const written = publishSteps(from, target).flatMap(([start, end]) => stepTiles(from, target, start, end).map(tilePath))
      expect(written.sort()).toEqual(newTiles(from, target).map(tilePath).sort())
    }), { numRuns: 300 }))
})

describe("a publication of many leaves", () => {
  // Two steps and a part, from a partial first bundle. With 700 leaves past the second step
  // every level's partial tile changes in the last step; with 100 the level-1 tile's does
  // not (8 hashes at 2,048 leaves and at 2,148), and is still the target's to write.
  for (const past of [700, 100]) it.scopedLive(`reads a step at a time and leaves the sink every tile of the log under one checkpoint (${past} leaves past the steps)`, () =>
    Effect.gen(function*() {
      const reads: Array<number> = []
      const readBytes: Array<number> = []
      const store = Layer.effect(LogStore, Effect.map(LogStore, (inner) => LogStore.of({
        ...inner,
        readEntries: (from, to) =>
          Effect.tap(inner.readEntries(from, to), (entries) => {
            reads.push(to - from)
            readBytes.push(entries.reduce((sum, entry) => sum + entry.length, 0))
          })
      }))).pipe(Layer.provide(MemoryLogStoreLive))
      const settings = { origin: "publisher.test/aics", mmdSeconds: 1 } as unknown as ServiceSettings
      const partialsWritten: Array<string> = []
      const sinkLayer = Layer.effect(TileSink, Effect.map(TileSink, (inner) => TileSink.of({
        ...inner,
        writeTiles: (tiles) => Effect.zipRight(Effect.sync(() => {
          for (const tile of tiles) if (!isFullTilePath(tile.path)) partialsWritten.push(tile.path)
        }), inner.writeTiles(tiles))
      }))).pipe(Layer.provide(MemoryTileSinkLive))
      const context = yield* Layer.build(Publisher.layer.pipe(
        Layer.provideMerge(Layer.mergeAll(LogWriter.layer, LogNotary.layer, LogReader.layer)),
        Layer.provideMerge(Layer.mergeAll(
          store, sinkLayer, LogHealth.layer, FsKeptCheckpointLive(join(keptDir, `last-checkpoint-${past}`)),
          Layer.effect(NodeRole, Effect.map(SubscriptionRef.make(true), (leading) => ({ leading }))),
          Layer.succeed(Signer, { log: key, policy: key }), ServiceConfig.layer(settings), Clock.system
        )),
        Layer.provideMerge(NodeCryptoLive)
      ))
      const writer = Context.get(context, LogWriter)
      const publisher = Context.get(context, Publisher)
      const sink = Context.get(context, TileSink)

      // One append, so one publication.
      const size = 2 * PUBLISH_STEP_LEAVES + past
      const fence = yield* soleProcessLease
      yield* writer.append(0, [utf8("the first leaf")], fence)
      yield* publisher.publishNow
      reads.length = 0
      readBytes.length = 0
      partialsWritten.length = 0
      // Leaves of every size up to the largest, so that a step's bytes are bounded by its leaves' count.
      const leafOf = (i: number) => utf8(`leaf ${i} `.padEnd(i % 7 === 0 ? MAX_ENTRY_BYTES : 100 + (i % 2000), "."))
      yield* writer.append(1, Array.from({ length: size - 1 }, (_, i) => leafOf(i + 1)), fence)
      const published = yield* publisher.publishNow
      expect(published?.size).toBe(size)

      expect(reads.length).toBeGreaterThanOrEqual(3)
      expect(reads.reduce((most, n) => Math.max(most, n), 0)).toBeLessThanOrEqual(PUBLISH_STEP_LEAVES)
      expect(readBytes.reduce((most, n) => Math.max(most, n), 0)).toBeLessThanOrEqual(PUBLISH_STEP_BYTES)
      // Partial tiles only of the size a checkpoint is signed for: none for the steps' ends.
      expect(partialsWritten.sort()).toEqual(partialTilesForSize(size).map(tilePath).sort())
      // The sink's checkpoint (origin, size, root, then the signature) is of the whole log.
      expect(fromUtf8(Option.getOrThrow(yield* sink.readCheckpoint)).split("\n")[1]).toBe(String(size))
      // What one read of the whole log makes, compared tile by tile with what the sink holds.
      const expected = yield* tileContents(Context.get(context, LogStore), tilesForSize(size))
      for (const tile of expected) {
        const held = yield* sink.readTile(tile.path)
        expect(Option.isSome(held) && Buffer.from(held.value).equals(Buffer.from(tile.bytes)), tile.path).toBe(true)
      }
    }), 60_000)
})
