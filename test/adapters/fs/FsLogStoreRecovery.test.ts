// FsLogStore's recovery (src/adapters/fs/logRecovery.ts) on files damaged the ways a crash
// can damage them: torn tails, a file that got its bytes while another did not, zeroed
// pages, garbage hashes. The crash test does it for real with SIGKILL; these make the
// power-loss cases (holes, zeros) happen on purpose.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { appendFile, open, stat, truncate, unlink } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Logger } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../../../src/adapters/fs/FsLogStore.js"
import { MAX_UNSYNCED_LEAVES, recordSize } from "../../../src/adapters/fs/logLayout.js"
import { storedHashCount } from "../../../src/domain/tlog/storedHash.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import { entryBytes, expectStoreMatches, LogModel } from "../../ports/LogStore.contract.js"
import { soleProcessLease } from "../../support/leases.js"
import { tempDir } from "./tempDir.js"

const openStore = (dir: string) => FsLogStoreLive(dir).pipe(Layer.provide(NodeCryptoLive))

const withStore = <A, E>(dir: string, use: (store: typeof LogStore.Service) => Effect.Effect<A, E>) =>
  Effect.flatMap(LogStore, use).pipe(Effect.provide(openStore(dir)))

/** A store in a new folder holding batches of the given sizes; returns the folder and model. */
const storeWith = (batches: ReadonlyArray<number>, entrySize = (i: number) => 20 + (i % 7) * 30) =>
  Effect.gen(function*() {
    const dir = yield* tempDir("recovery")
    const model = new LogModel()
    const fence = yield* soleProcessLease
    yield* withStore(dir, (store) =>
      Effect.forEach(batches, (count) => {
        const entries = Array.from({ length: count }, (_, i) => entryBytes(model.size + i, entrySize(model.size + i)))
        return store.append(model.size, model.add(entries), fence)
      }, { discard: true }))
    return { dir, model }
  })

/** The model cut to its first n leaves. */
const prefix = (model: LogModel, n: number) => {
  const cut = new LogModel()
  cut.add(model.entries.slice(0, n))
  return cut
}

const leavesLength = (model: LogModel, n: number) =>
  model.entries.slice(0, n).reduce((sum, entry) => sum + recordSize(entry.length), 0)

const expectFileSizes = (dir: string, model: LogModel) =>
  Effect.promise(async () => {
    expect((await stat(join(dir, "leaves"))).size).toBe(leavesLength(model, model.size))
    expect((await stat(join(dir, "offsets"))).size).toBe(8 * model.size)
    expect((await stat(join(dir, "hashes"))).size).toBe(32 * storedHashCount(model.size))
  })

const overwrite = (path: string, position: number, bytes: Uint8Array) =>
  Effect.promise(async () => {
    const handle = await open(path, "r+")
    try {
      await handle.write(bytes, 0, bytes.length, position)
    } finally {
      await handle.close()
    }
  })

const recoversTo = (dir: string, model: LogModel) =>
  Effect.gen(function*() {
    yield* withStore(dir, (store) => expectStoreMatches(store, model))
    yield* expectFileSizes(dir, model)
  })

