// Durability under SIGKILL (and simulated power loss): a child process (crashChild.mjs, on the compiled dist/) appends
// batches to an FsLogStore and prints a line after each append returns; the test kills it
// at random moments, reopens the store after every kill and checks that
//   - the log is a prefix of the deterministic sequence the child writes (crashEntries.mjs),
//   - it holds every batch whose acknowledgement line was printed, and never shrinks,
//   - it has exactly storedHashCount(size) hashes, equal to the ones computed from scratch,
//     so the root from the stored hashes is the root over the entries,
// then restarts the child on the same folder, which continues the log.

import { afterAll, beforeAll, describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, Option } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../../../src/adapters/fs/FsLogStore.js"
import { MAX_UNSYNCED_LEAVES, recordSize } from "../../../src/adapters/fs/logLayout.js"
import { toHex } from "../../../src/domain/bytes.js"
import { frontierFromHashes, frontierIndexes, frontierRoot } from "../../../src/domain/tlog/frontier.js"
import { storedHashCount } from "../../../src/domain/tlog/storedHash.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import { hasher, LogModel } from "../../ports/LogStore.contract.js"
import { killRunningChild, runUntilKilled, tearUnsyncedTails } from "../../support/crashHarness.js"
import { crashEntry } from "./crashEntries.mjs"

const CHILD = join(import.meta.dirname, "crashChild.mjs")
const KILLS = 24

interface ChildRun {
  /** Size the child found when it opened the store. */
  opened: number
  /** Largest size the child acknowledged. */
  acknowledged: number
  batches: number
}

/** Runs the child (on the dist/ that globalSetup built), kills it a while after its first acknowledged batch. */
const runAndKill = async (dir: string, delayMs: number): Promise<ChildRun> => {
  const run: ChildRun = { opened: -1, acknowledged: -1, batches: 0 }
  await runUntilKilled([CHILD, dir], delayMs, (line) => {
    const [kind, first, size] = line.split(" ")
    if (kind === "open") run.opened = Number(first)
    if (kind !== "ack") return false
    run.acknowledged = Number(size)
    run.batches++
    return true
  })
  return run
}

const same = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))

const expectFound = (store: typeof LogStore.Service, model: LogModel, leaf: number) =>
  Effect.gen(function*() {
    const leafHash = hasher.leafHash(model.entries[leaf]!)
    const found = yield* store.findLeaf(leafHash)
    if (!(Option.isSome(found) && found.value === model.firstIndexOf(leafHash))) expect.fail(`findLeaf of leaf ${leaf}: ${JSON.stringify(found)}`)
  })

/**
 * Reopens the store in this process and checks it against the deterministic log, which the
 * model is extended to (the log never shrinks, so the model only grows); returns the size.
 */
const checkStore = (dir: string, model: LogModel, atLeast: number) =>
  Effect.gen(function*() {
    const store = yield* LogStore
    const size = yield* store.size
    expect(size).toBeGreaterThanOrEqual(Math.max(atLeast, model.size))
    model.add(Array.from({ length: size - model.size }, (_, i) => crashEntry(model.size + i)))
    const entries = yield* store.readEntries(0, size)
    for (let i = 0; i < size; i++) {
      if (!same(entries[i]!, model.entries[i]!)) expect.fail(`entry ${i} of ${size} is not the one written`)
    }
    const total = storedHashCount(size)
    const hashes = yield* store.readHashRange(0, total)
    expect(hashes).toHaveLength(total)
    for (let i = 0; i < total; i++) {
      if (!same(hashes[i]!, model.hashes[i]!)) expect.fail(`stored hash ${i} of ${total} is not the one computed from the entries`)
    }
    expect((yield* Effect.flip(store.readHashRange(0, total + 1)))._tag).toBe("StorageError")
    const stored = frontierRoot(hasher, frontierFromHashes(size, yield* store.readHashes(frontierIndexes(size))))
    expect(toHex(stored)).toBe(toHex(frontierRoot(hasher, model.frontier)))
    // findLeaf through the leaf index on disk, whatever the kill left of it (leafFinder.ts).
    for (let i = 0; i < size; i += Math.max(1, Math.floor(size / 50))) yield* expectFound(store, model, i)
    if (size > 0) yield* expectFound(store, model, size - 1)
    return size
  }).pipe(
    Effect.provide(FsLogStoreLive(dir).pipe(Layer.provide(NodeCryptoLive))),
    // After recovery the three files hold exactly `size` leaves, nothing torn.
    Effect.tap((size) =>
      Effect.promise(async () => {
        const bytes = model.entries.reduce((sum, entry) => sum + recordSize(entry.length), 0)
        expect((await stat(join(dir, "leaves"))).size).toBe(bytes)
        expect((await stat(join(dir, "offsets"))).size).toBe(8 * size)
        expect((await stat(join(dir, "hashes"))).size).toBe(32 * storedHashCount(size))
      }))
  )

/** Bytes of the leaves file for the first n entries of the deterministic log. */
const leavesBytes = (() => {
  const sums = [0]
  return (n: number) => {
    while (sums.length <= n) sums.push(sums[sums.length - 1]! + recordSize(crashEntry(sums.length - 1).length))
    return sums[n]!
  }
})()

/**
 * Turns the SIGKILL into a simulated power loss (see tearUnsyncedTails). The durable point
 * is the acknowledged size, or what the last open recovered and synced; the state is torn
 * only when at most one group of leaves (MAX_UNSYNCED_LEAVES) was in flight after it.
 * Returns whether it tore anything.
 */
const simulatePowerLoss = (dir: string, durable: number) =>
  Effect.promise(async () => {
    const offsets = (await stat(join(dir, "offsets"))).size
    if (Math.floor(offsets / 8) - durable > MAX_UNSYNCED_LEAVES) return false
    return tearUnsyncedTails(dir, [
      { name: "leaves", durable: leavesBytes(durable) },
      { name: "offsets", durable: 8 * durable },
      { name: "hashes", durable: 32 * storedHashCount(durable) }
    ])
  })

describe("FsLogStore under SIGKILL", () => {
  let dir = ""
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "aics-crash-"))
  })
  afterAll(async () => {
    await killRunningChild()
    if (dir !== "") await rm(dir, { recursive: true, force: true })
  })

  it.live("keeps every acknowledged batch and a consistent log across random kills", () =>
    Effect.gen(function*() {
      const model = new LogModel()
      let keptUnacknowledged = 0
      let powerLosses = 0
      for (let round = 0; round < KILLS; round++) {
        const run = yield* Effect.promise(() => runAndKill(dir, Math.floor(Math.random() * 150)))
        // The child saw what the last check left, and acknowledged at least one batch.
        expect(run.opened).toBe(model.size)
        expect(run.batches).toBeGreaterThan(0)
        // Every other kill is also a power loss.
        if (round % 2 === 1 && (yield* simulatePowerLoss(dir, run.acknowledged))) powerLosses++
        const size = yield* checkStore(dir, model, run.acknowledged)
        if (size > run.acknowledged) keptUnacknowledged++
      }
      // Not assertions (they depend on timing), but worth seeing in the log.
      console.log(`crash test: ${KILLS} kills, ${powerLosses} torn as by a power loss, final size ${model.size}, ` +
        `${keptUnacknowledged} recoveries kept leaves written but not acknowledged`)
    }), 180_000)
})