describe("FsLogStore recovery", () => {
  it.scoped("a clean reopen rewrites nothing", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([5, 9, 3])
      const times = () => Effect.promise(() => Promise.all(["leaves", "offsets", "hashes"].map(async (f) => (await stat(join(dir, f))).mtimeMs)))
      const before = yield* times()
      yield* recoversTo(dir, model)
      expect(yield* times()).toEqual(before)
    }))

  it.scoped("cuts a torn record at the end of leaves", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([10])
      // The start of a record: a length, then part of the entry.
      yield* Effect.promise(() => appendFile(join(dir, "leaves"), Uint8Array.of(0, 0, 1, 0, 7, 7, 7)))
      yield* recoversTo(dir, model)
    }))

  it.scoped("keeps whole records whose offsets and hashes were not written, rebuilding them", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([10, 6])
      yield* Effect.promise(() => truncate(join(dir, "offsets"), 8 * 10 + 3))
      yield* Effect.promise(() => truncate(join(dir, "hashes"), 32 * storedHashCount(10)))
      yield* recoversTo(dir, model)
    }))

  it.scoped("drops offsets and hashes written beyond the last whole record", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([10, 6])
      yield* Effect.promise(() => truncate(join(dir, "leaves"), leavesLength(model, 13) + 5))
      yield* Effect.promise(() => appendFile(join(dir, "offsets"), new Uint8Array(8 * 5)))
      yield* Effect.promise(() => appendFile(join(dir, "hashes"), new Uint8Array(32 * 7).fill(0xab)))
      yield* recoversTo(dir, prefix(model, 13))
    }))

  it.scoped("recomputes torn hashes instead of trusting them", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([10, 6])
      // Garbage over the hashes of the last batch (the same length, so only content is wrong).
      const from = storedHashCount(10)
      yield* overwrite(join(dir, "hashes"), 32 * from, new Uint8Array(32 * (storedHashCount(16) - from)).fill(0x5a))
      yield* recoversTo(dir, model)
    }))

  it.scoped("stops at a zeroed page inside the last batch, keeping the whole leaves before it", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([10, 6])
      // A page of the last batch that never reached the disk: record 12 reads as zeros.
      yield* overwrite(join(dir, "leaves"), leavesLength(model, 12) + 10, new Uint8Array(40))
      yield* recoversTo(dir, prefix(model, 12))
    }))

  it.scoped("zeroed offsets in the unsynced tail are rebuilt from the records", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([10, 6])
      yield* overwrite(join(dir, "offsets"), 8 * 11, new Uint8Array(8 * 3))
      yield* recoversTo(dir, model)
    }))

  it.scoped("rebuilds a lost offsets file from the records", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([30, 20])
      yield* Effect.promise(() => unlink(join(dir, "offsets")))
      yield* recoversTo(dir, model)
    }))

  it.scoped("splits a batch larger than the unsynced window and recovers a long log from its tail", () =>
    Effect.gen(function*() {
      const n = 2 * MAX_UNSYNCED_LEAVES + 300
      const { dir, model } = yield* storeWith([n, 40], () => 12)
      yield* recoversTo(dir, model)
      // A torn last batch on a log longer than the window: only the tail is scanned.
      yield* Effect.promise(() => truncate(join(dir, "leaves"), leavesLength(model, n + 25) + 3))
      yield* recoversTo(dir, prefix(model, n + 25))
    }))

  it.scoped("says how many leaves the offsets named that it did not keep", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* storeWith([40])
      // A copy taken out of order: the leaves file 7 records short of what the offsets name.
      yield* Effect.promise(() => truncate(join(dir, "leaves"), leavesLength(model, 33) + 3))
      const lines: Array<string> = []
      const logger = Logger.make(({ message }) => void lines.push(String(Array.isArray(message) ? message.join(" ") : message)))
      expect(yield* withStore(dir, (store) => store.size).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))).toBe(33)
      expect(lines).toContain("log: the offsets named 40 leaves, the last 7 with no whole record (a write cut short by a crash, or a copy taken while the service wrote); the log holds 33")
      // A clean store says nothing.
      lines.length = 0
      yield* withStore(dir, (store) => store.size).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(lines).toEqual([])
    }))

  it.scoped("refuses to open when a synced record is damaged", () =>
    Effect.gen(function*() {
      const n = MAX_UNSYNCED_LEAVES + 100
      const { dir, model } = yield* storeWith([n], () => 12)
      // Record 99 is the last one recovery trusts without scanning (offsets - window - 1).
      yield* overwrite(join(dir, "leaves"), leavesLength(model, 99) + 6, Uint8Array.of(0xff))
      const error = yield* Effect.flip(withStore(dir, (store) => store.size))
      expect(error._tag).toBe("StorageError")
      expect(error.detail).toContain("leaf 99")
      expect(error.detail).toContain("Backups and restores")
    }))
})
